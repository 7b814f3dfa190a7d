import CanteenCore
import CanteenPersistence
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL implementation of `TicketRepository`, with the feed rule of the SQLite store.
///
/// Every ticket change takes its sequence from the one row of `feedSequence`, updated as the
/// last write of its transaction. That row's lock is held until commit, so a second writer (on
/// any server) waits, then reads the first's committed value: changes commit in sequence order
/// and a reader of `sequence > cursor` can never skip one that commits later, which a
/// `SEQUENCE` (handed out at once, committed in any order) would allow. The price is that
/// ticket-writing commits are serial, as they are on SQLite's single writer; orders amortise it
/// by committing in batches.
///
/// Changes committed by other servers are announced (`NOTIFY`); on each hint, and after every
/// reconnection of the listener, the store re-reads the feed's head from its cursor and tells
/// its observers, so displays long-polling this server wake at once. This server's own batches
/// of orders are told at once and need no read (`OwnCommits`).
public final class PostgresTicketStore: TicketRepository {
    let database: PostgresDatabase
    let clock: @Sendable () -> Date
    /// Writes the event of a move that changes its order's status, in the move's transaction.
    private let events: PostgresOrderEventStore
    private let observers = Mutex<[@Sendable ([String: Int64]) -> Void]>([])
    /// The feed's position up to which this server's observers were told: read after a hint,
    /// or moved past this server's own batches.
    private let seen = FollowedPosition(0)

    public init(
        database: PostgresDatabase, events: PostgresOrderEventStore,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.events = events
        self.clock = clock
        database.follow(
            read: { [weak self] in await self?.followHint() },
            caughtUp: { [weak self] range in self?.seen.caughtUp(range) ?? true })
    }

    // MARK: - Changes

    public func onTicketChanges(_ observer: @escaping @Sendable ([String: Int64]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Tells the observers about committed changes (café → its latest sequence).
    func published(_ latest: [String: Int64]) {
        guard !latest.isEmpty else { return }
        for observer in observers.withLock({ $0 }) { observer(latest) }
    }

    /// Reads what changed since the last hint, from the database (the notification says nothing).
    private func followHint() async {
        do {
            let head = try await changes(after: seen.current ?? 0)
            seen.read(through: head.latest)
            published(head.cafes)
        } catch {
            database.logger.debug("reading the feed after a change notification failed: \(error)")
        }
    }

    public func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView {
        let now = clock()
        let (view, event) = try await database.transaction { connection -> (TicketView, OrderEvent?) in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    "\(unescaped: OrderRows.selectTicket) WHERE id = \(id)",
                    logger: logger)
            else {
                throw CanteenError.notFound(.ticket, id)
            }
            // The order's tickets are locked in id order (as cancelling does, so the two never
            // deadlock): the order's status before and after the move is read from rows nobody
            // else changes meanwhile.
            let siblings = try await connection.rows(
                "\(unescaped: OrderRows.selectTicket) WHERE orderId = \(try OrderRows.ticket(row).orderID) ORDER BY id FOR UPDATE",
                logger: logger
            ).map(OrderRows.ticket)
            guard let stored = siblings.first(where: { $0.id == id }) else { throw CanteenError.notFound(.ticket, id) }
            let current = stored.status
            var ticket = try stored.moved(to: status, at: now)
            ticket.sequence = try await Self.takeSequences(1, connection, logger: logger)
            try await OrderRows.update(ticket, connection, logger: logger)
            let before = siblings.map { $0.id == ticket.id ? current : $0.status }
            let after = siblings.map { $0.id == ticket.id ? ticket : $0 }
            let event = try await self.events.insertIfStatusChanged(
                connection, orderID: ticket.orderID, cafeID: ticket.cafeID, before: before, after: after,
                sequence: ticket.sequence, at: now, logger: logger)
            return (try await OrderRows.views(connection, of: [ticket], logger: logger)[0], event)
        }
        published([view.ticket.cafeID: view.ticket.sequence])
        if let event { events.published([event]) }
        return view
    }

    // MARK: - Reading

    public func openTicketCount(cafeID: String) async throws -> Int {
        try await database.withConnection { connection -> Int in
            try await connection.scalar(
                """
                SELECT COUNT(*) FROM ticket WHERE cafeId = \(cafeID) AND status IN ('held', 'new', 'preparing', 'ready')
                """, table: "ticket", as: Int.self, logger: self.database.logger) ?? 0
        }
    }

    public func openTicketCounts(cafeID: String) async throws -> OpenTicketCounts {
        try await database.withConnection { connection in
            let logger = self.database.logger
            var counts = OpenTicketCounts(byStation: [:], orders: 0, oldestNotReady: nil)
            for row in try await connection.rows(
                """
                SELECT station, status, COUNT(*)::BIGINT FROM ticket
                WHERE cafeId = \(cafeID) AND status IN ('held', 'new', 'preparing', 'ready') GROUP BY station, status
                """, logger: logger)
            {
                let (station, status, tickets) = try StoredColumns.decode(
                    row, table: "ticket", (String, String, Int64).self)
                try counts.add(station: station, status: status, count: Int(tickets))
            }
            if let row = try await connection.firstRow(
                """
                SELECT COUNT(DISTINCT orderId)::BIGINT, MIN(CASE WHEN status <> 'ready' THEN createdAt END) FROM ticket
                WHERE cafeId = \(cafeID) AND status IN ('held', 'new', 'preparing', 'ready')
                """, logger: logger)
            {
                let (orders, oldest) = try StoredColumns.decode(row, table: "ticket", (Int64, Date?).self)
                counts.orders = Int(orders)
                counts.oldestNotReady = oldest
            }
            return counts
        }
    }

    public func ticket(id: String) async throws -> TicketView? {
        try await database.withConnection { connection in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    "\(unescaped: OrderRows.selectTicket) WHERE id = \(id)",
                    logger: logger)
            else { return nil }
            return try await OrderRows.views(connection, of: [try OrderRows.ticket(row)], logger: logger).first
        }
    }

