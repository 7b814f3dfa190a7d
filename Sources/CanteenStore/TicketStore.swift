import CanteenCore
import CanteenPersistence
import Foundation
import GRDB
import Synchronization

/// The SQLite implementation of `TicketRepository`.
///
/// Every ticket change takes the next value of `feedSequence` inside its write transaction.
/// SQLite has one writer at a time, across processes too, so changes commit in sequence order
/// and a reader of `sequence > cursor` can never skip one that commits later.
public final class TicketStore: TicketRepository {
    let database: AppDatabase
    let clock: @Sendable () -> Date
    /// Writes the event of a move that changes its order's status, in the move's transaction.
    private let events: OrderEventStore
    private let observers = Mutex<[@Sendable ([String: Int64]) -> Void]>([])

    public init(database: AppDatabase, events: OrderEventStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.events = events
        self.clock = clock
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

    public func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView {
        let now = clock()
        let view = try await database.writer.write { db -> TicketView in
            guard let stored = try TicketRecord.filter(key: id).fetchOneNamingRow(db)?.ticket() else {
                throw CanteenError.notFound(.ticket, id)
            }
            let current = stored.status
            var record = TicketRecord(try stored.moved(to: status, at: now))
            record.sequence = try Self.nextSequence(db)
            try record.update(db)
            let siblings = try TicketRecord.filter(Column("orderId") == record.orderId).fetchAll(db).map {
                try $0.ticket()
            }
            let before = siblings.map { $0.id == record.id ? current : $0.status }
            if let event = try events.insertIfStatusChanged(
                db, orderID: record.orderId, cafeID: record.cafeId,
                before: before, after: siblings, sequence: record.sequence,
                at: now)
            {
                events.publishOnCommit([event], db)
            }
            return try Self.views(db, of: [record])[0]
        }
        published([view.ticket.cafeID: view.ticket.sequence])
        return view
    }

    // MARK: - Reading

    public func ticket(id: String) async throws -> TicketView? {
        try await database.writer.read { db in
            try TicketRecord.filter(key: id).fetchOneNamingRow(db).map { try Self.views(db, of: [$0]) }?.first
        }
    }

    public func openTicketCount(cafeID: String) async throws -> Int {
        try await database.writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM ticket WHERE cafeId = ? AND \(Self.openPredicate)
                    """, arguments: [cafeID]) ?? 0
        }
    }

    public func openTicketCounts(cafeID: String) async throws -> OpenTicketCounts {
        try await database.writer.read { db in
            var counts = OpenTicketCounts(byStation: [:], orders: 0, oldestNotReady: nil)
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT station, status, COUNT(*) AS tickets FROM ticket
                    WHERE cafeId = ? AND \(Self.openPredicate) GROUP BY station, status
                    """, arguments: [cafeID])
            {
                try counts.add(station: row["station"], status: row["status"], count: row["tickets"])
            }
            let totals = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT orderId) AS orders, MIN(CASE WHEN status <> 'ready' THEN createdAt END) AS oldest
                    FROM ticket WHERE cafeId = ? AND \(Self.openPredicate)
                    """, arguments: [cafeID])
            counts.orders = totals?["orders"] ?? 0
            counts.oldestNotReady = totals?["oldest"]
            return counts
        }
    }

    public func ticketChanges(
        cafeID: String, after cursor: Int64?, station: String?,
        limit: Int
    ) async throws -> TicketFeedPage {
        try await database.writer.read { db in
            var request = TicketRecord.filter(Column("cafeId") == cafeID)
            if let station { request = request.filter(Column("station") == station) }
            if let cursor {
                request = request.filter(Column("sequence") > cursor)
            } else {
                request = request.filter(TicketStatus.open.map(\.rawValue).contains(Column("status")))
            }
            let records = try request.order(Column("sequence")).limit(limit).fetchAllNamingRows(db)
            let next: Int64
            if records.count == limit, let last = records.last {
                next = last.sequence
            } else {
                // Read in the same snapshot: every change up to here is in this page or before the cursor.
                next = max(cursor ?? 0, try Int64.fetchOne(db, sql: "SELECT value FROM feedSequence WHERE id = 1") ?? 0)
            }
            return TicketFeedPage(tickets: try Self.views(db, of: records), cursor: next)
        }
    }

    public func changes(after sequence: Int64) async throws -> FeedHead {
        try await database.writer.read { db in
            let latest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM feedSequence WHERE id = 1")) ?? 0
            guard latest > sequence else { return FeedHead(latest: latest, cafes: [:]) }
            // `sequence` is UNIQUE, so its index finds the few changes after the cursor.
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT cafeId, MAX(sequence) AS latest FROM ticket WHERE sequence > ? GROUP BY cafeId
                        """), arguments: [sequence])
            var cafes: [String: Int64] = [:]
            for row in rows { cafes[row["cafeId"]] = row["latest"] }
            return FeedHead(latest: latest, cafes: cafes)
        }
    }

    // MARK: - Rows

    /// Ticket views with their order's number, customer, window and the lines of their station.
    static func views(_ db: Database, of tickets: [TicketRecord]) throws -> [TicketView] {
        guard !tickets.isEmpty else { return [] }
        let orderIDs = Array(Set(tickets.map(\.orderId)))
        let orders = try OrderRecord.filter(keys: orderIDs).fetchAllNamingRows(db)
        let ordersByID = Dictionary(uniqueKeysWithValues: orders.map { ($0.id, $0) })
        let lines = try OrderLineRecord.filter(orderIDs.contains(Column("orderId"))).order(Column("position"))
            .fetchAllNamingRows(db)
        let linesByOrder = Dictionary(grouping: lines, by: \.orderId)
        return try tickets.map { record in
            guard let order = ordersByID[record.orderId] else {
                throw StoredRow.invalid(table: "ticket", id: record.id, "its order '\(record.orderId)' does not exist")
            }
            return TicketView(
                ticket: try record.ticket(), orderNumber: order.number, customer: order.customer,
                pickup: order.pickup,
                lines: (linesByOrder[record.orderId] ?? []).filter { $0.station == record.station }.map(\.line))
        }
    }

    /// A ticket still in the kitchen's hands (held, new, preparing or ready), as SQL: the
    /// predicate of the partial index `ticket_open_on_cafeId` (migration v17), which a query must
    /// name for SQLite to use the index. Written with ORs because SQLite builds a temporary b-tree
    /// for an `IN` list of more than two values each time it writes a ticket.
    static let openPredicate = "(status = 'held' OR status = 'new' OR status = 'preparing' OR status = 'ready')"

    /// The next value of the feed's sequence (inside the caller's write transaction).
    static func nextSequence(_ db: Database) throws -> Int64 {
        guard
            let value = try Int64.fetchOne(
                db.cachedStatement(
                    sql: "UPDATE feedSequence SET value = value + 1 WHERE id = 1 RETURNING value"))
        else {
            throw StoredRow.invalid(table: "feedSequence", id: "1", "the row is missing")
        }
        return value
    }

    static func insert(_ ticket: TicketRecord, _ db: Database) throws {
        var statement = try BoundStatement(
            db,
            sql: """
                INSERT INTO ticket (id, orderId, cafeId, station, status, sequence, createdAt, updatedAt, prepSeconds,
                    fireAt, firedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        statement.bind(ticket.id)
        statement.bind(ticket.orderId)
        statement.bind(ticket.cafeId)
        statement.bind(ticket.station)
        statement.bind(ticket.status)
        statement.bind(ticket.sequence)
        statement.bind(StoredTimestamp.text(ticket.createdAt))
        statement.bind(StoredTimestamp.text(ticket.updatedAt))
        statement.bind(ticket.prepSeconds)
        statement.bind(ticket.fireAt.map(StoredTimestamp.text))
        statement.bind(ticket.firedAt.map(StoredTimestamp.text))
        try statement.run()
    }
}
