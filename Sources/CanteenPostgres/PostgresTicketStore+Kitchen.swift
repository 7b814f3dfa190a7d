import CanteenCore
import Foundation
import PostgresNIO

/// The kitchen's timing on PostgreSQL: the queue ready times are estimated from, and the
/// firing of held tickets, exactly once across servers.
extension PostgresTicketStore: KitchenRepository {
    public func kitchenLoad(cafeID: String) async throws -> KitchenLoad {
        let now = clock()
        return try await database.withConnection { connection in
            try await Self.kitchenLoad(connection, cafeID: cafeID, now: now, logger: self.database.logger)
        }
    }

    /// The café's open tickets and those finished in the last hour, read on `connection`.
    static func kitchenLoad(
        _ connection: PostgresConnection, cafeID: String, now: Date,
        logger: Logger
    ) async throws -> KitchenLoad {
        var open: [OpenTicket] = []
        for row in try await connection.rows(
            """
            SELECT id, station, status, prepSeconds, fireAt, COALESCE(firedAt, createdAt), startedAt FROM ticket
            WHERE cafeId = \(cafeID) AND status IN ('held', 'new', 'preparing', 'ready')
                AND (status = 'held' OR COALESCE(firedAt, createdAt) >= \(now - KitchenLoad.horizon))
            """, logger: logger)
        {
            let (id, station, name, prep, fireAt, firedAt, startedAt) = try StoredColumns.decode(
                row, table: "ticket", (String, String, String, Int?, Date?, Date, Date?).self)
            guard let status = TicketStatus(rawValue: name) else {
                throw StoredRow.invalid(table: "ticket", id: id, "'\(name)' is not a ticket status")
            }
            open.append(
                OpenTicket(
                    station: station, status: status, prepSeconds: prep,
                    availableAt: status == .held ? fireAt ?? now : firedAt, startedAt: startedAt,
                    wasHeld: fireAt != nil))
        }
        var finished: [FinishedTicket] = []
        for row in try await connection.rows(
            """
            SELECT id, station, prepSeconds, COALESCE(firedAt, createdAt), startedAt, finishedAt, fireAt FROM ticket
            WHERE cafeId = \(cafeID) AND finishedAt >= \(now - KitchenLoad.history)
            """, logger: logger)
        {
            let (_, station, prep, firedAt, startedAt, finishedAt, fireAt) = try StoredColumns.decode(
                row, table: "ticket", (String, String, Int?, Date, Date?, Date, Date?).self)
            finished.append(
                FinishedTicket(
                    station: station, prepSeconds: prep, firedAt: firedAt, startedAt: startedAt,
                    finishedAt: finishedAt, wasHeld: fireAt != nil))
        }
        return KitchenLoad(now: now, open: open, finished: finished)
    }

    /// The due held tickets are locked with `SKIP LOCKED`: servers firing at the same time each
    /// take others, none waits, and a row locked is re-checked to be still held and due
    /// (READ COMMITTED re-reads it), so each ticket fires once. Ticket locks come before the
    /// feed's row, as in every ticket-writing transaction.
    public func fireDueTickets(limit: Int) async throws -> FiringRound {
        let now = clock()
        // A look first: a transaction only when a ticket is due.
        let due = try await database.withConnection { connection in
            try await Self.nextFireAt(connection, logger: self.database.logger)
        }
        guard let due, due <= now else { return FiringRound(fired: [], nextFireAt: due) }
        let round = try await database.transaction { connection -> FiringRound in
            let logger = self.database.logger
            let due = try await connection.rows(
                """
                \(unescaped: OrderRows.selectTicket) WHERE status = 'held' AND fireAt <= \(now)
                ORDER BY fireAt, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """, logger: logger
            ).map(OrderRows.ticket)
            var fired: [Ticket] = []
            if !due.isEmpty {
                var sequence = try await Self.takeSequences(due.count, connection, logger: logger)
                for stored in due {
                    // Held and new both leave the order placed (or preparing): firing never
                    // changes the order's status, so it writes no order event.
                    var ticket = try stored.moved(to: .new, at: now)
                    ticket.sequence = sequence
                    sequence += 1
                    try await OrderRows.update(ticket, connection, logger: logger)
                    fired.append(ticket)
                }
            }
            return FiringRound(fired: fired, nextFireAt: try await Self.nextFireAt(connection, logger: logger))
        }
        var latest: [String: Int64] = [:]
        for ticket in round.fired { latest[ticket.cafeID] = max(latest[ticket.cafeID] ?? 0, ticket.sequence) }
        published(latest)
        return round
    }

    /// The earliest fire time of a held ticket, or nil.
    static func nextFireAt(_ connection: PostgresConnection, logger: Logger) async throws -> Date? {
        try await connection.scalar(
            "SELECT MIN(fireAt) FROM ticket WHERE status = 'held'", table: "ticket",
            as: Date.self, logger: logger)
    }
}