    public func ticketChanges(
        cafeID: String, after cursor: Int64?, station: String?,
        limit: Int
    ) async throws -> TicketFeedPage {
        try await database.withConnection { connection in
            let logger = self.database.logger
            // One statement, one snapshot: the head and the page agree. Each filter is its own
            // statement text, so the (cafeId, sequence) index serves the cursor's range.
            var bindings = PostgresBindings()
            bindings.append(cafeID)
            var filter = "cafeId = $1"
            if let cursor {
                bindings.append(cursor)
                filter += " AND sequence > $\(bindings.count)"
            } else {
                bindings.append(TicketStatus.open.map(\.rawValue))
                filter += " AND status = ANY($\(bindings.count))"
            }
            if let station {
                bindings.append(station)
                filter += " AND station = $\(bindings.count)"
            }
            bindings.append(limit)
            let rows = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH head AS (SELECT value FROM feedSequence WHERE id = 1),
                        page AS (
                            SELECT id, orderId, cafeId, station, status, sequence, createdAt, updatedAt, prepSeconds, fireAt,
                                firedAt, startedAt, finishedAt
                            FROM ticket WHERE \(filter) ORDER BY sequence LIMIT $\(bindings.count)
                        )
                        SELECT page.id, page.orderId, page.cafeId, page.station, page.status, page.sequence, page.createdAt,
                            page.updatedAt, page.prepSeconds, page.fireAt, page.firedAt, page.startedAt, page.finishedAt,
                            head.value
                        FROM head LEFT JOIN page ON true ORDER BY page.sequence
                        """, binds: bindings), logger: logger)
            guard let first = rows.first else {
                throw StoredRow.invalid(table: "feedSequence", id: "1", "the row is missing")
            }
            let head = try StoredColumns.decode(
                first, table: "feedSequence",
                (
                    String?, String?, String?, String?, String?, Int64?, Date?, Date?, Int?, Date?, Date?, Date?, Date?,
                    Int64
                ).self
            ).13
            let tickets = try rows.compactMap { row -> Ticket? in
                let id = try StoredColumns.decode(row, table: "ticket", String?.self)
                return id == nil ? nil : try OrderRows.ticket(row)
            }
            let next: Int64
            if tickets.count == limit, let last = tickets.last {
                next = last.sequence
            } else {
                next = max(cursor ?? 0, head)
            }
            return TicketFeedPage(
                tickets: try await OrderRows.views(connection, of: tickets, logger: logger), cursor: next)
        }
    }

    public func changes(after sequence: Int64) async throws -> FeedHead {
        try await database.withConnection { connection in
            // Window by window of feed positions (`FeedWindow`), up to the head; each window is
            // one snapshot with the head.
            var after = sequence
            var cafes: [String: Int64] = [:]
            while true {
                let upTo = after + FeedWindow.positions
                let rows = try await connection.rows(
                    FeedChanges(after: after, upTo: upTo), logger: self.database.logger)
                var head: Int64 = 0
                for row in rows {
                    let (value, cafeID, latest) = try StoredColumns.decode(
                        row, table: "feedSequence", (Int64, String?, Int64?).self)
                    head = value
                    if let cafeID, let latest { cafes[cafeID] = latest }
                }
                guard upTo < head else { return FeedHead(latest: head, cafes: cafes) }
                after = upTo
            }
        }
    }

    /// The feed's head, and each café's latest change in the window of positions after `after`
    /// up to `upTo`, in one snapshot. Prepared: every server runs it after every commit.
    struct FeedChanges: FixedStatement {
        static let sql = FeedChanges(after: 0, upTo: 0).query.sql

        let after: Int64
        let upTo: Int64

        var query: PostgresQuery {
            """
            WITH head AS (SELECT value FROM feedSequence WHERE id = 1)
            SELECT head.value, changed.cafeId, changed.latest FROM head LEFT JOIN (
                SELECT cafeId, MAX(sequence) AS latest FROM ticket WHERE sequence > \(after) AND sequence <= \(upTo)
                GROUP BY cafeId
            ) AS changed ON true
            """
        }
    }

    // MARK: - Inside writing transactions

    /// Takes `count` consecutive feed positions; returns the first. Must be the transaction's
    /// last lock: the row stays locked until commit, which orders commits by sequence.
    static func takeSequences(_ count: Int, _ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        guard
            let row = try await connection.firstRow(
                "UPDATE feedSequence SET value = value + \(count) WHERE id = 1 RETURNING value", logger: logger)
        else {
            throw StoredRow.invalid(table: "feedSequence", id: "1", "the row is missing")
        }
        return try StoredColumns.decode(row, table: "feedSequence", Int64.self) - Int64(count) + 1
    }
}
