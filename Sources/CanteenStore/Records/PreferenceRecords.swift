import Foundation
import GRDB

/// A row of `userPreferences`: one user's own values as canonical JSON, and their version.
struct UserPreferencesRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "userPreferences"

    var userId: String
    /// A JSON object, keys sorted (`PreferenceDocument.encoded()`).
    var document: String
    var version: Int64
    var updatedAt: Date
}

/// A row of `sitePreferences`: one site default, its value as JSON.
struct SitePreferenceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sitePreferences"

    var key: String
    var value: String
    var updatedAt: Date
}
