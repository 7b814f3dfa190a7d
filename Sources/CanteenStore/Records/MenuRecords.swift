import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// A row of `dayPart`.
struct DayPartRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "dayPart"
    var cafeId: String
    var id: String
    var position: Int
    var names: LocalizedText
    var start: String
    var end: String
}

/// A row of `menuCategory`.
struct MenuCategoryRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "menuCategory"
    var cafeId: String
    var id: String
    var position: Int
    var names: LocalizedText
}

/// A row of `menuItem`; the price is integer minor units of the café's currency.
struct MenuItemRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "menuItem"
    var cafeId: String
    var id: String
    var position: Int
    var categoryId: String
    var names: LocalizedText
    var descriptions: LocalizedText
    var price: Int64
    var station: String
    var allergens: [String]
    var dayParts: [String]
    var prepSeconds: Int?
    var dailyQuantity: Int?
}

/// A row of `modifierGroup`.
struct ModifierGroupRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "modifierGroup"
    var cafeId: String
    var itemId: String
    var id: String
    var position: Int
    var names: LocalizedText
    var minSelections: Int
    var maxSelections: Int
}

/// A row of `modifierOption`; the delta is integer minor units.
struct ModifierOptionRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "modifierOption"
    var cafeId: String
    var itemId: String
    var groupId: String
    var id: String
    var position: Int
    var names: LocalizedText
    var priceDelta: Int64
}

/// A row of `soldOut`: an item marked sold out, optionally until an instant.
struct SoldOutRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "soldOut"
    var cafeId: String
    var itemId: String
    var until: Date?
    var markedAt: Date
}

/// A row of `beacon`: a registered iBeacon and the café it stands in.
struct BeaconRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "beacon"
    var uuid: String
    var major: Int
    var minor: Int
    var cafeId: String
    var label: String
    var measuredPower: Int
}

/// A row of `accessToken`: the secret is kept only as its SHA-256.
struct AccessTokenRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "accessToken"
    var id: String
    var name: String?
    var role: String
    var cafeId: String?
    /// The user a `user` token acts for (migration v7).
    var userId: String?
    var secretHash: Data
    var createdAt: Date
    var revokedAt: Date?

    /// The token; a role this version does not know is an error naming the row (never a guess).
    func token() throws -> AccessToken {
        guard let role = Role(rawValue: role) else {
            throw StoredRow.invalid(table: Self.databaseTableName, id: id, "'\(role)' is not a token role")
        }
        if role == .user, userId == nil {
            throw StoredRow.invalid(table: Self.databaseTableName, id: id, "a user token names no user")
        }
        return AccessToken(
            id: id, name: name, role: role, cafeID: cafeId, userID: userId, createdAt: createdAt,
            revokedAt: revokedAt)
    }
}
