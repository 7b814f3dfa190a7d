import CanteenCore
import Foundation
import GRDB

/// The SQLite implementation of `OrderRepository`.
///
/// Placing an order is one savepoint of a write transaction: idempotency check, pricing against
/// the current menu, pickup capacity, order number, order, lines, tickets and the stored
/// response. SQLite runs one writer at a time, so capacity can never be overbooked by concurrent
/// kiosks. Orders arriving together share a transaction (group commit): one fsync makes the
/// whole batch durable before any of them is answered.
public final class OrderStore: OrderRepository {
    let database: AppDatabase
    private let cafes: CafeStore
    let clock: @Sendable () -> Date
    let signal: FeedSignal
    private let placements: GroupCommit<Placement, PlacementResult>

    public init(database: AppDatabase, cafes: CafeStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.cafes = cafes
        self.clock = clock
        let signal = FeedSignal()
        self.signal = signal
        placements = GroupCommit { batch in await Self.place(batch, database: database, cafes: cafes, signal: signal) }
    }

    // MARK: - Orders

    public func placeOrder(_ request: OrderRequest, key: IdempotencyKey?,
                           render: @escaping @Sendable (Order, Cafe) throws -> StoredResponse) async throws -> PlacementResult {
        try await placements.submit(Placement(request: request, key: key, render: render, now: clock()))
    }

    /// One order waiting for the next group commit.
    struct Placement: Sendable {
        let request: OrderRequest
        let key: IdempotencyKey?
        let render: @Sendable (Order, Cafe) throws -> StoredResponse
        let now: Date
    }

