import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// `POST /v1/cards` (ops) registers a badge card to a user; `POST /v1/cards/identify` (kiosk of a café, or
/// ops) answers whose card was tapped: user id, display name and preferred café. Wrong enrolment codes
/// and unknown cards are counted per token and per café (`GuessLimiter`), each kind on its own.
struct CardRoutes {
    let services: APIServices
    let enrolmentGuesses: GuessLimiter
    let cardGuesses: GuessLimiter

    init(services: APIServices) {
        self.services = services
        enrolmentGuesses = GuessLimiter(clock: services.clock)
        cardGuesses = GuessLimiter(clock: services.clock)
    }

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/cards") { request, context in try await registerCard(request, context) }
        routes.on(.post, "/v1/cards/identify") { request, context in try await identify(request, context) }
        routes.on(.post, "/v1/cards/enrolments") { request, context in try await createEnrolment(request, context) }
        routes.on(.post, "/v1/cards/enrol") { request, context in try await enrol(request, context) }
        routes.on(.get, "/v1/users/:userId/cards") { _, context in try await listCards(context) }
        routes.on(.delete, "/v1/users/:userId/cards/:cardId") { _, context in try await removeCard(context) }
    }

    /// The cards registered to a user (ops): an id to remove each by, technology, name, since when.
    func listCards(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let userID = try context.parameters.path("userId")
        try UserID.validate(userID)
        let cards = try await services.cards.cards(userID: userID)
        let body: JSONValue = .object([
            "cards": .array(
                cards.map { card in
                    .object([
                        "id": .string(card.id), "userId": .string(card.registration.userID),
                        "displayName": card.registration.displayName.map(JSONValue.string) ?? .null,
                        "technology": .string(card.registration.technology.rawValue),
                        "createdAt": .string(RFC3339.utcSeconds(card.createdAt)),
                    ])
                })
        ])
        return JSONResponse.make(encoded: body.encoded())
    }

    /// Removes one of a user's cards (ops); 404 `card_not_registered` when the user has no such card.
    func removeCard(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let userID = try context.parameters.path("userId")
        try UserID.validate(userID)
        let cardID = try context.parameters.path("cardId")
        try await services.cards.removeCard(
            userID: userID, cardID: cardID,
            audit: context.audit("card.remove", "card", cardID, cafe: nil))
        return Response(status: .noContent)
    }

    /// How long a one-time enrolment code lasts.
    static let enrolmentLifetime: TimeInterval = 15 * 60

    struct EnrolmentDTO: Encodable {
        var code: String
        var userId: String
        var expiresAt: String
    }

    /// `{"userId", "displayName"?}` (ops): a one-time code the user types at a kiosk after tapping their card.
    func createEnrolment(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        var request = request
        let body = try Self.object(try await request.jsonBody())
        let (userID, displayName) = try Self.user(body, allowed: ["userId", "displayName"])
        let expiresAt = services.clock().addingTimeInterval(Self.enrolmentLifetime)
        let code = try await services.cards.createEnrolment(
            userID: userID, displayName: displayName, expiresAt: expiresAt,
            audit: context.audit("card.enrolment", "user", userID, cafe: nil))
        return try JSONResponse.make(
            EnrolmentDTO(code: code, userId: userID, expiresAt: RFC3339.utcSeconds(expiresAt)),
            status: .created)
    }

    /// `{"code", "technology", "identifier"}` (kiosk): registers the tapped card to the code's user.
    func enrol(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.require(.kiosk)
        var request = request
        let body = try Self.object(try await request.jsonBody())
        for key in body.keys where !["code", "technology", "identifier"].contains(key) {
            throw CanteenError(.invalid, code: .unknownField, message: "unknown field \(key)", field: key)
        }
        guard let code = body["code"]?.stringValue, (1...32).contains(code.count) else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "code is the one-time code ops gave (12 characters, such as 7KQM-X2PA-9RTD)",
                field: "code")
        }
        let (technology, identifier) = try Self.card(body)
        let saved = try await enrolmentGuesses.guess(by: token, isFailure: { $0.code == .enrolmentCodeInvalid }) {
            try await services.cards.enrol(code: code, technology: technology, identifier: identifier)
        }
        return try JSONResponse.make(
            RegistrationDTO(
                userId: saved.userID, displayName: saved.displayName, technology: saved.technology.rawValue),
            status: .created)
    }

    struct RegistrationDTO: Encodable {
        var userId: String
        var displayName: String?
        var technology: String
        var preferredCafeId: String?
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

    /// `userId` (`UserID`'s rule) and `displayName` (at most 200) of a body; with `allowed`, no other member.
    static func user(_ body: [String: JSONValue], allowed: Set<String>?) throws -> (String, String?) {
        if let allowed {
            for key in body.keys.sorted() where !allowed.contains(key) {
                throw CanteenError(.invalid, code: .unknownField, message: "unknown field \(key)", field: key)
            }
        }
        guard let userID = body["userId"]?.stringValue else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "userId is a string: 1–128 of letters, digits, '-', '_', '.' and '@'", field: "userId")
        }
        try UserID.validate(userID)
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
        return (userID, displayName)
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
        let (userID, displayName) = try Self.user(body, allowed: nil)
        let (technology, identifier) = try Self.card(body)
        let saved = try await services.cards.register(
            CardRegistration(userID: userID, displayName: displayName, technology: technology), identifier: identifier,
            audit: context.audit("card.register", "card", "", cafe: nil))
        return try JSONResponse.make(
            RegistrationDTO(
                userId: saved.userID, displayName: saved.displayName, technology: saved.technology.rawValue),
            status: .created)
    }

    func identify(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.require(.kiosk, .ops)
        var request = request
        let (technology, identifier) = try Self.card(try Self.object(try await request.jsonBody()))
        let found = try await identification(technology: technology, identifier: identifier, by: token)
        return try JSONResponse.make(found)
    }

    /// Whose card this is, with their preferred café; `card_not_registered` when nobody's (a failed
    /// guess of `token`'s), `too_many_attempts` after too many of those.
    func identification(
        technology: CardTechnology, identifier: CardIdentifier,
        by token: AccessToken
    ) async throws -> RegistrationDTO {
        let found = try await cardGuesses.guess(by: token, isFailure: { $0.code == .cardNotRegistered }) {
            try await services.cards.identify(technology: technology, identifier: identifier)
        }
        var preferred: String?
        if case .cafe(let cafeID) = try await services.preferences.defaultLocation(userID: found.userID).location {
            preferred = cafeID
        }
        return RegistrationDTO(
            userId: found.userID, displayName: found.displayName, technology: technology.rawValue,
            preferredCafeId: preferred)
    }
}
