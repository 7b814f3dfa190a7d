import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// A café's menu: read with ETag (any token serving the café); replace and change items (ops).
struct MenuRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/menu") { request, context in try await read(request, context) }
        routes.on(.put, "/v1/cafes/:cafeId/menu") { request, context in try await replace(request, context) }
        routes.on(.get, "/v1/cafes/:cafeId/menu/document") { _, context in try await document(context) }
        routes.on(.patch, "/v1/cafes/:cafeId/menu/items/:itemId") { request, context in
            try await changeItem(request, context)
        }
    }

    func read(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        let menu = try await loadMenu(cafeID)
        return try await respond(with: menu, request: request)
    }

    /// The menu as `PUT …/menu` takes it (ops): every text in every language, prices in minor
    /// units, in `document`; with the version and the sold-out marks (item id → until, or null).
    func document(_ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops, cafe: cafeID)
        let menu = try await loadMenu(cafeID)
        let soldOut = menu.soldOut.mapValues { mark in
            mark.until.map { JSONValue.string(RFC3339.utcSeconds($0)) } ?? .null
        }
        let body: JSONValue = .object([
            "cafeId": .string(cafeID), "version": .int(menu.version), "currency": .string(menu.cafe.currency.code),
            "currencyExponent": .int(Int64(menu.cafe.currency.minorUnits)),
            "languages": .array(menu.cafe.languages.map(JSONValue.string)),
            "document": CafeDocument.render(menu.menu), "soldOut": .object(soldOut),
        ])
        return JSONResponse.make(encoded: body.encoded())
    }

    func replace(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops)
        var request = request
        let body = try await request.jsonBody()
        guard let cafe = try await services.cafes.cafe(id: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
        let menu = try CafeDocument.parseMenu(body, cafe: cafe.cafe)
        _ = try await services.cafes.replaceMenu(
            cafeID: cafeID, with: menu, audit: context.audit("menu.replace", "menu", cafeID, cafe: cafeID))
        return try await respond(with: try await loadMenu(cafeID), request: request, conditional: false)
    }

    /// `{"soldOut": true, "soldOutUntil": RFC 3339}` and/or `{"price": minor units}`. Ops may
    /// change both; the café's kitchen may mark items sold out and back (from the kitchen
    /// display), nothing else of the menu.
    func changeItem(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        let itemID = try context.parameters.path("itemId")
        let token = try context.require(.ops, .kitchen, cafe: cafeID)
        var request = request
        let body = try await request.jsonBody()
        guard let cafe = try await services.cafes.cafe(id: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
        let changes = try Self.readItemChanges(body, currency: cafe.cafe.currency, now: services.clock())
        if token.role == .kitchen, changes.contains(where: { if case .price = $0 { true } else { false } }) {
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "a kitchen token may mark items sold out and back, not change prices",
                field: "price", parameters: ["role": token.role.rawValue])
        }
        _ = try await services.cafes.updateItem(
            cafeID: cafeID, itemID: itemID, changes: changes,
            audit: context.audit("item.change", "item", itemID, cafe: cafeID))
        return try await respond(with: try await loadMenu(cafeID), request: request, conditional: false)
    }

    static func readItemChanges(_ body: JSONValue, currency: Currency, now: Date) throws(ValidationError)
        -> [MenuItemChange]
    {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(body, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let soldOut = reader.bool("soldOut", required: false)
        let untilText = reader.string("soldOutUntil", required: false)
        let price = reader.integer(
            "price", required: false, in: 0...1_000_000_000_000,
            fractionalMessage: CafeDocument.fractionalMessage(currency))
        reader.finish()
        var until: Date?
        if let untilText {
            if let date = RFC3339.parse(untilText) {
                if date <= now { problems.add("soldOutUntil", "\(untilText) is in the past") }
                if soldOut != true { problems.add("soldOutUntil", "only applies with \"soldOut\": true") }
                until = date
            } else {
                problems.add("soldOutUntil", "'\(untilText)' is not an RFC 3339 date-time such as 2026-11-22T15:00:00Z")
            }
        }
        if problems.isEmpty && soldOut == nil && price == nil {
            problems.add("", "nothing to change: send soldOut, soldOutUntil or price", code: .missingField)
        }
        try problems.throwIfAny()
        var changes: [MenuItemChange] = []
        if let soldOut { changes.append(.soldOut(soldOut, until: until)) }
        if let price { changes.append(.price(price)) }
        return changes
    }

    private func loadMenu(_ cafeID: String) async throws -> CafeMenu {
        guard let menu = try await services.cafes.menu(cafeID: cafeID) else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        return menu
    }

    /// The menu with its ETag; 304 when the request's `If-None-Match` already has it.
    private func respond(with menu: CafeMenu, request: Request, conditional: Bool = true) async throws -> Response {
        let presentation = services.presenter.presentation(for: request, cafe: menu.cafe)
        let now = services.clock()
        let remaining = try await services.remaining(of: menu, now: now)
        let etag = MenuDTO.etag(menu, remaining: remaining, variant: presentation.variant, now: now)
        var headers = presentation.headers
        headers.setValidator(etag)
        if conditional, let condition = request.headers[.ifNoneMatch], EntityTags.noneMatch(condition, etag) {
            return Response(status: .notModified, headers: headers)
        }
        return try JSONResponse.make(
            MenuDTO(menu, remaining: remaining, presentation: presentation, now: now),
            headers: headers)
    }
}
