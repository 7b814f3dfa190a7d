import CanteenCore
import Foundation
import PostgresNIO

extension PostgresOrderStore {
    /// The end of a batch in one statement: takes the feed positions of its tickets (the
    /// transaction's last lock: the row stays locked until commit, which orders commits by
    /// position), writes the tickets at consecutive positions and each new order's
    /// `order.placed` event at its last ticket's position; returns the position it added to their
    /// sequences and the backend that runs it (its commit's notification names that backend:
    /// `OwnCommits`). Prepared: every batch runs it.
    struct WriteTickets: FixedStatement {
        static let sql = WriteTickets(tickets: [], events: []).query.sql

        /// The tickets to write, their sequences counted from 1 within the batch (the statement
        /// adds the feed's position before the first); a held ticket has its `fireAt`.
        let tickets: [Ticket]
        /// The `order.placed` events, their sequences counted the same way.
        let events: [OrderEvent]

        // Arrays carry no NULL element here: an optional column is a value and a flag.
        var query: PostgresQuery {
            let count = Int64(tickets.count)
            return """
                WITH taken AS (
                    UPDATE feedSequence SET value = value + \(count) WHERE id = 1 RETURNING value - \(count) AS before
                ), written AS (
                    INSERT INTO ticket (id, orderId, cafeId, station, status, sequence, createdAt, updatedAt, prepSeconds,
                        fireAt, firedAt)
                    SELECT t.id, t.orderId, t.cafeId, t.station, t.status, taken.before + t.sequence, t.createdAt,
                        t.createdAt, CASE WHEN t.timed THEN t.prepSeconds END, CASE WHEN t.held THEN t.fireAt END,
                        CASE WHEN t.held THEN NULL ELSE t.createdAt END
                    FROM taken, unnest(\(tickets.map(\.id))::text[], \(tickets.map(\.orderID))::text[],
                        \(tickets.map(\.cafeID))::text[], \(tickets.map(\.station))::text[],
                        \(tickets.map(\.status.rawValue))::text[], \(tickets.map(\.sequence))::bigint[],
                        \(tickets.map(\.createdAt))::timestamptz[],
                        \(tickets.map { Int64($0.prepSeconds ?? 0) })::bigint[], \(tickets.map { $0.prepSeconds != nil })::boolean[],
                        \(tickets.map { $0.fireAt ?? $0.createdAt })::timestamptz[], \(tickets.map { $0.fireAt != nil })::boolean[])
                        AS t(id, orderId, cafeId, station, status, sequence, createdAt, prepSeconds, timed, fireAt, held)
                ), placed AS (
                    INSERT INTO orderEvent (sequence, id, orderId, cafeId, type, previousSequence, tickets, createdAt)
                    SELECT taken.before + e.sequence, e.id, e.orderId, e.cafeId, \(OrderEventType.placed.rawValue), NULL, NULL,
                        e.createdAt
                    FROM taken, unnest(\(events.map(\.id))::text[], \(events.map(\.orderID))::text[],
                        \(events.map(\.cafeID))::text[], \(events.map(\.createdAt))::timestamptz[],
                        \(events.map(\.sequence))::bigint[]) AS e(id, orderId, cafeId, createdAt, sequence)
                )
                SELECT before, pg_backend_pid() FROM taken
                """
        }
    }
}
