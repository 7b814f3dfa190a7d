import CanteenCore
import CanteenJSON
import Hummingbird

/// Cafés: list and read (any token serving the café), create or update (ops).
struct CafeRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes") { request, context in try await list(request, context) }
        routes.on(.get, "/v1/cafes/:cafeId") { request, context in try await read(request, context) }
        routes.on(.put, "/v1/cafes/:cafeId") { request, context in try await save(request, context) }
        routes.on(.delete, "/v1/cafes/:cafeId") { _, context in try await delete(context) }
    }

    /// Every café the token serves (a bound token sees its own café only).
    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.requireToken()
        let now = services.clock()
        let cafes = try await services.cafes.cafes().filter { token.serves(cafeID: $0.cafe.id) }
        let neutral = services.presenter.presentation(for: request, cafe: nil)
        return try JSONResponse.make(
            CafeListDTO(
                cafes: cafes.map {
                    CafeDTO($0, presentation: services.presenter.presentation(for: request, cafe: $0.cafe), now: now)
                }),
            headers: neutral.headers)
    }

    func read(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        guard let cafe = try await services.cafes.cafe(id: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
        let presentation = services.presenter.presentation(for: request, cafe: cafe.cafe)
        return try JSONResponse.make(
            CafeDTO(cafe, presentation: presentation, now: services.clock()),
            headers: presentation.headers)
    }

    /// Creates (201) or replaces (200) a café's configuration; its menu is kept.
    func save(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops)
        guard Identifier.isValid(cafeID) else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "'\(cafeID)' is not an id: use 1–64 of a-z, 0-9, '-' and '_'", field: "cafeId")
        }
        var request = request
        var body = try await request.jsonBody()
        if case .object(var object) = body {
            // Read-only fields of GET may be sent back unchanged.
            for key in ["menuVersion", "openNow", "name"] { object.removeValue(forKey: key) }
            body = .object(object)
        }
        let cafe = try CafeDocument.parseCafe(body, id: cafeID)
        let existed = try await services.cafes.cafe(id: cafeID) != nil
        let saved = try await services.cafes.saveCafe(
            cafe, audit: context.audit("cafe.save", "cafe", cafeID, cafe: cafeID))
        let presentation = services.presenter.presentation(for: request, cafe: saved.cafe)
        return try JSONResponse.make(
            CafeDTO(saved, presentation: presentation, now: services.clock()),
            status: existed ? .ok : .created, headers: presentation.headers)
    }

    /// Deletes a café with its menu and beacons (ops); 409 `cafe_in_use` once it has orders.
    /// Users' preferences naming it stay: café resolution then falls back.
    func delete(_ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops)
        try await services.cafes.deleteCafe(
            id: cafeID, audit: context.audit("cafe.delete", "cafe", cafeID, cafe: cafeID))
        return Response(status: .noContent)
    }
}
