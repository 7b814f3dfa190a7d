import CanteenCore
import Foundation

extension RegisteredCard {
    /// A card as both stores keep it (the `card` table); a technology Canteen does not know is
    /// an error naming the card, never a default.
    public static func stored(
        identifierHash hash: String, technology name: String, userID: String, displayName: String?,
        createdAt: Date
    ) throws -> RegisteredCard {
        let id = RegisteredCard.id(identifierHash: hash)
        guard let technology = CardTechnology(rawValue: name) else {
            throw StoredRow.invalid(table: "card", id: id, "'\(name)' is not a card technology")
        }
        return RegisteredCard(
            id: id, registration: CardRegistration(userID: userID, displayName: displayName, technology: technology),
            createdAt: createdAt)
    }
}
