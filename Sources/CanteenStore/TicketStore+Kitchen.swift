import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// The kitchen's timing on SQLite: the queue ready times are estimated from, and the firing
/// of held tickets.
extension TicketStore: KitchenRepository {
    public func kitchenLoad(cafeID: String) async throws -> KitchenLoad {
        let now = clock()
        return try await database.writer.read { db in try Self.kitchenLoad(db, cafeID: cafeID, now: now) }
    }

    /// The café's open tickets and those finished in the last hour, read in `db`.
    static func kitchenLoad(_ db: Database, cafeID: String, now: Date) throws -> KitchenLoad {
        let open = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, station, status, prepSeconds, fireAt, firedAt, createdAt, startedAt FROM ticket
                    WHERE cafeId = ? AND \(Self.openPredicate)
                        AND (status = 'held' OR COALESCE(firedAt, createdAt) >= ?)
                    """), arguments: [cafeID, now - KitchenLoad.horizon]
        ).map { row -> OpenTicket in
            let name: String = row["status"]
            guard let status = TicketStatus(rawValue: name) else {
                throw StoredRow.invalid(table: "ticket", id: row["id"], "'\(name)' is not a ticket status")
            }
            let fired: Date? = row["firedAt"]
            let held: Date? = row["fireAt"]
            return OpenTicket(
                station: row["station"], status: status, prepSeconds: row["prepSeconds"],
                availableAt: status == .held ? held ?? now : fired ?? row["createdAt"],
                startedAt: row["startedAt"], wasHeld: held != nil)
        }
        let finished = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT station, prepSeconds, fireAt, firedAt, createdAt, startedAt, finishedAt FROM ticket
                    WHERE cafeId = ? AND finishedAt >= ?
                    """), arguments: [cafeID, now - KitchenLoad.history]
        ).map { row in
            let held: Date? = row["fireAt"]
            return FinishedTicket(
                station: row["station"], prepSeconds: row["prepSeconds"],
                firedAt: row["firedAt"] ?? row["createdAt"], startedAt: row["startedAt"],
                finishedAt: row["finishedAt"], wasHeld: held != nil)
        }
        return KitchenLoad(now: now, open: open, finished: finished)
    }

    /// A look first (a read): the writer is taken only when a ticket is due.
    public func fireDueTickets(limit: Int) async throws -> FiringRound {
        let now = clock()
        let due = try await database.writer.read { db in try Self.nextFireAt(db) }
        guard let due, due <= now else { return FiringRound(fired: [], nextFireAt: due) }
        let round = try await database.writer.write { db -> FiringRound in
            let due = try TicketRecord.filter(sql: "status = 'held' AND fireAt <= ?", arguments: [now])
                .order(Column("fireAt"), Column("id")).limit(limit).fetchAllNamingRows(db)
            var fired: [Ticket] = []
            for stored in due {
                // Held and new both leave the order placed (or preparing): firing never changes the
                // order's status, so it writes no order event.
                var record = TicketRecord(try stored.ticket().moved(to: .new, at: now))
                record.sequence = try Self.nextSequence(db)
                try record.update(db)
                fired.append(try record.ticket())
            }
            return FiringRound(fired: fired, nextFireAt: try Self.nextFireAt(db))
        }
        var latest: [String: Int64] = [:]
        for ticket in round.fired { latest[ticket.cafeID] = max(latest[ticket.cafeID] ?? 0, ticket.sequence) }
        published(latest)
        return round
    }

    /// The earliest fire time of a held ticket, or nil.
    static func nextFireAt(_ db: Database) throws -> Date? {
        try Date.fetchOne(db.cachedStatement(sql: "SELECT MIN(fireAt) FROM ticket WHERE status = 'held'"))
    }
}
