import CanteenCore
import CanteenPersistence
import Foundation
import GRDB
import Synchronization

/// The SQLite implementation of `OrderEventRepository`, and the writer of order events.
///
/// An event is written by the transaction that changed the order's status (placing it, moving
/// one of its tickets, cancelling it), so it exists if and only if that change committed. Its
/// sequence is the feed sequence of that change. Observers hear of the events of this process
/// from the writer's queue right after the commit, in commit order.
public final class OrderEventStore: OrderEventRepository {
    let database: AppDatabase
    private let ids: RandomID
    private let observers = Mutex<[@Sendable ([OrderEvent]) -> Void]>([])

    public init(database: AppDatabase, ids: RandomID = RandomID()) {
        self.database = database
        self.ids = ids
    }

    // MARK: - Writing (inside the caller's transaction)

    /// Writes the event of an order reaching a status. `ticketStatuses` nil: just placed.
    func insert(
        _ db: Database, orderID: String, cafeID: String, type: OrderEventType, sequence: Int64,
        previousSequence: Int64?, ticketStatuses: [String: TicketStatus]?, at instant: Date
    ) throws -> OrderEvent {
        let event = OrderEvent(
            id: ids.timeOrdered("evt", at: instant), sequence: sequence,
            previousSequence: previousSequence, orderID: orderID, cafeID: cafeID, type: type,
            ticketStatuses: ticketStatuses, createdAt: instant)
        var statement = try BoundStatement(
            db,
            sql: """
                INSERT INTO orderEvent (sequence, id, orderId, cafeId, type, previousSequence, tickets, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        statement.bind(sequence)
        statement.bind(event.id)
        statement.bind(orderID)
        statement.bind(cafeID)
        statement.bind(type.rawValue)
        statement.bind(previousSequence)
        statement.bind(ticketStatuses.map { JSONText.object($0.mapValues(\.rawValue)) })
        statement.bind(StoredTimestamp.text(instant))
        try statement.run()
        return event
    }

    /// Writes the event of a change to an order's tickets when it changed the order's status.
    /// `before` are the statuses of every ticket of the order before the change, `after` every
    /// ticket after it; `sequence` is the change's feed sequence.
    func insertIfStatusChanged(
        _ db: Database, orderID: String, cafeID: String, before: [TicketStatus],
        after: [Ticket], sequence: Int64, at instant: Date
    ) throws -> OrderEvent? {
        let status = OrderStatus(tickets: after.map(\.status))
        guard status != OrderStatus(tickets: before) else { return nil }
        let previous = try Int64.fetchOne(
            db.cachedStatement(
                sql: "SELECT MAX(sequence) FROM orderEvent WHERE orderId = ?"), arguments: [orderID])
        return try insert(
            db, orderID: orderID, cafeID: cafeID, type: OrderEventType(reaching: status),
            sequence: sequence, previousSequence: previous,
            ticketStatuses: Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0.status) }),
            at: instant)
    }

    /// Tells the observers about `events` once the current transaction commits (nothing on rollback).
    func publishOnCommit(_ events: [OrderEvent], _ db: Database) {
        guard !events.isEmpty else { return }
        db.afterNextTransaction(onCommit: { [self] _ in
            for observer in observers.withLock({ $0 }) { observer(events) }
        })
    }

    public func onOrderEvents(_ observer: @escaping @Sendable ([OrderEvent]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    // MARK: - Reading

    public func followedOrder(id: String) async throws -> FollowedOrder? {
        try await database.writer.read { db in
            guard let record = try OrderRecord.fetchOne(db, key: id) else { return nil }
            let order = try OrderStore.fetchOrder(db, record: record)
            let version =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT MAX(sequence) FROM orderEvent WHERE orderId = ?"), arguments: [id]) ?? 0
            return FollowedOrder(order: order, version: version, placedBy: record.tokenId)
        }
    }

    public func events(orderID: String, after sequence: Int64) async throws -> [OrderEvent] {
        try await database.writer.read { db in
            try Self.events(
                db, sql: "SELECT * FROM orderEvent WHERE orderId = ? AND sequence > ? ORDER BY sequence",
                arguments: [orderID, sequence])
        }
    }

    public func events(after sequence: Int64, limit: Int) async throws -> [OrderEvent] {
        try await database.writer.read { db in
            try Self.events(
                db, sql: "SELECT * FROM orderEvent WHERE sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [sequence, limit])
        }
    }

    static func events(_ db: Database, sql: String, arguments: StatementArguments) throws -> [OrderEvent] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(event(from:))
    }

    /// An event from its row (with the columns of `orderEvent`); a value this version does not
    /// know is an error naming the row.
    static func event(from row: Row) throws -> OrderEvent {
        let id: String = row["id"]
        let typeName: String = row["type"]
        guard let type = OrderEventType(rawValue: typeName) else {
            throw StoredRow.invalid(table: "orderEvent", id: id, "'\(typeName)' is not an order event type")
        }
        let ticketStatuses = try OrderEvent.storedTicketStatuses(row["tickets"], eventID: id)
        return OrderEvent(
            id: id, sequence: row["sequence"], previousSequence: row["previousSequence"],
            orderID: row["orderId"], cafeID: row["cafeId"], type: type, ticketStatuses: ticketStatuses,
            createdAt: row["createdAt"])
    }
}