    /// Places a batch of orders in one transaction (one fsync), each in its own savepoint so
    /// that a refused order leaves no trace and does not affect the others.
    private static func place(_ batch: [Placement], database: AppDatabase, cafes: CafeStore,
                              signal: FeedSignal) async -> [Result<PlacementResult, any Error>] {
        do {
            let results = try await database.writer.write { db in
                batch.map { placement in
                    Result { () throws -> PlacementResult in
                        var outcome: PlacementResult?
                        try db.inSavepoint {
                            outcome = try place(db, placement, cafes: cafes)
                            return .commit
                        }
                        return outcome!
                    }
                }
            }
            var latest: [String: Int64] = [:]
            for case .success(.placed(let order, _)) in results {
                latest[order.cafeID] = max(latest[order.cafeID] ?? 0, order.tickets.map(\.sequence).max() ?? 0)
            }
            for (cafeID, sequence) in latest { signal.publish(cafeID: cafeID, sequence: sequence) }
            return results
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    private static func place(_ db: Database, _ placement: Placement, cafes: CafeStore) throws -> PlacementResult {
        let request = placement.request
        if let key = placement.key, let existing = try storedResponse(db, for: key) {
            guard existing.requestHash == key.requestHash else { throw CanteenError.idempotencyKeyReused }
            return .replayed(existing.response)
        }
        guard let menu = try cafes.menu(db, cafeID: request.cafeID) else {
            throw CanteenError(.invalid, code: "unknown_cafe", message: "no café with id '\(request.cafeID)'",
                               field: "cafeId", parameters: ["cafe": request.cafeID])
        }
        let order = try insertOrder(db, request, menu: menu, tokenID: placement.key?.tokenID, now: placement.now)
        let response = try placement.render(order, menu.cafe)
        if let key = placement.key {
            try insert(IdempotencyRecord(tokenId: key.tokenID, key: key.key, requestHash: key.requestHash,
                                         status: response.status, body: response.body, orderId: order.id,
                                         createdAt: placement.now, contentLanguage: response.contentLanguage), db)
        }
        return .placed(order, response)
    }

    private static func insertOrder(_ db: Database, _ request: OrderRequest, menu: CafeMenu, tokenID: String?,
                             now: Date) throws -> Order {
        let cafe = menu.cafe
        let units = cafe.pickup.capacityUnit == .orders ? 1 : request.lines.reduce(0) { $0 + $1.quantity }
        let window = try chooseWindow(db, cafe: cafe, choice: request.pickup, units: units, now: now)
        let priced = try menu.price(request, pickupStart: window.start, now: now)
        try db.cachedStatement(sql: """
            INSERT INTO pickupSlot (cafeId, start, used) VALUES (?, ?, ?)
            ON CONFLICT (cafeId, start) DO UPDATE SET used = used + excluded.used
            """).execute(arguments: [cafe.id, Int64(window.start.timeIntervalSince1970), units])

        let localDate = LocalDate(now, in: cafe.calendar).description
        let number = try Int.fetchOne(db.cachedStatement(sql: """
            INSERT INTO orderNumber (cafeId, localDate, last) VALUES (?, ?, 1)
            ON CONFLICT (cafeId, localDate) DO UPDATE SET last = last + 1
            RETURNING last
            """), arguments: [cafe.id, localDate]) ?? 1

        let record = OrderRecord(
            id: RandomID.timeOrdered("ord", at: now), cafeId: cafe.id, number: number, localDate: localDate,
            customerName: request.customer.name, userId: request.customer.userID, tokenId: tokenID,
            pickupStart: window.start, pickupEnd: window.end, subtotal: priced.subtotal.minorUnits,
            tax: priced.tax.minorUnits, total: priced.total.minorUnits, currency: cafe.currency,
            capacityUnits: units, createdAt: now, cancelledAt: nil)
        try insert(record, db)
        for (position, line) in priced.lines.enumerated() {
            try insert(line, orderID: record.id, position: position, db)
        }
        var stations: [String] = []
        for line in priced.lines where !stations.contains(line.station) { stations.append(line.station) }
        var tickets: [Ticket] = []
        for station in stations {
            let ticket = TicketRecord(id: RandomID.timeOrdered("tkt", at: now), orderId: record.id, cafeId: cafe.id, station: station,
                                      status: TicketStatus.new.rawValue, sequence: try Self.nextSequence(db),
                                      createdAt: now, updatedAt: now)
            try insert(ticket, db)
            tickets.append(ticket.ticket)
        }
        return Order(id: record.id, cafeID: cafe.id, number: number, customer: request.customer, pickup: window,
                     lines: priced.lines, subtotal: priced.subtotal, tax: priced.tax, total: priced.total,
                     createdAt: now, tickets: tickets)
    }

    /// The requested window if it is offered and has room, or the earliest offered one with room.
    private static func chooseWindow(_ db: Database, cafe: Cafe, choice: PickupChoice, units: Int,
                              now: Date) throws -> PickupWindow {
        let date: LocalDate
        switch choice {
        case .asap: date = LocalDate(now, in: cafe.calendar)
        case .window(let start): date = LocalDate(start, in: cafe.calendar)
        }
        let all = cafe.pickupWindows(on: date)
        guard !all.isEmpty else {
            throw CanteenError(.invalid, code: "cafe_closed", message: "café '\(cafe.id)' is closed on \(date)",
                               field: "pickup", parameters: ["date": date.description])
        }
        let offered = cafe.offeredPickupWindows(on: date, now: now)
        let used = try usedCapacity(db, cafeID: cafe.id, windows: offered)
        let hasRoom = { (window: PickupWindow) in (used[window.start] ?? 0) + units <= cafe.pickup.capacity }
        switch choice {
        case .asap:
            guard !offered.isEmpty else {
                throw CanteenError(.invalid, code: "cafe_closed",
                                   message: "café '\(cafe.id)' has no pickup window left today", field: "pickup")
            }
            guard let window = offered.first(where: hasRoom) else { throw CanteenError.windowFull(field: "pickup") }
            return window
        case .window(let start):
            guard let window = offered.first(where: { $0.start == start }) else {
                let reason = all.contains { $0.start == start }
                    ? "starts too soon: the earliest window starts \(cafe.pickup.leadMinutes) minutes from now"
                    : "is not one of the café's pickup windows on \(date)"
                throw CanteenError(.invalid, code: "pickup_window_unavailable", message: "the window \(reason)",
                                   field: "pickup.start")
            }
            guard hasRoom(window) else { throw CanteenError.windowFull(field: "pickup.start") }
            return window
        }
    }

    private static func usedCapacity(_ db: Database, cafeID: String, windows: [PickupWindow]) throws -> [Date: Int] {
        guard let first = windows.first, let last = windows.last else { return [:] }
        let statement = try db.cachedStatement(sql: "SELECT start, used FROM pickupSlot WHERE cafeId = ? AND start BETWEEN ? AND ?")
        let rows = try Row.fetchAll(statement, arguments: [cafeID, Int64(first.start.timeIntervalSince1970),
                                                           Int64(last.start.timeIntervalSince1970)])
        var used: [Date: Int] = [:]
        for row in rows { used[Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64))] = row["used"] }
        return used
    }

