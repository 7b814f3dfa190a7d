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

// MARK: - CardRepository

/// Registered badge cards: registration by ops, identification at a kiosk tap.
public protocol CardRepository: Sendable {
    /// Registers the card to `userID`; `card_already_registered` when the card belongs to someone already.
    func register(_ registration: CardRegistration, identifier: CardIdentifier) async throws -> CardRegistration
    /// The card's registration, or `card_not_registered`.
    func identify(technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration
    /// A one-time code with which the user registers a card of their own at a kiosk, until `expiresAt`.
    func createEnrolment(userID: String, displayName: String?, expiresAt: Date) async throws -> String
    /// Registers the card to the user a one-time code was made for, and spends the code;
    /// `enrolment_code_invalid` when the code is unknown, spent or expired.
    func enrol(code: String, technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration
}

extension CanteenError {
    public static let enrolmentCodeInvalid = CanteenError(
        .invalid, code: .enrolmentCodeInvalid, message: "this code is unknown, already used or expired; ask for a new one",
        field: "code")

    public static let cardNotRegistered = CanteenError(
        .notFound, code: .cardNotRegistered, message: "this card is not registered to anyone")

    public static let cardAlreadyRegistered = CanteenError(
        .conflict, code: .cardAlreadyRegistered, message: "this card is already registered", field: "identifier")
}
