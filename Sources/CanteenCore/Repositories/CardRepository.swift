import CanteenJSON
import Foundation

/// Registered badge cards: registration by ops, identification at a kiosk tap.
public protocol CardRepository: Sendable {
    /// Registers the card to `userID`; `card_already_registered` when the card belongs to someone already.
    /// `audit` (when given, here and below) is recorded in the same transaction.
    func register(
        _ registration: CardRegistration, identifier: CardIdentifier,
        audit: AuditEntry?
    ) async throws -> CardRegistration
    /// The card's registration, or `card_not_registered`.
    func identify(technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration
    /// A one-time code with which the user registers a card of their own at a kiosk, until `expiresAt`.
    func createEnrolment(userID: String, displayName: String?, expiresAt: Date, audit: AuditEntry?) async throws
        -> String
    /// Registers the card to the user a one-time code was made for, and spends the code;
    /// `enrolment_code_invalid` when the code is unknown, spent or expired.
    func enrol(code: String, technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration
    /// The cards registered to `userID`, oldest first.
    func cards(userID: String) async throws -> [RegisteredCard]
    /// Removes one of the user's cards; `card_not_registered` when the user has no card with that id.
    func removeCard(userID: String, cardID: String, audit: AuditEntry?) async throws
}

extension CardRepository {
    public func register(_ registration: CardRegistration, identifier: CardIdentifier) async throws -> CardRegistration
    {
        try await register(registration, identifier: identifier, audit: nil)
    }

    public func createEnrolment(userID: String, displayName: String?, expiresAt: Date) async throws -> String {
        try await createEnrolment(userID: userID, displayName: displayName, expiresAt: expiresAt, audit: nil)
    }
}
