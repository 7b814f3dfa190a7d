import CanteenJSON
import Foundation

// MARK: - CardTechnology

/// The kind of contactless card a registration names; part of the card's key, since identifiers of two
/// technologies may collide.
public enum CardTechnology: String, Hashable, Sendable, CaseIterable, Codable {
    case felica
    case type2
    case iso15693
    case iso14443a
    case iso14443b
}

// MARK: - CardIdentifier

/// A card's identifier (UID, FeliCa IDm) as upper-case hex: 4 to 10 bytes, the lengths real cards use.
public struct CardIdentifier: Hashable, Sendable, CustomStringConvertible {
    public let hex: String

    /// Parses hex (spaces and colons allowed, any case); throws `invalid_card_identifier` naming `field`.
    public init(_ text: String, field: String = "identifier") throws {
        let digits = text.filter { !$0.isWhitespace && $0 != ":" }.uppercased()
        guard digits.count % 2 == 0, (8...20).contains(digits.count), digits.allSatisfy(\.isHexDigit) else {
            throw CanteenError(
                .invalid, code: .invalidCardIdentifier,
                message: "a card identifier is 4 to 10 bytes of hex, e.g. 04A25C1A2B3C80", field: field)
        }
        hex = digits
    }

    public var description: String { hex }
}

// MARK: - CardRegistration

/// A card registered to a user. The identifier itself is never stored, only a keyed hash of it.
public struct CardRegistration: Hashable, Sendable {
    public var userID: String
    public var displayName: String?
    public var technology: CardTechnology

    public init(userID: String, displayName: String?, technology: CardTechnology) {
        self.userID = userID
        self.displayName = displayName
        self.technology = technology
    }
}

// MARK: - RegisteredCard

/// A registered card as ops see it: whose, which technology, since when, and an id to remove it
/// by (never the card's identifier, which is not stored).
public struct RegisteredCard: Hashable, Sendable {
    /// `card_` and the first 16 hex digits of the card's keyed hash.
    public var id: String
    public var registration: CardRegistration
    public var createdAt: Date

    public init(id: String, registration: CardRegistration, createdAt: Date) {
        self.id = id
        self.registration = registration
        self.createdAt = createdAt
    }

    /// The id of the card stored under `identifierHash` (hex).
    public static func id(identifierHash: String) -> String { "card_" + identifierHash.prefix(16) }
}

extension CardRegistration {
    /// What the audit log shows of a registration (never the card's identifier).
    public var audited: JSONValue {
        .object([
            "userId": .string(userID), "displayName": displayName.map(JSONValue.string) ?? .null,
            "technology": .string(technology.rawValue),
        ])
    }
}

/// What the audit log shows of a one-time enrolment code: whose and until when, never the code.
public enum EnrolmentAudit {
    public static func audited(userID: String, displayName: String?, expiresAt: Date) -> JSONValue {
        .object([
            "userId": .string(userID), "displayName": displayName.map(JSONValue.string) ?? .null,
            "expiresAt": .string(RFC3339.utcSeconds(expiresAt)),
        ])
    }
}

extension CanteenError {
    public static let enrolmentCodeInvalid = CanteenError(
        .invalid, code: .enrolmentCodeInvalid,
        message: "this code is unknown, already used or expired; ask for a new one",
        field: "code")

    public static let cardNotRegistered = CanteenError(
        .notFound, code: .cardNotRegistered, message: "this card is not registered to anyone")

    public static let cardAlreadyRegistered = CanteenError(
        .conflict, code: .cardAlreadyRegistered, message: "this card is already registered", field: "identifier")
}
