import CanteenCore
import Hummingbird

/// Cafés: list and read (any token serving the café), create or update (ops).
struct CafeRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes") { _, context in try await list(context) }
        routes.on(.get, "/v1/cafes/:cafeId") { _, context in try await read(context) }
        routes.on(.put, "/v1/cafes/:cafeId") { request, context in try await save(request, context) }
        routes.on(.delete, "/v1/cafes/:cafeId") { _, context in try await delete(context) }
    }

    /// Every café the token serves (a bound token sees its own café only).
    func list(_ context: CanteenRequestContext) async throws -> Response {
        let token = try context.requireToken()
        let presentation = Presentation(languages: [])
        let now = services.clock()
        let cafes = try await services.cafes.cafes().filter { token.serves(cafeID: $0.cafe.id) }
        return try JSONResponse.make(CafeListDTO(cafes: cafes.map { CafeDTO($0, presentation: presentation, now: now) }))
    }

    func read(_ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        guard let cafe = try await services.cafes.cafe(id: cafeID) else { throw CanteenError.notFound("cafe", cafeID) }
        return try JSONResponse.make(CafeDTO(cafe, presentation: Presentation(languages: []), now: services.clock()))
    }

    /// Creates (201) or replaces (200) a café's configuration; its menu is kept.
    func save(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops)
        guard Identifier.isValid(cafeID) else {
            throw CanteenError(.invalid, code: "invalid_field",
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
        let saved = try await services.cafes.saveCafe(cafe)
        return try JSONResponse.make(CafeDTO(saved, presentation: Presentation(languages: []), now: services.clock()),
                                     status: existed ? .ok : .created)
    }

    /// Deletes a café with its menu and beacons (ops); 409 `cafe_in_use` once it has orders.
    /// Users' preferences naming it stay: café resolution then falls back.
    func delete(_ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops)
        try await services.cafes.deleteCafe(id: cafeID)
        return Response(status: .noContent)
    }
}
