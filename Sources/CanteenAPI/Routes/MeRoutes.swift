import CanteenCore
import CanteenIdentity
import CanteenJSON
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The person making the request, whoever authenticated them (a session, a user token, the
/// provider's access token):
///
/// - `GET /v1/me`: `{"userId", "name", "email", "role"}`;
/// - `GET /v1/me/orders?limit=N`: their most recent orders, newest first (the page's "My orders");
/// - `GET /v1/me/data`: everything Canteen holds about them, as one JSON document;
/// - `DELETE /v1/me`: erases their preferences, cards, card codes, sessions and user tokens, and
///   unlinks their orders (the orders keep their lines and totals, but no user id or name); 204.
///
/// Tokens that act for nobody in particular (kiosk, kitchen, ops tokens) get 403.
struct MeRoutes {
    let services: APIServices

    /// The most orders `GET /v1/me/orders` answers with.
    static let maxOrders = 50

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/me") { _, context in try me(context) }
        routes.on(.get, "/v1/me/orders") { request, context in try await orders(request, context) }
        routes.on(.get, "/v1/me/data") { request, context in try await export(request, context) }
        routes.on(.delete, "/v1/me") { _, context in try await erase(context) }
    }

    /// The token of someone in person, and their user id.
    private func person(_ context: CanteenRequestContext) throws(CanteenError) -> (token: AccessToken, userID: String) {
        let token = try context.requireToken()
        guard let userID = token.userID else {
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "a \(token.role.rawValue) token acts for no person; sign in, or use a user token",
                parameters: ["role": token.role.rawValue])
        }
        return (token, userID)
    }

    // MARK: - Who

    func me(_ context: CanteenRequestContext) throws -> Response {
        let (token, userID) = try person(context)
        let person = context.person
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return try JSONResponse.make(
            MeDTO(
                userId: userID, name: person?.name ?? token.name, email: person?.email,
                role: token.role.rawValue), headers: headers)
    }

    // MARK: - Orders

    func orders(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let (_, userID) = try person(context)
        var limit = 20
        if let text = request.uri.queryParameters.get("limit") {
            guard let value = Int(text), (1...Self.maxOrders).contains(value) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "limit is a whole number from 1 to \(Self.maxOrders)", field: "limit")
            }
            limit = value
        }
        let ids = try await services.personalData.recentOrderIDs(userID: userID, limit: limit)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return try JSONResponse.make(MyOrdersDTO(orders: try await rendered(ids, request)), headers: headers)
    }

    /// The orders of `ids` as `GET /v1/orders/{id}` shows them, each in its café's presentation.
    private func rendered(_ ids: [String], _ request: Request) async throws -> [OrderDTO] {
        var cafes: [String: Cafe] = [:]
        var orders: [OrderDTO] = []
        for id in ids {
            guard let order = try await services.orders.order(id: id) else { continue }
            if cafes[order.cafeID] == nil {
                cafes[order.cafeID] = try await services.cafes.cafe(id: order.cafeID)?.cafe
            }
            guard let cafe = cafes[order.cafeID] else { continue }
            orders.append(
                OrderDTO(order, cafe: cafe, presentation: services.presenter.presentation(for: request, cafe: cafe)))
        }
        return orders
    }

    // MARK: - Export and erasure

    func export(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let (token, userID) = try person(context)
        let data = try await services.personalData.personalData(userID: userID)
        let document = PersonalDataDTO(
            userId: userID, exportedAt: services.clock(), person: context.person.map(PersonDTO.init),
            preferences: data.preferences.map { PreferencesExportDTO(values: $0.values, version: $0.version) },
            cards: data.cards.map {
                CardExportDTO(
                    technology: $0.technology, displayName: $0.displayName,
                    registeredAt: $0.createdAt, identifierHash: $0.identifierHash)
            },
            cardCodes: data.enrolments.map {
                CardCodeExportDTO(
                    displayName: $0.displayName, expiresAt: $0.expiresAt,
                    usedAt: $0.usedAt)
            },
            sessions: data.sessions.map { SessionExportDTO($0, current: $0.id == token.id) },
            tokens: data.tokens.map {
                TokenExportDTO(
                    id: $0.id, name: $0.name, createdAt: $0.createdAt,
                    revokedAt: $0.revokedAt)
            },
            orders: try await rendered(data.orderIDs, request))
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[.contentDisposition] = "attachment; filename=\"canteen-data.json\""
        return try JSONResponse.make(document, headers: headers)
    }

    func erase(_ context: CanteenRequestContext) async throws -> Response {
        let (_, userID) = try person(context)
        // Revoked through the token store first, so that its cache forgets them at once.
        for token in try await services.tokens.tokens() where token.userID == userID && token.revokedAt == nil {
            try await services.tokens.revokeToken(id: token.id)
        }
        let erased = try await services.personalData.erase(userID: userID)
        context.logger.notice(
            "personal data erased",
            metadata: [
                "preferences": "\(erased.preferences)", "cards": "\(erased.cards)", "sessions": "\(erased.sessions)",
                "tokens": "\(erased.tokens)", "orders_unlinked": "\(erased.ordersUnlinked)",
            ])
        return Response(status: .noContent, headers: AuthRoutes.clearingSession(services.identity))
    }
}

// MARK: - Answers

/// `GET /v1/me`.
struct MeDTO: Encodable {
    let userId: String
    let name: String?
    let email: String?
    let role: String

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(name, forKey: .name)
        try container.encode(email, forKey: .email)
        try container.encode(role, forKey: .role)
    }

    enum CodingKeys: String, CodingKey { case userId, name, email, role }
}

/// `GET /v1/me/orders`.
struct MyOrdersDTO: Encodable {
    let orders: [OrderDTO]
}

/// `GET /v1/me/data`: one document with everything held about the person.
struct PersonalDataDTO: Encodable {
    let userId: String
    let exportedAt: Date
    /// Who the identity provider said they are (when signed in with it).
    let person: PersonDTO?
    let preferences: PreferencesExportDTO?
    let cards: [CardExportDTO]
    let cardCodes: [CardCodeExportDTO]
    let sessions: [SessionExportDTO]
    let tokens: [TokenExportDTO]
    let orders: [OrderDTO]
}

struct PersonDTO: Encodable {
    let name: String?
    let email: String?
    let role: String

    init(_ person: SignedInPerson) {
        name = person.name
        email = person.email
        role = person.role.rawValue
    }
}

struct PreferencesExportDTO: Encodable {
    let values: [String: JSONValue]
    let version: Int64
}

struct CardExportDTO: Encodable {
    let technology: String
    let displayName: String?
    let registeredAt: Date
    /// The keyed hash that stands for the card (its identifier is never stored).
    let identifierHash: String
}

struct CardCodeExportDTO: Encodable {
    let displayName: String?
    let expiresAt: Date
    let usedAt: Date?
}

struct SessionExportDTO: Encodable {
    let id: String
    let role: String
    let name: String?
    let email: String?
    let createdAt: Date
    let lastSeenAt: Date
    /// Whether this is the session the export was asked with.
    let current: Bool

    init(_ session: UserSession, current: Bool) {
        id = session.id
        role = session.role.rawValue
        name = session.name
        email = session.email
        createdAt = session.createdAt
        lastSeenAt = session.lastSeenAt
        self.current = current
    }
}

struct TokenExportDTO: Encodable {
    let id: String
    let name: String?
    let createdAt: Date
    let revokedAt: Date?
}
