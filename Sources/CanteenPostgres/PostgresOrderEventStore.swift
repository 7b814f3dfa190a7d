import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO
import Synchronization

/// The PostgreSQL implementation of `OrderEventRepository`, and the writer of order events.
///
/// An event is written by the transaction that changed its order's status (placing, moving a
/// ticket, cancelling), and its sequence is that change's feed position, taken from
/// `feedSequence`'s row as the transaction's last lock: events commit in sequence order on
/// every server, the rule the kitchen feed's cursor relies on, so a reader of
/// `sequence > cursor` (a follower, the webhook outbox) never skips one.
///
/// Observers hear of this server's events right after commit, and of other servers' events on
/// their change notification (`tickets`: every event comes with a ticket change), read from
/// the last one seen, so a follower on this server wakes within a notification's delay.
public final class PostgresOrderEventStore: OrderEventRepository {
    let database: PostgresDatabase
    private let ids: RandomID
    private let observers = Mutex<[@Sendable ([OrderEvent]) -> Void]>([])
    /// The feed's position up to which this server's observers were told of the events: read
    /// after a hint, or moved past this server's own batches; nil until the first hint (which
    /// only reads the feed's head).
    private let seen = FollowedPosition(nil)

    public init(database: PostgresDatabase, ids: RandomID = RandomID()) {
        self.database = database
        self.ids = ids
        database.follow(
            read: { [weak self] in await self?.followHint() },
            caughtUp: { [weak self] range in self?.seen.caughtUp(range) ?? true })
    }

    // MARK: - Writing (inside the caller's transaction)

    static let columns = "sequence, id, orderId, cafeId, type, previousSequence, tickets, createdAt"

    /// Writes the event of an order reaching a status. `ticketStatuses` nil: just placed.
    func insert(
        _ connection: PostgresConnection, orderID: String, cafeID: String, type: OrderEventType, sequence: Int64,
        previousSequence: Int64?, ticketStatuses: [String: TicketStatus]?, at instant: Date,
        logger: Logger
    ) async throws -> OrderEvent {
        let event = OrderEvent(
            id: ids.timeOrdered("evt", at: instant), sequence: sequence,
            previousSequence: previousSequence, orderID: orderID, cafeID: cafeID, type: type,
            ticketStatuses: ticketStatuses, createdAt: instant)
        let tickets = try ticketStatuses.map { try StoredJSON.text($0.mapValues(\.rawValue)) }
        try await connection.run(
            """
            INSERT INTO orderEvent (sequence, id, orderId, cafeId, type, previousSequence, tickets, createdAt)
            VALUES (\(sequence), \(event.id), \(orderID), \(cafeID), \(type.rawValue), \(previousSequence), \(tickets),
                \(instant))
            """, logger: logger)
        return event
    }