    public func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability] {
        let offered = cafe.offeredPickupWindows(on: date, now: clock())
        return try await database.writer.read { db in
            let used = try Self.usedCapacity(db, cafeID: cafe.id, windows: offered)
            return offered.map {
                PickupWindowAvailability(window: $0, capacity: cafe.pickup.capacity,
                                         remaining: max(0, cafe.pickup.capacity - (used[$0.start] ?? 0)))
            }
        }
    }

    public func order(id: String) async throws -> Order? {
        try await database.writer.read { db in try Self.fetchOrder(db, id: id) }
    }

    static func fetchOrder(_ db: Database, id: String) throws -> Order? {
        guard let record = try OrderRecord.fetchOne(db, key: id) else { return nil }
        let lines = try OrderLineRecord.filter(Column("orderId") == id).order(Column("position")).fetchAll(db)
        let tickets = try TicketRecord.filter(Column("orderId") == id).order(Column("sequence")).fetchAll(db)
        let currency = (try? Currency(code: record.currency)) ?? .usd
        return Order(id: record.id, cafeID: record.cafeId, number: record.number, customer: record.customer,
                     pickup: record.pickup, lines: lines.map(\.line),
                     subtotal: Money(minorUnits: record.subtotal, currency: currency),
                     tax: Money(minorUnits: record.tax, currency: currency),
                     total: Money(minorUnits: record.total, currency: currency),
                     createdAt: record.createdAt, tickets: tickets.map(\.ticket))
    }

    public func cancelOrder(id: String) async throws -> Order {
        let now = clock()
        let (order, sequence) = try await database.writer.write { db -> (Order, Int64?) in
            guard var record = try OrderRecord.fetchOne(db, key: id) else { throw CanteenError.notFound("order", id) }
            let tickets = try TicketRecord.filter(Column("orderId") == id).fetchAll(db)
            if tickets.contains(where: { $0.status == TicketStatus.pickedUp.rawValue }) {
                throw CanteenError(.conflict, code: "order_not_cancellable",
                                   message: "order \(record.number) has been picked up", parameters: ["status": "picked_up"])
            }
            guard record.cancelledAt == nil else { return (try Self.fetchOrder(db, id: id)!, nil) }
            var last: Int64?
            for var ticket in tickets where TicketStatus(rawValue: ticket.status)?.isOpen ?? false {
                ticket.status = TicketStatus.cancelled.rawValue
                ticket.sequence = try Self.nextSequence(db)
                ticket.updatedAt = now
                try ticket.update(db)
                last = ticket.sequence
            }
            try db.execute(sql: "UPDATE pickupSlot SET used = MAX(0, used - ?) WHERE cafeId = ? AND start = ?",
                           arguments: [record.capacityUnits, record.cafeId, Int64(record.pickupStart.timeIntervalSince1970)])
            record.cancelledAt = now
            try record.update(db)
            return (try Self.fetchOrder(db, id: id)!, last)
        }
        if let sequence { signal.publish(cafeID: order.cafeID, sequence: sequence) }
        return order
    }

    // MARK: - Idempotency keys

    public func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int {
        try await database.writer.write { db in
            try IdempotencyRecord.filter(Column("createdAt") < cutoff).deleteAll(db)
        }
    }
}

extension CanteenError {
    static let idempotencyKeyReused = CanteenError(
        .invalid, code: "idempotency_key_reused",
        message: "this Idempotency-Key was already used with a different request", field: "Idempotency-Key")

    static func windowFull(field: String) -> CanteenError {
        CanteenError(.conflict, code: "pickup_window_full", message: "the pickup window is full; choose another",
                     field: field)
    }
}
