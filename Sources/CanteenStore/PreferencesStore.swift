import CanteenCore
import CanteenJSON
import Foundation
import GRDB

/// The SQLite implementation of `PreferencesRepository`: one JSON document per user, one row
/// per site default.
///
/// Every write runs in one transaction that reads the current version, checks `If-Match`,
/// validates (café ids against the `cafe` table at that moment) and writes, so of concurrent
/// writers holding the same version exactly one succeeds.
public final class PreferencesStore: PreferencesRepository {
    let database: AppDatabase
    private let clock: @Sendable () -> Date

    public init(database: AppDatabase, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = clock
    }

    // MARK: - Reads

    public func document(userID: String) async throws -> PreferenceDocument {
        try await database.writer.read { db in try Self.fetchDocument(db, userID: userID) }
    }

    public func searchList(userID: String) async throws -> PreferenceSearchList {
        try await database.writer.read { db in
            PreferenceSearchList(user: try Self.fetchDocument(db, userID: userID), site: try Self.fetchSiteDefaults(db))
        }
    }

    public func siteDefaults() async throws -> [String: JSONValue] {
        try await database.writer.read { db in try Self.fetchSiteDefaults(db) }
    }

    static func fetchDocument(_ db: Database, userID: String) throws -> PreferenceDocument {
        guard let record = try UserPreferencesRecord.filter(key: userID).fetchOneNamingRow(db) else {
            return PreferenceDocument()
        }
        guard let values = try decode(record.document).objectValue else {
            throw corrupt("the stored preferences of '\(userID)' are not a JSON object")
        }
        return PreferenceDocument(values: values, version: record.version)
    }

    static func fetchSiteDefaults(_ db: Database) throws -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for record in try SitePreferenceRecord.all().fetchAllNamingRows(db) {
            values[record.key] = try decode(record.value)
        }
        return values
    }

    // MARK: - User writes

    public func update(
        userID: String, changes: [String: PreferenceChange],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument {
        let now = clock()
        return try await database.writer.write { db in
            let current = try Self.fetchCurrent(db, userID: userID, condition: condition)
            let values = try current.applying(changes, cafeExists: { try CafeRecord.exists(db, key: $0) })
            return try Self.save(db, userID: userID, values: values, after: current, now: now)
        }
    }

    public func replace(
        userID: String, values: [String: JSONValue],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument {
        let now = clock()
        return try await database.writer.write { db in
            let current = try Self.fetchCurrent(db, userID: userID, condition: condition)
            let validated = try PreferenceDocument.validated(
                .object(values), cafeExists: { try CafeRecord.exists(db, key: $0) })
            return try Self.save(db, userID: userID, values: validated, after: current, now: now)
        }
    }

    /// The current document, once `condition` holds for it (412 `version_mismatch` otherwise).
    private static func fetchCurrent(
        _ db: Database, userID: String,
        condition: VersionPrecondition?
    ) throws -> PreferenceDocument {
        let current = try fetchDocument(db, userID: userID)
        if let condition, !condition.isSatisfied(by: current.version) {
            throw VersionPrecondition.mismatch(current: current.version)
        }
        return current
    }

    /// Writes the values as the next version. The row stays when the document empties, so a
    /// version is never handed out twice.
    private static func save(
        _ db: Database, userID: String, values: [String: JSONValue],
        after current: PreferenceDocument, now: Date
    ) throws -> PreferenceDocument {
        let document = PreferenceDocument(values: values, version: current.version + 1)
        try UserPreferencesRecord(
            userId: userID, document: String(decoding: document.encoded(), as: UTF8.self),
            version: document.version, updatedAt: now
        ).upsert(db)
        return document
    }

    // MARK: - Site writes

    public func setSiteDefault(key: String, value: JSONValue, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.writer.write { db in
            let values = try Self.fetchSiteDefaults(db)
            let current = PreferenceDocument(values: values)
            _ = try current.applying([key: .set(value)], cafeExists: { try CafeRecord.exists(db, key: $0) })
            try SitePreferenceRecord(
                key: key, value: String(decoding: value.encoded(), as: UTF8.self),
                updatedAt: now
            ).upsert(db)
            try AuditStore.record(
                audit, before: values[key].map { ["value": $0] }, after: ["value": value], at: now, db)
        }
    }

    public func removeSiteDefault(key: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.writer.write { db in
            let before = try Self.fetchSiteDefaults(db)[key]
            guard try SitePreferenceRecord.deleteOne(db, key: key) else {
                throw PreferenceKey.notFound(key)
            }
            try AuditStore.record(audit, before: before.map { ["value": $0] }, after: nil, at: now, db)
        }
    }

    // MARK: - Stored JSON

    private static func decode(_ text: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(Data(text.utf8))
        } catch {
            throw corrupt("a stored preference is not valid JSON")
        }
    }

    private static func corrupt(_ message: String) -> CanteenError {
        CanteenError(.internal, code: .internalError, message: message)
    }
}