    /// Writes the event of a change to an order's tickets when it changed the order's status.
    /// `before` are the statuses of every ticket of the order before the change, `after` every
    /// ticket after it; `sequence` is the change's feed position.
    func insertIfStatusChanged(
        _ connection: PostgresConnection, orderID: String, cafeID: String,
        before: [TicketStatus], after: [Ticket], sequence: Int64, at instant: Date,
        logger: Logger
    ) async throws -> OrderEvent? {
        let status = OrderStatus(tickets: after.map(\.status))
        guard status != OrderStatus(tickets: before) else { return nil }
        let previous = try await connection.scalar(
            "SELECT MAX(sequence) FROM orderEvent WHERE orderId = \(orderID)", table: "orderEvent", as: Int64.self,
            logger: logger)
        return try await insert(
            connection, orderID: orderID, cafeID: cafeID, type: OrderEventType(reaching: status),
            sequence: sequence, previousSequence: previous,
            ticketStatuses: Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0.status) }),
            at: instant, logger: logger)
    }

    /// Tells the observers about events this server committed.
    func published(_ events: [OrderEvent]) {
        guard !events.isEmpty else { return }
        for observer in observers.withLock({ $0 }) { observer(events) }
    }

    public func onOrderEvents(_ observer: @escaping @Sendable ([OrderEvent]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Events read at a time after a hint.
    static let followPage = 1000

    /// Reads the events committed since the last hint (by any server), page by page, and tells
    /// the observers; the first hint only learns where the feed stands.
    private func followHint() async {
        do {
            guard var after = seen.current else {
                let head = try await database.withConnection { connection -> Int64 in
                    try await connection.scalar(
                        "SELECT value FROM feedSequence WHERE id = 1", table: "feedSequence",
                        as: Int64.self, logger: self.database.logger) ?? 0
                }
                seen.read(through: head)
                return
            }
            while true {
                let page = try await self.page(after: after, limit: Self.followPage)
                seen.read(through: page.through)
                published(page.events)
                guard page.events.count == Self.followPage else { return }
                after = page.through
            }
        } catch {
            database.logger.debug("reading order events after a change notification failed: \(error)")
        }
    }

    // MARK: - Reading

    public func followedOrder(id: String) async throws -> FollowedOrder? {
        try await database.withConnection { connection in
            let logger = self.database.logger
            guard let order = try await OrderRows.fetchOrder(connection, id: id, logger: logger) else { return nil }
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT o.tokenId, (SELECT MAX(e.sequence) FROM orderEvent e WHERE e.orderId = o.id)
                    FROM customerOrder o WHERE o.id = \(id)
                    """, logger: logger)
            else { return nil }
            let (placedBy, version) = try StoredColumns.decode(row, table: "customerOrder", (String?, Int64?).self)
            return FollowedOrder(order: order, version: version ?? 0, placedBy: placedBy)
        }
    }

    public func events(orderID: String, after sequence: Int64) async throws -> [OrderEvent] {
        try await database.withConnection { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: Self.columns) FROM orderEvent WHERE orderId = \(orderID) AND sequence > \(sequence)
                ORDER BY sequence
                """, logger: self.database.logger
            ).map(Self.event)
        }
    }

    public func events(after sequence: Int64, limit: Int) async throws -> [OrderEvent] {
        try await page(after: sequence, limit: limit).events
    }

    /// Up to `limit` events after the feed position `sequence`, and the position they were read
    /// through: the feed's head when fewer than `limit` came, else the last one's.
    func page(after sequence: Int64, limit: Int) async throws -> (events: [OrderEvent], through: Int64) {
        try await database.withConnection { connection in
            // Window by window of feed positions (`FeedWindow`), up to the feed's head.
            var events: [OrderEvent] = []
            var after = sequence
            var head: Int64 = 0
            while events.count < limit {
                let upTo = after + FeedWindow.positions
                let rows = try await connection.rows(
                    EventWindow(after: after, upTo: upTo, limit: limit - events.count), logger: self.database.logger)
                for row in rows {
                    let (sequence, id, orderID, cafeID, typeName, previousSequence, tickets, createdAt, value) =
                        try StoredColumns.decode(
                            row, table: "orderEvent",
                            (Int64?, String?, String?, String?, String?, Int64?, String?, Date?, Int64).self)
                    head = value
                    guard let sequence, let id, let orderID, let cafeID, let typeName, let createdAt else { continue }
                    events.append(
                        try Self.event(
                            sequence: sequence, id: id, orderID: orderID, cafeID: cafeID, typeName: typeName,
                            previousSequence: previousSequence, tickets: tickets, createdAt: createdAt))
                }
                // A window that did not fill the page is read to its end.
                guard events.count < limit, upTo < head else { break }
                after = upTo
            }
            guard events.count == limit, let last = events.last?.sequence else { return (events, max(head, sequence)) }
            return (events, last)
        }
    }

    /// Up to `limit` events in the window of feed positions after `after` up to `upTo`, with the
    /// feed's head, in one snapshot. Prepared: every server runs it after every commit.
    struct EventWindow: FixedStatement {
        static let sql = EventWindow(after: 0, upTo: 0, limit: 0).query.sql

        let after: Int64
        let upTo: Int64
        let limit: Int

        var query: PostgresQuery {
            """
            WITH head AS (SELECT value FROM feedSequence WHERE id = 1)
            SELECT page.sequence, page.id, page.orderId, page.cafeId, page.type, page.previousSequence, page.tickets,
                page.createdAt, head.value
            FROM head LEFT JOIN (
                SELECT \(unescaped: PostgresOrderEventStore.columns) FROM orderEvent WHERE sequence > \(after) AND sequence <= \(upTo)
                ORDER BY sequence LIMIT \(limit)
            ) AS page ON true ORDER BY page.sequence
            """
        }
    }

    /// An event from a row of `columns` (first); a value this version does not know is an
    /// error naming the row.
    static func event(_ row: PostgresRow) throws -> OrderEvent {
        let (sequence, id, orderID, cafeID, typeName, previousSequence, tickets, createdAt) = try StoredColumns.decode(
            row, table: "orderEvent", (Int64, String, String, String, String, Int64?, String?, Date).self)
        return try event(
            sequence: sequence, id: id, orderID: orderID, cafeID: cafeID, typeName: typeName,
            previousSequence: previousSequence, tickets: tickets, createdAt: createdAt)
    }

    static func event(
        sequence: Int64, id: String, orderID: String, cafeID: String, typeName: String,
        previousSequence: Int64?, tickets: String?, createdAt: Date
    ) throws -> OrderEvent {
        guard let type = OrderEventType(rawValue: typeName) else {
            throw StoredRow.invalid(table: "orderEvent", id: id, "'\(typeName)' is not an order event type")
        }
        let ticketStatuses = try OrderEvent.storedTicketStatuses(tickets, eventID: id)
        return OrderEvent(
            id: id, sequence: sequence, previousSequence: previousSequence, orderID: orderID,
            cafeID: cafeID, type: type, ticketStatuses: ticketStatuses, createdAt: createdAt)
    }
}
