import CanteenCore
import Foundation
import GRDB

extension OrderStore {
    // MARK: - Tickets

    public func ticket(id: String) async throws -> TicketView? {
        try await database.writer.read { db in
            try TicketRecord.fetchOne(db, key: id).map { try Self.views(db, of: [$0]) }?.first
        }
    }

    public func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView {
        let now = clock()
        let view = try await database.writer.write { db -> TicketView in
            guard var record = try TicketRecord.fetchOne(db, key: id) else { throw CanteenError.notFound("ticket", id) }
            let current = TicketStatus(rawValue: record.status) ?? .new
            record.status = try current.moved(to: status).rawValue
            record.sequence = try Self.nextSequence(db)
            record.updatedAt = now
            try record.update(db)
            return try Self.views(db, of: [record])[0]
        }
        signal.publish(cafeID: view.ticket.cafeID, sequence: view.ticket.sequence)
        return view
    }

    /// The most tickets one feed answer carries; a display far behind pages with the cursor.
    public static let feedPageSize = 500

    public func ticketFeed(cafeID: String, after cursor: Int64?, station: String?) async throws -> TicketFeedPage {
        try await database.writer.read { db in
            var request = TicketRecord.filter(Column("cafeId") == cafeID)
            if let station { request = request.filter(Column("station") == station) }
            if let cursor {
                request = request.filter(Column("sequence") > cursor)
            } else {
                let open = [TicketStatus.new, .preparing, .ready].map(\.rawValue)
                request = request.filter(open.contains(Column("status")))
            }
            let records = try request.order(Column("sequence")).limit(Self.feedPageSize).fetchAll(db)
            let next: Int64
            if let cursor {
                next = max(cursor, records.last?.sequence ?? cursor)
            } else if records.count == Self.feedPageSize, let last = records.last {
                next = last.sequence
            } else {
                next = try Int64.fetchOne(db, sql: "SELECT value FROM feedSequence WHERE id = 1") ?? 0
            }
            return TicketFeedPage(tickets: try Self.views(db, of: records), cursor: next)
        }
    }

    public func latestSequence(cafeID: String) async throws -> Int64 {
        if let known = signal.latest(cafeID: cafeID) { return known }
        let stored = try await database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM ticket WHERE cafeId = ?", arguments: [cafeID]) ?? 0
        }
        signal.seed(cafeID: cafeID, sequence: stored)
        return signal.latest(cafeID: cafeID) ?? stored
    }

    public func waitForChange(cafeID: String, after cursor: Int64, timeout: Duration) async -> Bool {
        await signal.wait(cafeID: cafeID, after: cursor, timeout: timeout)
    }

    /// Displays waiting right now (tests use it to know a long-poll is parked).
    public var waitingDisplays: Int { signal.waiterCount }

    /// Ticket views with their order's number, customer, window and the lines of their station.
    private static func views(_ db: Database, of tickets: [TicketRecord]) throws -> [TicketView] {
        guard !tickets.isEmpty else { return [] }
        let orderIDs = Array(Set(tickets.map(\.orderId)))
        let orders = try OrderRecord.filter(keys: orderIDs).fetchAll(db)
        let ordersByID = Dictionary(uniqueKeysWithValues: orders.map { ($0.id, $0) })
        let lines = try OrderLineRecord.filter(orderIDs.contains(Column("orderId"))).order(Column("position")).fetchAll(db)
        let linesByOrder = Dictionary(grouping: lines, by: \.orderId)
        return tickets.compactMap { record in
            guard let order = ordersByID[record.orderId] else { return nil }
            return TicketView(ticket: record.ticket, orderNumber: order.number, customer: order.customer,
                              pickup: order.pickup,
                              lines: (linesByOrder[record.orderId] ?? []).filter { $0.station == record.station }.map(\.line))
        }
    }

    static func nextSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "UPDATE feedSequence SET value = value + 1 WHERE id = 1 RETURNING value")) ?? 0
    }
}
