import CanteenCore
import CanteenJSON
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `PreferencesRepository`: one JSON document per user, one
/// row per site default, as in the SQLite store.
///
/// A user write locks the user's row (creating it first when missing), so of concurrent writers
/// holding the same version, on any server, exactly one succeeds; café ids are checked against
/// the cafés at that moment, kept from being deleted until the write commits.
public final class PostgresPreferencesStore: PreferencesRepository {
    let database: PostgresDatabase
    private let clock: @Sendable () -> Date

    public init(database: PostgresDatabase, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = clock
    }

    /// Serialises site-default writes across servers (transaction-scoped): "CANTSITE".
    private static let siteLock: Int64 = 0x43_41_4E_54_53_49_54_45

    // MARK: - Reads

    public func document(userID: String) async throws -> PreferenceDocument {
        try await database.withConnection { connection in
            try await Self.fetchDocument(connection, userID: userID, lock: false, logger: self.database.logger)
        }
    }

    public func searchList(userID: String) async throws -> PreferenceSearchList {
        try await database.withConnection { connection in
            let logger = self.database.logger
            return PreferenceSearchList(
                user: try await Self.fetchDocument(connection, userID: userID, lock: false, logger: logger),
                site: try await Self.fetchSiteDefaults(connection, logger: logger))
        }
    }

    public func siteDefaults() async throws -> [String: JSONValue] {
        try await database.withConnection { connection in
            try await Self.fetchSiteDefaults(connection, logger: self.database.logger)
        }
    }

    static func fetchDocument(
        _ connection: PostgresConnection, userID: String, lock: Bool,
        logger: Logger
    ) async throws -> PreferenceDocument {
        let query: PostgresQuery =
            lock
            ? "SELECT document, version FROM userPreferences WHERE userId = \(userID) FOR UPDATE"
            : "SELECT document, version FROM userPreferences WHERE userId = \(userID)"
        guard let row = try await connection.firstRow(query, logger: logger) else { return PreferenceDocument() }
        let (document, version) = try StoredColumns.decode(row, table: "userPreferences", (String, Int64).self)
        guard let values = try decode(document).objectValue else {
            throw corrupt("the stored preferences of '\(userID)' are not a JSON object")
        }
        return PreferenceDocument(values: values, version: version)
    }

    static func fetchSiteDefaults(_ connection: PostgresConnection, logger: Logger) async throws -> [String: JSONValue]
    {
        var values: [String: JSONValue] = [:]
        for row in try await connection.rows("SELECT key, value FROM sitePreferences", logger: logger) {
            let (key, value) = try StoredColumns.decode(row, table: "sitePreferences", (String, String).self)
            values[key] = try decode(value)
        }
        return values
    }

    // MARK: - User writes

    public func update(
        userID: String, changes: [String: PreferenceChange],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument {
        let now = clock()
        return try await database.transaction { connection in
            let logger = self.database.logger
            let current = try await Self.lockedCurrent(
                connection, userID: userID, condition: condition, now: now, logger: logger)
            let cafes = try await Self.lockedCafeIDs(connection, logger: logger)
            let values = try current.applying(changes, cafeExists: { cafes.contains($0) })
            return try await Self.save(
                connection, userID: userID, values: values, after: current, now: now, logger: logger)
        }
    }

    public func replace(
        userID: String, values: [String: JSONValue],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument {
        let now = clock()
        return try await database.transaction { connection in
            let logger = self.database.logger
            let current = try await Self.lockedCurrent(
                connection, userID: userID, condition: condition, now: now, logger: logger)
            let cafes = try await Self.lockedCafeIDs(connection, logger: logger)
            let validated = try PreferenceDocument.validated(.object(values), cafeExists: { cafes.contains($0) })
            return try await Self.save(
                connection, userID: userID, values: validated, after: current, now: now, logger: logger)
        }
    }

    /// The current document, its row locked (an empty row is created first and vanishes with a
    /// rolled-back write), once `condition` holds for it (412 `version_mismatch` otherwise).
    private static func lockedCurrent(
        _ connection: PostgresConnection, userID: String, condition: VersionPrecondition?,
        now: Date, logger: Logger
    ) async throws -> PreferenceDocument {
        try await connection.run(
            """
            INSERT INTO userPreferences (userId, document, version, updatedAt) VALUES (\(userID), '{}', 0, \(now))
            ON CONFLICT (userId) DO NOTHING
            """, logger: logger)
        let current = try await fetchDocument(connection, userID: userID, lock: true, logger: logger)
        if let condition, !condition.isSatisfied(by: current.version) {
            throw VersionPrecondition.mismatch(current: current.version)
        }
        return current
    }

    /// Every café id, locked against deletion until the transaction ends.
    private static func lockedCafeIDs(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        Set(
            try await connection.rows("SELECT id FROM cafe FOR KEY SHARE", logger: logger).map {
                try StoredColumns.decode($0, table: "cafe", String.self)
            })
    }

    /// Writes the values as the next version. The row stays when the document empties, so a
    /// version is never handed out twice.
    private static func save(
        _ connection: PostgresConnection, userID: String, values: [String: JSONValue],
        after current: PreferenceDocument, now: Date, logger: Logger
    ) async throws -> PreferenceDocument {
        let document = PreferenceDocument(values: values, version: current.version + 1)
        try await connection.run(
            """
            UPDATE userPreferences SET document = \(String(decoding: document.encoded(), as: UTF8.self)),
                version = \(document.version), updatedAt = \(now)
            WHERE userId = \(userID)
            """, logger: logger)
        return document
    }

    // MARK: - Site writes

    public func setSiteDefault(key: String, value: JSONValue, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.transaction { connection in
            let logger = self.database.logger
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.siteLock))", logger: logger)
            let values = try await Self.fetchSiteDefaults(connection, logger: logger)
            let current = PreferenceDocument(values: values)
            let cafes = try await Self.lockedCafeIDs(connection, logger: logger)
            _ = try current.applying([key: .set(value)], cafeExists: { cafes.contains($0) })
            try await connection.run(
                """
                INSERT INTO sitePreferences (key, value, updatedAt)
                VALUES (\(key), \(String(decoding: value.encoded(), as: UTF8.self)), \(now))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt
                """, logger: logger)
            try await PostgresAuditStore.record(
                audit, before: values[key].map { ["value": $0] }, after: ["value": value],
                at: now, connection, logger: logger)
        }
    }

    public func removeSiteDefault(key: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.transaction { connection in
            let logger = self.database.logger
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.siteLock))", logger: logger)
            let before = try await Self.fetchSiteDefaults(connection, logger: logger)[key]
            guard
                try await connection.firstRow(
                    "DELETE FROM sitePreferences WHERE key = \(key) RETURNING key",
                    logger: logger) != nil
            else {
                throw PreferenceKey.notFound(key)
            }
            try await PostgresAuditStore.record(
                audit, before: before.map { ["value": $0] }, after: nil, at: now,
                connection, logger: logger)
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
