import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL audit log: the stores write entries inside the transactions of their changes
/// (`write`), and this reads them back, newest first.
public final class PostgresAuditStore: AuditRepository {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Writes `entry` inside the caller's transaction (nothing when it is nil).
    static func write(_ entry: AuditEntry?, _ connection: PostgresConnection, logger: Logger) async throws {
        guard let entry else { return }
        let actor = entry.actor
        try await connection.run(
            """
            INSERT INTO auditEntry (at, tokenId, tokenName, role, userId, action, targetKind, targetId, cafeId, changes)
            VALUES (\(entry.at), \(actor.tokenID), \(actor.tokenName), \(actor.role), \(actor.userID), \(entry.action),
                \(entry.targetKind), \(entry.targetID), \(entry.cafeID), \(AuditChange.storedText(entry.changes)))
            """, logger: logger)
    }

    /// Records `entry` (when there is one) as changing `before` into `after`, at `now`.
    static func record(
        _ entry: AuditEntry?, before: JSONValue?, after: JSONValue?, at now: Date,
        _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await write(entry?.recording(before: before, after: after, at: now), connection, logger: logger)
    }

    public func auditEntries(_ query: AuditQuery) async throws -> AuditPage {
        let limit = query.limit
        return try await database.withConnection { connection in
            // NULL parameters switch their condition off.
            let rows = try await connection.rows(
                """
                SELECT id, at, tokenId, tokenName, role, userId, action, targetKind, targetId, cafeId, changes
                FROM auditEntry
                WHERE (\(query.cafeID)::text IS NULL OR cafeId = \(query.cafeID))
                    AND (\(query.from)::timestamptz IS NULL OR at >= \(query.from))
                    AND (\(query.to)::timestamptz IS NULL OR at < \(query.to))
                    AND (\(query.after)::bigint IS NULL OR id < \(query.after))
                ORDER BY id DESC LIMIT \(limit + 1)
                """, logger: self.database.logger)
            let entries = try rows.prefix(limit).map { row in
                let (id, at, tokenID, tokenName, role, userID, action, kind, target, cafeID, changes) =
                    try StoredColumns.decode(
                        row, table: "auditEntry",
                        (
                            Int64, Date, String?, String?, String, String?, String, String, String,
                            String?, String
                        ).self)
                return AuditEntry(
                    id: id, at: at,
                    actor: AuditActor(tokenID: tokenID, tokenName: tokenName, role: role, userID: userID),
                    action: action, targetKind: kind, targetID: target, cafeID: cafeID,
                    changes: try AuditChange.stored(changes, entryID: id))
            }
            return AuditPage(entries: entries, next: rows.count > limit ? entries.last?.id : nil)
        }
    }
}
