import CanteenCore
import Foundation
import Hummingbird

/// `POST /v1/cards` (ops) registers a badge card to a user; `POST /v1/cards/identify` (kiosk of a café, or
/// ops) answers whose card was tapped: user id, display name and preferred café.
struct CardRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/cards") { request, context in try await registerCard(request, context) }
        routes.on(.post, "/v1/cards/identify") { request, context in try await identify(request, context) }
    }

    struct RegistrationDTO: Encodable {
        var userId: String
        var displayName: String?
        var technology: String
        var preferredCafeId: String?
    }

    func repository() throws -> any CardRepository {
        guard let cards = services.cards else {
            throw CanteenError(.internal, code: .cardsUnavailable, message: "this server has no card store")
        }
        return cards
    }

    /// `technology` and `identifier` of a body, each problem named by its field.
    static func card(_ body: [String: JSONValue]) throws -> (CardTechnology, CardIdentifier) {
        guard let text = body["technology"]?.stringValue, let technology = CardTechnology(rawValue: text) else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "technology is one of \(CardTechnology.allCases.map(\.rawValue).joined(separator: ", "))",
                field: "technology")
        }
        guard let identifier = body["identifier"]?.stringValue else {
            throw CanteenError(
                .invalid, code: .invalidCardIdentifier, message: "identifier is required (hex)", field: "identifier")
        }
        return (technology, try CardIdentifier(identifier))
    }

    static func object(_ value: JSONValue) throws -> [String: JSONValue] {
        guard let object = value.objectValue else {
            throw CanteenError(.invalid, code: .badRequest, message: "the body is a JSON object")
        }
        return object
    }

    func registerCard(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        var request = request
        let body = try Self.object(try await request.jsonBody())
        guard let userID = body["userId"]?.stringValue, !userID.isEmpty, userID.count <= 128 else {
            throw CanteenError(
                .invalid, code: .invalidField, message: "userId has 1 to 128 characters", field: "userId")
        }
        var displayName: String?
        if let value = body["displayName"], value != .null {
            guard let name = value.stringValue else {
                throw CanteenError(
                    .invalid, code: .invalidType, message: "displayName is a string of at most 200 characters",
                    field: "displayName")
            }
            try TextLimits.check(name, field: "displayName", maxCharacters: 200)
            displayName = name
        }
        let (technology, identifier) = try Self.card(body)
        let saved = try await repository().register(
            CardRegistration(userID: userID, displayName: displayName, technology: technology), identifier: identifier)
        return try JSONResponse.make(
            RegistrationDTO(
                userId: saved.userID, displayName: saved.displayName, technology: saved.technology.rawValue),
            status: .created)
    }

    func identify(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.kiosk, .ops)
        var request = request
        let (technology, identifier) = try Self.card(try Self.object(try await request.jsonBody()))
        let found = try await repository().identify(technology: technology, identifier: identifier)
        var preferred: String?
        if case .cafe(let cafeID) = try await services.preferences.defaultLocation(userID: found.userID).location {
            preferred = cafeID
        }
        return try JSONResponse.make(
            RegistrationDTO(
                userId: found.userID, displayName: found.displayName, technology: technology.rawValue,
                preferredCafeId: preferred))
    }
}
