import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import GRDB

/// The SQLite audit log: the stores write entries inside the transactions of their changes
/// (`write`), and this reads them back, newest first.
public final class AuditStore: AuditRepository {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Writes `entry` inside the caller's transaction (nothing when it is nil: a change made
    /// by the command line or a test, not through the API).
    static func write(_ entry: AuditEntry?, _ db: Database) throws {
        guard let entry else { return }
        try db.execute(
            sql: """
                INSERT INTO auditEntry (at, tokenId, tokenName, role, userId, action, targetKind, targetId, cafeId, changes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                StoredTimestamp.text(entry.at), entry.actor.tokenID, entry.actor.tokenName, entry.actor.role,
                entry.actor.userID, entry.action, entry.targetKind, entry.targetID, entry.cafeID,
                AuditChange.storedText(entry.changes),
            ])
    }

    /// Records `entry` (when there is one) as changing `before` into `after`, at `now`.
    static func record(_ entry: AuditEntry?, before: JSONValue?, after: JSONValue?, at now: Date, _ db: Database) throws
    {
        try write(entry?.recording(before: before, after: after, at: now), db)
    }

    public func auditEntries(_ query: AuditQuery) async throws -> AuditPage {
        try await database.writer.read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            if let cafeID = query.cafeID {
                conditions.append("cafeId = ?")
                arguments.append(cafeID)
            }
            if let from = query.from {
                conditions.append("at >= ?")
                arguments.append(StoredTimestamp.text(from))
            }
            if let to = query.to {
                conditions.append("at < ?")
                arguments.append(StoredTimestamp.text(to))
            }
            if let after = query.after {
                conditions.append("id < ?")
                arguments.append(after)
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, tokenId, tokenName, role, userId, action, targetKind, targetId, cafeId, changes
                    FROM auditEntry \(filter) ORDER BY id DESC LIMIT ?
                    """, arguments: StatementArguments(arguments + [query.limit + 1]))
            let entries = try rows.prefix(query.limit).map { row in
                let id: Int64 = row["id"]
                return AuditEntry(
                    id: id, at: row["at"],
                    actor: AuditActor(
                        tokenID: row["tokenId"], tokenName: row["tokenName"], role: row["role"],
                        userID: row["userId"]),
                    action: row["action"], targetKind: row["targetKind"], targetID: row["targetId"],
                    cafeID: row["cafeId"],
                    changes: try AuditChange.stored(row["changes"], entryID: id))
            }
            return AuditPage(entries: entries, next: rows.count > query.limit ? entries.last?.id : nil)
        }
    }
}
