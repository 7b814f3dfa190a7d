import CanteenCore
import CanteenPersistence
import Foundation
import GRDB
import Tracing

/// The SQLite implementation of `OrderRepository`.
///
/// Placing an order is one step of a write transaction: idempotency check, pricing against
/// the current menu, pickup capacity, order number, order, lines, tickets and the idempotency
/// record. It stores facts and returns them; rendering the answer happens after commit, outside
/// SQLite's only writer. SQLite runs one writer at a time, so capacity can never be overbooked
/// by concurrent kiosks. Orders arriving together share a transaction (group commit): one fsync
/// makes the whole batch durable before any of them is answered. The rows every order of a
/// batch bumps (feed sequence, order numbers, pickup capacity) are read once per transaction and
/// written back once before its commit (`PlacementBatch`).
public final class OrderStore: OrderRepository {
    let database: AppDatabase
    private let cafes: CafeStore
    private let tickets: TicketStore
    private let capacity: PickupCapacityStore
    private let events: OrderEventStore
    private let ids: RandomID
    let clock: @Sendable () -> Date
    private let placements: GroupCommit<Placement, OrderPlacement>

    /// `events` writes each order's events in the order's own transactions.
    public init(
        database: AppDatabase, cafes: CafeStore, tickets: TicketStore, capacity: PickupCapacityStore,
        events: OrderEventStore, ids: RandomID = RandomID(), clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.ids = ids
        self.database = database
        self.cafes = cafes
        self.tickets = tickets
        self.capacity = capacity
        self.events = events
        self.clock = clock
        placements = GroupCommit { batch in
            await PlacementTracing.sqlite.batch(of: batch.compactMap(\.trace), orders: batch.count) {
                await Self.place(
                    batch, database: database, cafes: cafes, tickets: tickets, capacity: capacity,
                    events: events, ids: ids)
            }
        }
    }

    // MARK: - Placing

    public func placeOrder(_ request: OrderRequest, key: IdempotencyKey?) async throws -> OrderPlacement {
        try await PlacementTracing.sqlite.placing(cafeID: request.cafeID) { trace in
            try await placements.submit(Placement(request: request, key: key, now: clock(), trace: trace))
        }
    }

    /// One order waiting for the next group commit.
    struct Placement: Sendable {
        let request: OrderRequest
        let key: IdempotencyKey?
        let now: Date
        /// The placing request's span, when it is traced.
        var trace: ServiceContext?
    }

