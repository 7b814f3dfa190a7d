import CanteenJSON
import Foundation

/// What a bearer token may do.
public enum Role: String, CaseIterable, Hashable, Sendable, Codable {
    /// Counter tablets and phones acting for an employee: browse, order.
    case kiosk
    /// Kitchen displays: read and move tickets.
    case kitchen
    /// Operations staff: configure everything.
    case ops
    /// One user's own phone or app: that user's preferences, café and orders, and nothing else.
    case user
    /// A metrics scraper (Prometheus): reads `GET /metrics` and nothing else.
    case metrics
}

/// A stored access token (its secret is kept only as a hash).
public struct AccessToken: Hashable, Sendable, Codable {
    /// Public identifier, safe to print and to revoke by (`tok_…`).
    public var id: String
    public var name: String?
    public var role: Role
    /// The café a kiosk or kitchen token is bound to; nil serves every café.
    public var cafeID: String?
    /// The user a `user` token acts for (nil for every other role).
    public var userID: String?
    public var createdAt: Date
    public var revokedAt: Date?
    /// When a request last presented it (to within `TokenUse.interval`); nil: never, or not read.
    public var lastUsedAt: Date?

    public init(
        id: String, name: String?, role: Role, cafeID: String?, userID: String? = nil, createdAt: Date,
        revokedAt: Date?, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.cafeID = cafeID
        self.userID = userID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether this token may act on `cafeID`.
    public func serves(cafeID other: String) -> Bool { cafeID == nil || cafeID == other }

    /// Whether this token may act for `userID`: kiosks (for the person at the counter) and ops
    /// for anyone, a user token for its own user only.
    public func actsFor(userID other: String) -> Bool {
        switch role {
        case .kiosk, .ops: true
        case .user: userID == other
        case .kitchen, .metrics: false
        }
    }
}

/// What a new token is: its role, the café a kiosk or kitchen token is bound to, the user a
/// user token acts for, and a name to recognise it by.
public struct TokenSpec: Hashable, Sendable {
    public var role: Role
    public var cafeID: String?
    public var userID: String?
    public var name: String?

    public init(role: Role, cafeID: String? = nil, userID: String? = nil, name: String? = nil) {
        self.role = role
        self.cafeID = cafeID
        self.userID = userID
        self.name = name
    }

    /// The longest name a token may have, in characters.
    public static let maxNameLength = 200

    /// Checks the combination: a user token names one valid user and no café; ops tokens are
    /// bound to nothing; kiosk and kitchen tokens may name a café but no user.
    public func validate() throws(CanteenError) {
        switch role {
        case .user:
            guard let userID else {
                throw CanteenError(
                    .invalid, code: .missingField, message: "a user token needs the user it acts for",
                    field: "userId")
            }
            try UserID.validate(userID)
            if cafeID != nil {
                throw CanteenError(
                    .invalid, code: .invalidField, message: "a user token is bound to a user, not a café",
                    field: "cafeId")
            }
        case .ops, .metrics:
            if cafeID != nil || userID != nil {
                throw CanteenError(
                    .invalid, code: .invalidField,
                    message: "an \(role.rawValue) token is bound to no café and no user",
                    field: cafeID != nil ? "cafeId" : "userId")
            }
        case .kiosk, .kitchen:
            if userID != nil {
                throw CanteenError(
                    .invalid, code: .invalidField,
                    message: "only user tokens act for one user; a \(role.rawValue) token cannot",
                    field: "userId")
            }
        }
        if let cafeID, !Identifier.isValid(cafeID) {
            throw CanteenError(
                .invalid, code: .invalidField, message: "'\(cafeID.prefix(80))' is not a café id",
                field: "cafeId")
        }
        if let name {
            try TextLimits.check(name, field: "name", maxCharacters: Self.maxNameLength)
        }
    }
}

extension TokenSpec {
    /// What the audit log shows of a new token: never its secret.
    public var audited: JSONValue {
        .object([
            "role": .string(role.rawValue), "cafeId": cafeID.map(JSONValue.string) ?? .null,
            "userId": userID.map(JSONValue.string) ?? .null, "name": name.map(JSONValue.string) ?? .null,
        ])
    }
}
