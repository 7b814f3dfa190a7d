import CanteenCore
import Foundation
import PostgresNIO

extension PostgresOrderStore {
    /// The end of a batch in one statement: takes the feed positions of its tickets (the
    /// transaction's last lock: the row stays locked until commit, which orders commits by
    /// position), writes the tickets at consecutive positions and each new order's
    /// `order.placed` event at its last ticket's position; returns the position before the first
    /// ticket's. Prepared: every batch runs it.
    struct WriteTickets: FixedStatement {
        static let sql = WriteTickets(tickets: [], events: []).query.sql

        /// A ticket to write; its position is its place in `tickets`, counted from 1.
        struct TicketRow {
            let id: String
            let orderID: String
            let cafeID: String
            let station: String
            let status: TicketStatus
            let createdAt: Date
            let prepSeconds: Int?
            /// When a held ticket fires (nil: fired as it is written).
            let fireAt: Date?
        }

        /// An `order.placed` event to write at its order's last ticket's position (counted from 1).
        struct PlacedEvent {
            let id: String
            let orderID: String
            let cafeID: String
            let createdAt: Date
            let position: Int64
        }

        let tickets: [TicketRow]
        let events: [PlacedEvent]

        // Arrays carry no NULL element here: an optional column is a value and a flag.
        var query: PostgresQuery {
            let count = Int64(tickets.count)
            return """
                WITH taken AS (
                    UPDATE feedSequence SET value = value + \(count) WHERE id = 1 RETURNING value - \(count) AS before
                ), written AS (
                    INSERT INTO ticket (id, orderId, cafeId, station, status, sequence, createdAt, updatedAt, prepSeconds,
                        fireAt, firedAt)
                    SELECT t.id, t.orderId, t.cafeId, t.station, t.status, taken.before + t.position, t.createdAt,
                        t.createdAt, CASE WHEN t.timed THEN t.prepSeconds END, CASE WHEN t.held THEN t.fireAt END,
                        CASE WHEN t.held THEN NULL ELSE t.createdAt END
                    FROM taken, unnest(\(tickets.map(\.id))::text[], \(tickets.map(\.orderID))::text[],
                        \(tickets.map(\.cafeID))::text[], \(tickets.map(\.station))::text[],
                        \(tickets.map(\.status.rawValue))::text[], \(tickets.map(\.createdAt))::timestamptz[],
                        \(tickets.map { Int64($0.prepSeconds ?? 0) })::bigint[], \(tickets.map { $0.prepSeconds != nil })::boolean[],
                        \(tickets.map { $0.fireAt ?? $0.createdAt })::timestamptz[], \(tickets.map { $0.fireAt != nil })::boolean[])
                        WITH ORDINALITY AS t(id, orderId, cafeId, station, status, createdAt, prepSeconds, timed, fireAt, held,
                            position)
                ), placed AS (
                    INSERT INTO orderEvent (sequence, id, orderId, cafeId, type, previousSequence, tickets, createdAt)
                    SELECT taken.before + e.position, e.id, e.orderId, e.cafeId, \(OrderEventType.placed.rawValue), NULL, NULL,
                        e.createdAt
                    FROM taken, unnest(\(events.map(\.id))::text[], \(events.map(\.orderID))::text[],
                        \(events.map(\.cafeID))::text[], \(events.map(\.createdAt))::timestamptz[],
                        \(events.map(\.position))::bigint[]) AS e(id, orderId, cafeId, createdAt, position)
                )
                SELECT before FROM taken
                """
        }
    }
}