    /// Places a batch of orders in one transaction (one fsync). A refused order must leave no
    /// trace and must not affect the others, which a savepoint per order gives; but a savepoint
    /// costs every order about an eighth of its instructions (SQLite copies each page the order
    /// touches into the statement journal), and nearly every batch has no refused order. So the
    /// batch first runs without savepoints; if an order of a batch of several is refused, that
    /// transaction is rolled back (no fsync) and the batch runs again with one savepoint per
    /// order. Each new order's `order.placed` event is written with it; the events of the orders
    /// that stay are published once the batch commits.
    private static func place(
        _ batch: [Placement], database: AppDatabase, cafes: CafeStore, tickets: TicketStore,
        capacity: PickupCapacityStore, events: OrderEventStore,
        ids: RandomID
    ) async -> [Result<OrderPlacement, any Error>] {
        do {
            let results: [Result<OrderPlacement, any Error>]
            do {
                results = try await database.writer.write { db in
                    try place(
                        batch, db, savepoints: false, cafes: cafes, capacity: capacity, events: events, ids: ids)
                }
            } catch is RefusedInBatch {
                results = try await database.writer.write { db in
                    try place(
                        batch, db, savepoints: true, cafes: cafes, capacity: capacity, events: events, ids: ids)
                }
            }
            var latest: [String: Int64] = [:]
            for case .success(.placed(let order)) in results {
                latest[order.cafeID] = max(latest[order.cafeID] ?? 0, order.tickets.map(\.sequence).max() ?? 0)
            }
            tickets.published(latest)
            return results
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// An order of a batch run without savepoints was refused: the batch runs again with them.
    private struct RefusedInBatch: Error {}

    /// Places `batch` inside the caller's write transaction. With `savepoints`, each order runs in
    /// its own and a refused order gets its error while the others go on. Without, a refused
    /// order throws: its own error when it is the batch's only order, `RefusedInBatch` otherwise
    /// (the caller rolls the transaction back).
    private static func place(
        _ batch: [Placement], _ db: Database, savepoints: Bool, cafes: CafeStore,
        capacity: PickupCapacityStore, events: OrderEventStore, ids: RandomID
    ) throws -> [Result<OrderPlacement, any Error>] {
        var known = PlacementBatch()
        var placed: [OrderEvent] = []
        var results: [Result<OrderPlacement, any Error>] = []
        results.reserveCapacity(batch.count)
        for placement in batch {
            let before = known
            var outcome: OrderPlacement?
            var event: OrderEvent?
            let placeOne = {
                outcome = try place(db, placement, batch: &known, cafes: cafes, capacity: capacity, ids: ids)
                if case .placed(let order)? = outcome {
                    // The tickets' sequences come from the batch, so the event's does too.
                    event = try events.insert(
                        db, orderID: order.id, cafeID: order.cafeID, type: .placed,
                        sequence: order.tickets.map(\.sequence).max() ?? 0,
                        previousSequence: nil, ticketStatuses: nil, at: placement.now)
                }
            }
            do {
                if savepoints {
                    try db.inSavepoint {
                        try placeOne()
                        return .commit
                    }
                } else {
                    try placeOne()
                }
                guard let outcome else {
                    throw StoredRow.invalid(table: "customerOrder", id: "-", "no outcome")
                }
                if let event { placed.append(event) }
                results.append(.success(outcome))
            } catch {
                guard savepoints else { throw batch.count == 1 ? error : RefusedInBatch() }
                known = before  // a refused order takes nothing
                results.append(.failure(error))
            }
        }
        try known.flush(db)
        events.publishOnCommit(placed, db)
        return results
    }

    private static func place(
        _ db: Database, _ placement: Placement, batch: inout PlacementBatch, cafes: CafeStore,
        capacity: PickupCapacityStore, ids: RandomID
    ) throws -> OrderPlacement {
        let request = placement.request
        if let key = placement.key,
            let existing = try IdempotencyStore.stored(db, for: key, legacy: try batch.hasLegacyIdempotencyKeys(db))
        {
            guard existing.requestHash == key.requestHash else { throw CanteenError.idempotencyKeyReused }
            switch existing.stored {
            case .order(let id, let language):
                guard let order = try fetchOrder(db, id: id) else {
                    throw StoredRow.invalid(table: "idempotencyRecord", id: key.key, "its order '\(id)' does not exist")
                }
                return .replayed(order.asPlaced, answerLanguage: language)
            case .answer(let body, let language):
                return .replayedAnswer(body, contentLanguage: language)
            }
        }
        guard let menu = try batch.menu(db, cafeID: request.cafeID, cafes: cafes) else {
            throw CanteenError(
                .invalid, code: .unknownCafe, message: "no café with id '\(request.cafeID)'",
                field: "cafeId", parameters: ["cafe": request.cafeID])
        }
        let order = try insertOrder(
            db, request, menu: menu, batch: &batch, capacity: capacity, ids: ids,
            tokenID: placement.key?.tokenID, now: placement.now)
        if let key = placement.key {
            try IdempotencyStore.insert(
                IdempotencyRecord(
                    tokenId: key.tokenID, key: key.key, requestHash: key.requestHash,
                    orderId: order.id, answerLanguage: key.answerLanguage,
                    createdAt: placement.now), db)
        }
        return .placed(order)
    }

    private static func insertOrder(
        _ db: Database, _ request: OrderRequest, menu: CafeMenu,
        batch: inout PlacementBatch, capacity: PickupCapacityStore, ids: RandomID,
        tokenID: String?, now: Date
    ) throws -> Order {
        let cafe = menu.cafe
        let units = cafe.pickup.capacityUnit == .orders ? 1 : request.lines.reduce(0) { $0 + $1.quantity }
        let timing = KitchenTiming(cafe: cafe, menu: menu.menu)
        let ticketTimings = timing.tickets(for: request.lines.map(\.itemID))
        let load = timing.isTimed ? try batch.kitchenLoad(db, cafeID: cafe.id, now: now) : .idle(at: now)
        let (window, plan) = try capacity.chooseWindow(
            cafe: cafe, choice: request.pickup, units: units, now: now,
            plan: {
                KitchenPlan(
                    tickets: ticketTimings, pickup: $0, scheduled: request.pickup != .asap, timing: timing,
                    load: load)
            },
            usedCapacity: { try batch.usedCapacity(db, cafeID: cafe.id, windows: $0) })
        var priced = try menu.price(request, pickupStart: window.start, now: now)
        if let couponID = request.couponID {
            priced = try CouponStore.redeem(couponID, on: priced, at: cafe, now: now, db)
        }
        try batch.take(db, cafeID: cafe.id, window: window, units: units)
        let stockDate = DailyStock.day(of: window.start, at: cafe).description
        let wanted = DailyStock.wanted(by: request.lines, in: menu.menu)
        for want in wanted {
            try batch.takeStock(db, cafeID: cafe.id, localDate: stockDate, want: want)
        }

        let localDate = LocalDate(now, in: cafe.calendar).description
        let number = try batch.nextOrderNumber(db, cafeID: cafe.id, localDate: localDate)

        let record = OrderRecord(
            id: ids.timeOrdered("ord", at: now), cafeId: cafe.id, number: number, localDate: localDate,
            customerName: request.customer.name, userId: request.customer.userID, tokenId: tokenID,
            pickupStart: window.start, pickupEnd: window.end, subtotal: priced.subtotal.minorUnits,
            tax: priced.tax.minorUnits, total: priced.total.minorUnits, currency: cafe.currency.code,
            capacityUnits: units, createdAt: now, cancelledAt: nil, couponId: priced.discount?.couponID,
            discountLabel: priced.discount?.label, discount: priced.discount?.amount ?? 0, readyAt: plan.readyAt)
        try insert(record, db)
        for (position, line) in priced.lines.enumerated() {
            try insert(
                line, names: batch.itemNames.text(of: line, cafeID: cafe.id), orderID: record.id, position: position, db
            )
        }
        for want in wanted {
            try db.cachedStatement(
                sql: """
                    INSERT INTO stockTaken (orderId, itemId, localDate, quantity) VALUES (?, ?, ?, ?)
                    """
            ).execute(arguments: [record.id, want.item.id, stockDate, want.quantity])
        }
        var tickets: [Ticket] = []
        for planned in plan.tickets {
            let ticket = Ticket(
                id: ids.timeOrdered("tkt", at: now), orderID: record.id, cafeID: cafe.id,
                station: planned.station, status: planned.status, sequence: try batch.nextSequence(db),
                createdAt: now, updatedAt: now, prepSeconds: planned.prepSeconds,
                fireAt: planned.fireAt, firedAt: planned.fireAt == nil ? now : nil)
            try TicketStore.insert(TicketRecord(ticket), db)
            tickets.append(ticket)
        }
        if plan.isTimed { batch.queue(plan.openTickets(at: now), cafeID: cafe.id) }
        return Order(
            id: record.id, cafeID: cafe.id, number: number, customer: request.customer, pickup: window,
            lines: priced.lines, discount: priced.discount, subtotal: priced.subtotal, tax: priced.tax,
            total: priced.total, createdAt: now, tickets: tickets, readyAt: plan.readyAt)
    }

    // MARK: - Reading and cancelling

    public func order(id: String) async throws -> Order? {
        try await database.writer.read { db in try Self.fetchOrder(db, id: id) }
    }

    static func fetchOrder(_ db: Database, id: String) throws -> Order? {
        guard let record = try OrderRecord.filter(key: id).fetchOneNamingRow(db) else { return nil }
        return try fetchOrder(db, record: record)
    }

    /// The order of `record` with its lines and tickets.
    static func fetchOrder(_ db: Database, record: OrderRecord) throws -> Order {
        let id = record.id
        let lines = try OrderLineRecord.filter(Column("orderId") == id).order(Column("position")).fetchAllNamingRows(db)
        let rows = try TicketRecord.filter(Column("orderId") == id).fetchAllNamingRows(db)
        let currency = try record.currencyValue()
        // Tickets in the order they were written: one per station, by the station's first line.
        var stations: [String] = []
        for line in lines where !stations.contains(line.station) { stations.append(line.station) }
        let tickets = try rows.map { try $0.ticket() }.sorted {
            (stations.firstIndex(of: $0.station) ?? .max, $0.id) < (stations.firstIndex(of: $1.station) ?? .max, $1.id)
        }
        return Order(
            id: record.id, cafeID: record.cafeId, number: record.number, customer: record.customer,
            pickup: record.pickup, lines: lines.map(\.line), discount: try record.orderDiscount(),
            subtotal: Money(minorUnits: record.subtotal, currency: currency),
            tax: Money(minorUnits: record.tax, currency: currency),
            total: Money(minorUnits: record.total, currency: currency),
            createdAt: record.createdAt, tickets: tickets, readyAt: record.readyAt)
    }

    public func cancelOrder(id: String) async throws -> Order {
        let now = clock()
        let (order, sequence) = try await database.writer.write { db -> (Order, Int64?) in
            guard var record = try OrderRecord.filter(key: id).fetchOneNamingRow(db) else {
                throw CanteenError.notFound(.order, id)
            }
            let rows = try TicketRecord.filter(Column("orderId") == id).fetchAllNamingRows(db)
            let statuses = try rows.map { try $0.ticket().status }
            if statuses.contains(.pickedUp) {
                throw CanteenError(
                    .conflict, code: .orderNotCancellable,
                    message: "order \(record.number) has been picked up", parameters: ["status": "picked_up"])
            }
            if record.cancelledAt != nil {
                guard let order = try Self.fetchOrder(db, id: id) else { throw CanteenError.notFound(.order, id) }
                return (order, nil)
            }
            var last: Int64?
            for (var ticket, status) in zip(rows, statuses) where status.isOpen {
                ticket.status = TicketStatus.cancelled.rawValue
                ticket.sequence = try TicketStore.nextSequence(db)
                ticket.updatedAt = now
                try ticket.update(db)
                last = ticket.sequence
            }
            try PickupCapacityStore.release(
                db, cafeID: record.cafeId, windowStart: record.pickupStart,
                units: record.capacityUnits)
            try DailyStockStore.giveBack(db, orderID: id, cafeID: record.cafeId)
            if let couponID = record.couponId { try CouponStore.release(couponID, db) }
            record.cancelledAt = now
            try record.update(db)
            let cancelled = try Self.fetchOrder(db, record: record)
            if let last,
                let event = try events.insertIfStatusChanged(
                    db, orderID: id, cafeID: record.cafeId, before: statuses, after: cancelled.tickets, sequence: last,
                    at: now)
            {
                events.publishOnCommit([event], db)
            }
            return (cancelled, last)
        }
        if let sequence { tickets.published([order.cafeID: sequence]) }
        return order
    }
}

extension CanteenError {
    static let idempotencyKeyReused = CanteenError(
        .invalid, code: .idempotencyKeyReused,
        message: "this idempotency key was already used with a different request")
}
