import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO
import Tracing

/// The PostgreSQL implementation of `OrderRepository`.
///
/// Orders arriving together on one server share a transaction (group commit, as on SQLite).
/// The transaction takes its locks in one order, the same on every server, so servers never
/// deadlock each other:
///
/// 1. the rows of the batch's cafés, sorted by id (`FOR NO KEY UPDATE`): orders of one café
///    are placed one server at a time, so the capacity each reads is the capacity it takes;
/// 2. the batch's idempotency keys, claimed in one statement in key order (a key held already
///    is read back at its order's turn);
/// 3. per order, in key order, its window chosen and its price made; an order with a coupon
///    or a limited item is written at once, alone (`WriteOrder`: the pickup window's row taken
///    with a conditional update, exact whatever else happens, the day's order number, the order
///    and its lines; then the rows of its limited items, `dailyStock`, checked before anything
///    is written and taken with a conditional update), so that the next order reads what it took;
/// 4. the batch's other orders in one statement (`WriteOrders`: each window's row taken once
///    for all of its orders, conditionally likewise, and the days' numbers in key order);
/// 5. last, the feed's position row, in the statement writing the tickets and the new orders'
///    `order.placed` events (`WriteTickets`).
///
/// A refused order deletes its claim and leaves no trace; the others commit. Seven statements
/// per batch whatever its size (`BEGIN` and `COMMIT` included), and a few more for each order
/// with a coupon or a limited item and each key held already: every statement is a round trip.
public final class PostgresOrderStore: OrderRepository {
    let database: PostgresDatabase
    private let cafes: PostgresCafeStore
    private let tickets: PostgresTicketStore
    private let capacity: PostgresPickupCapacityStore
    private let events: PostgresOrderEventStore
    private let ids: RandomID
    let clock: @Sendable () -> Date
    private let placements: GroupCommit<Placement, OrderPlacement>

    public init(
        database: PostgresDatabase, cafes: PostgresCafeStore, tickets: PostgresTicketStore,
        capacity: PostgresPickupCapacityStore, events: PostgresOrderEventStore, ids: RandomID = RandomID(),
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.cafes = cafes
        self.tickets = tickets
        self.capacity = capacity
        self.events = events
        self.ids = ids
        self.clock = clock
        placements = GroupCommit { batch in
            await PlacementTracing.postgresql.batch(of: batch.compactMap(\.trace), orders: batch.count) {
                await Self.place(
                    batch, database: database, cafes: cafes, tickets: tickets, capacity: capacity,
                    events: events, ids: ids)
            }
        }
    }

    // MARK: - Placing

    public func placeOrder(_ request: OrderRequest, key: IdempotencyKey?) async throws -> OrderPlacement {
        try await PlacementTracing.postgresql.placing(cafeID: request.cafeID) { trace in
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

    /// What one placement became inside the transaction, before the tickets are numbered.
    private enum Draft: Sendable {
        case placed(Order, plan: KitchenPlan)
        /// Chosen and priced; written with the batch's other such orders after the loop.
        case deferred(Prepared)
        case done(OrderPlacement)
        case failed(CanteenError)
    }

    /// Places a batch in one transaction; one result per placement, in order.
    private static func place(
        _ batch: [Placement], database: PostgresDatabase, cafes: PostgresCafeStore,
        tickets: PostgresTicketStore, capacity: PostgresPickupCapacityStore,
        events: PostgresOrderEventStore, ids: RandomID
    ) async -> [Result<OrderPlacement, any Error>] {
        // Claims in key order (keys first), so that two servers' batches wait for each other's
        // keys in the same order.
        let order = batch.indices.sorted { lhs, rhs in
            let (a, b) = (batch[lhs].key, batch[rhs].key)
            switch (a, b) {
            case let (a?, b?): return (a.tokenID, a.key, lhs) < (b.tokenID, b.key, rhs)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return lhs < rhs
            }
        }
        do {
            let (drafts, placedEvents, own) = try await database.transaction {
                connection -> ([Int: Draft], [OrderEvent], OwnCommit?) in
                let logger = database.logger
                let cafeIDs = Array(Set(batch.map(\.request.cafeID))).sorted()
                var context = BatchContext()
                let locked =
                    if cafeIDs.count == 1 {
                        try await connection.rows(LockCafe(id: cafeIDs[0]), logger: logger)
                    } else {
                        try await connection.rows(LockCafes(ids: cafeIDs), logger: logger)
                    }
                for row in locked {
                    let (id, version) = try StoredColumns.decode(row, table: "cafe", (String, Int64).self)
                    context.menuVersions[id] = version
                }
                var orderIDs: [Int: String] = [:]
                for index in order { orderIDs[index] = ids.timeOrdered("ord", at: batch[index].now) }
                let claimed = try await PostgresIdempotencyStore.claimFirst(
                    connection,
                    order.compactMap { index in
                        batch[index].key.map { (index, $0, orderIDs[index] ?? "", batch[index].now) }
                    }, logger: logger)
                var drafts: [Int: Draft] = [:]
                for index in order {
                    drafts[index] = try await draft(
                        batch[index], orderID: orderIDs[index] ?? "", claimed: claimed.contains(index), connection,
                        context: &context, cafes: cafes, capacity: capacity, logger: logger)
                }
                try await writeDeferred(&drafts, order: order, connection, logger: logger)
                return try await numberTickets(drafts, connection, database: database, ids: ids, logger: logger)
            }
            var results: [Result<OrderPlacement, any Error>] = []
            var latest: [String: Int64] = [:]
            for index in batch.indices {
                switch drafts[index] {
                case .placed(let order, _)?:
                    latest[order.cafeID] = max(latest[order.cafeID] ?? 0, order.tickets.map(\.sequence).max() ?? 0)
                    results.append(.success(.placed(order)))
                case .done(let placement)?: results.append(.success(placement))
                case .failed(let error)?: results.append(.failure(error))
                case .deferred?, nil: results.append(.failure(GroupCommitError.lostResult))
                }
            }
            tickets.published(latest)
            events.published(placedEvents)
            own?.told()
            return results
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// The batch's café's row, locked: the transaction's first lock, when the batch is for one
    /// café. Prepared: most batches run it. Not `LockCafes` with one id: PostgreSQL estimates
    /// that one's generic plan (for an array of any length) dearer than a plan for the id it is
    /// given, so it plans it again on every run.
    struct LockCafe: FixedStatement {
        static let sql = LockCafe(id: "").query.sql

        let id: String

        var query: PostgresQuery {
            "SELECT id, menuVersion FROM cafe WHERE id = \(id) FOR NO KEY UPDATE"
        }
    }

    /// The batch's cafés' rows, locked in id order: the transaction's first lock, when the
    /// batch is for several cafés. Prepared.
    struct LockCafes: FixedStatement {
        static let sql = LockCafes(ids: []).query.sql

        let ids: [String]

        var query: PostgresQuery {
            "SELECT id, menuVersion FROM cafe WHERE id = ANY(\(ids)) ORDER BY id FOR NO KEY UPDATE"
        }
    }

    /// What one batch knows while it holds its cafés' locks: their menu versions, the
    /// capacity used in the windows it read (nobody else can take any until it commits), and
    /// timed cafés' kitchens with the tickets the batch placed added.
    struct BatchContext {
        var menuVersions: [String: Int64] = [:]
        var used: [String: [Date: Int]] = [:]
        var loadedDays: Set<String> = []
        var kitchens: [String: KitchenLoad] = [:]
        /// Each item's names as an order line stores them, written once per batch.
        var itemNames = StoredItemNames()

        /// Counts what an order takes (its window's capacity, its kitchen's load) for the batch's
        /// next orders.
        mutating func took(_ prepared: Prepared) {
            let order = prepared.order
            used[order.cafeID, default: [:]][order.pickup.start, default: 0] += prepared.units
            if prepared.plan.isTimed { kitchens[order.cafeID]?.add(prepared.plan.openTickets(at: order.createdAt)) }
        }
    }

    /// One placement: the key's claim (unless the batch's claim took it already), then (a
    /// refusal deleting the claim, so that nothing is left) the window and the price; the order
    /// is written at once (`writeAlone`) or deferred to the batch's `WriteOrders`. No savepoint
    /// is needed: nothing is written before a refusal but the claim (and a coupon's use, given
    /// back with it).
    private static func draft(
        _ placement: Placement, orderID: String, claimed: Bool, _ connection: PostgresConnection,
        context: inout BatchContext, cafes: PostgresCafeStore, capacity: PostgresPickupCapacityStore,
        logger: Logger
    ) async throws -> Draft {
        let now = placement.now
        if !claimed, let key = placement.key,
            let existing = try await PostgresIdempotencyStore.claim(
                connection, key, orderID: orderID, now: now, logger: logger)
        {
            guard existing.requestHash == key.requestHash else { return .failed(.idempotencyKeyReused) }
            switch existing.stored {
            case .order(let id, let language):
                guard let order = try await OrderRows.fetchOrder(connection, id: id, logger: logger) else {
                    throw StoredRow.invalid(table: "idempotencyRecord", id: key.key, "its order '\(id)' does not exist")
                }
                return .done(.replayed(order.asPlaced, answerLanguage: language))
            case .answer(let body, let language):
                return .done(.replayedAnswer(body, contentLanguage: language))
            }
        }
        do {
            let prepared = try await prepare(
                placement, orderID: orderID, connection, context: &context, cafes: cafes,
                capacity: capacity, logger: logger)
            guard prepared.isDeferred else {
                return .placed(
                    try await writeAlone(prepared, connection, context: &context, logger: logger), plan: prepared.plan)
            }
            // What it takes counts for the batch's next orders already.
            context.took(prepared)
            return .deferred(prepared)
        } catch let error as CanteenError where error.kind != .internal && error.kind != .unavailable {
            if let key = placement.key {
                try await deleteClaim(key, orderID: orderID, connection, logger: logger)
            }
            return .failed(error)
        }
    }

    /// An order chosen and priced, ready for the statement writing it.
    struct Prepared: Sendable {
        let placement: Placement
        /// The order as it will be stored, its number and tickets not yet known.
        let order: Order
        let plan: KitchenPlan
        let units: Int
        let capacity: Int
        let slotKey: Int64
        let localDate: String
        let lines: [StoredLine]
        /// What is left of its limited items, taken once it is written.
        let stock: [(want: StockWant, left: Int)]
        let stockDate: LocalDate

        /// Written with the batch's other such orders in one statement (`WriteOrders`): an
        /// order without a coupon or a limited item. One with either is written at once, alone,
        /// so that the next order of the batch reads what it took.
        var isDeferred: Bool { order.discount == nil && stock.isEmpty }

        /// The refusal when its window turns out full as it is written.
        var windowFull: CanteenError {
            CanteenError.windowFull(
                field: placement.request.pickup == .asap ? "pickup" : "pickup.start",
                windowStart: order.pickup.start, cafeID: order.cafeID)
        }

        func statement() -> WriteOrder {
            WriteOrder(
                cafeID: order.cafeID, slotKey: slotKey, units: units, capacity: capacity, localDate: localDate,
                orderID: order.id, customerName: order.customer.name, userID: order.customer.userID,
                tokenID: placement.key?.tokenID, window: order.pickup, subtotal: order.subtotal.minorUnits,
                tax: order.tax.minorUnits, total: order.total.minorUnits, currency: order.total.currency.code,
                now: order.createdAt, couponID: order.discount?.couponID, discountLabel: order.discount?.label,
                discount: order.discount?.amount ?? 0, readyAt: plan.readyAt, linesJSON: StoredLine.json(lines))
        }
    }

    /// Chooses the window and prices the order (its coupon redeemed, its limited items checked),
    /// without writing it.
    private static func prepare(
        _ placement: Placement, orderID: String, _ connection: PostgresConnection,
        context: inout BatchContext, cafes: PostgresCafeStore,
        capacity: PostgresPickupCapacityStore, logger: Logger
    ) async throws -> Prepared {
        let request = placement.request
        let now = placement.now
        guard let version = context.menuVersions[request.cafeID],
            let menu = try await cafes.menu(connection, cafeID: request.cafeID, version: version)
        else {
            throw CanteenError(
                .invalid, code: .unknownCafe, message: "no café with id '\(request.cafeID)'",
                field: "cafeId", parameters: ["cafe": request.cafeID])
        }
        let cafe = menu.cafe
        let units = cafe.pickup.capacityUnit == .orders ? 1 : request.lines.reduce(0) { $0 + $1.quantity }
        let candidates = try capacity.planner.candidates(for: request.pickup, of: cafe, now: now)
        let day = "\(cafe.id)|\(candidates.date)"
        if !context.loadedDays.contains(day) {
            let used = try await PostgresPickupCapacityStore.usedCapacity(
                connection, cafeID: cafe.id,
                windows: candidates.all, logger: logger)
            context.used[cafe.id, default: [:]].merge(used) { $1 }
            context.loadedDays.insert(day)
        }
        let timing = KitchenTiming(cafe: cafe, menu: menu.menu)
        let ticketTimings = timing.tickets(for: request.lines.map(\.itemID))
        var load = KitchenLoad.idle(at: now)
        if timing.isTimed {
            if context.kitchens[cafe.id] == nil {
                context.kitchens[cafe.id] = try await PostgresTicketStore.kitchenLoad(
                    connection, cafeID: cafe.id, now: now, logger: logger)
            }
            load = context.kitchens[cafe.id] ?? load
        }
        let makePlan = { (window: PickupWindow) in
            KitchenPlan(
                tickets: ticketTimings, pickup: window, scheduled: request.pickup != .asap, timing: timing,
                load: load)
        }
        let chosen = try candidates.choose(units: units, used: context.used[cafe.id] ?? [:], plan: makePlan)
        let window = chosen.window
        let plan = chosen.plan ?? makePlan(window)
        var priced = try menu.price(request, pickupStart: window.start, now: now)
        // What is left of limited items, checked before anything is written (the café's lock
        // keeps it so until the batch commits); taken once the order is written.
        let stockDate = DailyStock.day(of: window.start, at: cafe)
        let wanted = DailyStock.wanted(by: request.lines, in: menu.menu)
        var stock: [(want: StockWant, left: Int)] = []
        for want in wanted {
            let stored = try await PostgresDailyStockStore.remaining(
                connection, cafeID: cafe.id, itemID: want.item.id,
                date: stockDate, logger: logger)
            let remaining = DailyStock.remaining(of: want.item, stored: stored) ?? 0
            stock.append((want, try DailyStock.take(want.quantity, of: want.item, from: remaining, line: want.line)))
        }
        if let couponID = request.couponID {
            priced = try await PostgresCouponStore.redeem(
                couponID, on: priced, at: cafe, now: now, connection,
                logger: logger)
        }
        let lines = priced.lines.enumerated().map { position, line in
            StoredLine(
                orderid: orderID, position: position, itemid: line.itemID,
                names: context.itemNames.text(of: line, cafeID: cafe.id), station: line.station,
                quantity: line.quantity, unitprice: line.unitPrice, linetotal: line.lineTotal,
                options: JSONText.options(line.options), note: line.note)
        }
        let order = Order(
            id: orderID, cafeID: cafe.id, number: 0, customer: request.customer, pickup: window,
            lines: priced.lines, discount: priced.discount, subtotal: priced.subtotal, tax: priced.tax,
            total: priced.total, createdAt: now, tickets: [], readyAt: plan.readyAt)
        return Prepared(
            placement: placement, order: order, plan: plan, units: units, capacity: cafe.pickup.capacity,
            slotKey: PostgresPickupCapacityStore.key(window.start),
            localDate: LocalDate(now, in: cafe.calendar).description,
            lines: lines, stock: stock, stockDate: stockDate)
    }

    /// Writes an order at once, alone (capacity, number, order, lines, then its limited items).
    private static func writeAlone(
        _ prepared: Prepared, _ connection: PostgresConnection, context: inout BatchContext, logger: Logger
    ) async throws -> Order {
        var order = prepared.order
        guard let row = try await connection.firstRow(prepared.statement(), logger: logger) else {
            // The conditional update found the window full (possible only across midnight, when
            // two batches lock different days): refused like any full window, the coupon's use given back.
            if let couponID = order.discount?.couponID {
                try await PostgresCouponStore.release(couponID, connection, logger: logger)
            }
            throw prepared.windowFull
        }
        order.number = try StoredColumns.decode(row, table: "customerOrder", Int.self)
        context.took(prepared)
        for (want, left) in prepared.stock {
            try await PostgresDailyStockStore.take(
                connection, want, left: left, orderID: order.id, cafeID: order.cafeID,
                date: prepared.stockDate, logger: logger)
        }
        return order
    }

    /// Writes the batch's deferred orders in one statement (`WriteOrders`); one whose window
    /// turned out full is refused, its claim deleted.
    private static func writeDeferred(
        _ drafts: inout [Int: Draft], order keyOrder: [Int], _ connection: PostgresConnection, logger: Logger
    ) async throws {
        let deferred = keyOrder.compactMap { index -> (Int, Prepared)? in
            guard case .deferred(let prepared)? = drafts[index] else { return nil }
            return (index, prepared)
        }
        guard !deferred.isEmpty else { return }
        var numbers: [String: Int] = [:]
        for row in try await connection.rows(WriteOrders(deferred.map(\.1)), logger: logger) {
            let (id, number) = try StoredColumns.decode(row, table: "customerOrder", (String, Int).self)
            numbers[id] = number
        }
        for (index, prepared) in deferred {
            guard let number = numbers[prepared.order.id] else {
                if let key = prepared.placement.key {
                    try await deleteClaim(key, orderID: prepared.order.id, connection, logger: logger)
                }
                drafts[index] = .failed(prepared.windowFull)
                continue
            }
            var order = prepared.order
            order.number = number
            drafts[index] = .placed(order, plan: prepared.plan)
        }
    }

    /// Deletes a refused order's claim on its key, so that nothing of it is left.
    private static func deleteClaim(
        _ key: IdempotencyKey, orderID: String, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.run(
            """
            DELETE FROM idempotencyRecord WHERE tokenId = \(key.tokenID) AND key = \(key.key) AND orderId = \(orderID)
            """, logger: logger)
    }

    /// An order line as `json_to_recordset` reads it (JSON columns as their text).
    struct StoredLine: JSONWritable, Sendable {
        let orderid: String
        let position: Int
        let itemid: String
        let names: String
        let station: String
        let quantity: Int
        let unitprice: Int64
        let linetotal: Int64
        let options: String
        let note: String?

        /// The lines as one JSON array, written with `JSONWriter` (once per order, or per batch).
        static func json(_ lines: [StoredLine]) -> String {
            String(decoding: JSONWriter.encode(lines, capacity: 256 * lines.count), as: UTF8.self)
        }

        func write(to json: inout JSONWriter) {
            json.object { object in
                object.field("itemid", itemid)
                object.field("linetotal", linetotal)
                object.field("names", names)
                object.field("note", note)
                object.field("options", options)
                object.field("orderid", orderid)
                object.field("position", position)
                object.field("quantity", quantity)
                object.field("station", station)
                object.field("unitprice", unitprice)
            }
        }
    }

    /// Takes the batch's feed positions (the transaction's last lock) and writes its tickets and
    /// its new orders' `order.placed` events (`WriteTickets`, one statement); the commit to come
    /// is expected on the listener (`OwnCommits`).
    private static func numberTickets(
        _ drafts: [Int: Draft], _ connection: PostgresConnection, database: PostgresDatabase, ids: RandomID,
        logger: Logger
    ) async throws -> (drafts: [Int: Draft], events: [OrderEvent], own: OwnCommit?) {
        let placed = drafts.keys.sorted().compactMap { index -> (Int, Order, KitchenPlan)? in
            guard case .placed(let order, let plan)? = drafts[index] else { return nil }
            return (index, order, plan)
        }
        // Tickets and events numbered from 1 within the batch; the statement adds the feed's
        // position before them.
        var numbered = drafts
        var tickets: [Ticket] = []
        var events: [OrderEvent] = []
        for (index, order, plan) in placed {
            var order = order
            for planned in plan.tickets {
                order.tickets.append(
                    Ticket(
                        id: ids.timeOrdered("tkt", at: order.createdAt), orderID: order.id, cafeID: order.cafeID,
                        station: planned.station, status: planned.status, sequence: Int64(tickets.count + 1),
                        createdAt: order.createdAt, updatedAt: order.createdAt, prepSeconds: planned.prepSeconds,
                        fireAt: planned.fireAt, firedAt: planned.fireAt == nil ? order.createdAt : nil))
                tickets.append(order.tickets[order.tickets.count - 1])
            }
            // Each new order's event at its last ticket's position (the feed's rule).
            if let last = order.tickets.last {
                events.append(
                    OrderEvent(
                        id: ids.timeOrdered("evt", at: order.createdAt), sequence: last.sequence, previousSequence: nil,
                        orderID: order.id, cafeID: order.cafeID, type: .placed, ticketStatuses: nil,
                        createdAt: order.createdAt))
            }
            numbered[index] = .placed(order, plan: plan)
        }
        guard !tickets.isEmpty else { return (drafts, [], nil) }
        guard let row = try await connection.firstRow(WriteTickets(tickets: tickets, events: events), logger: logger)
        else {
            throw StoredRow.invalid(table: "feedSequence", id: "1", "the row is missing")
        }
        let (before, backend) = try StoredColumns.decode(row, table: "feedSequence", (Int64, Int32).self)
        for (index, _, _) in placed {
            guard case .placed(var order, let plan)? = numbered[index] else { continue }
            for ticket in order.tickets.indices { order.tickets[ticket].sequence += before }
            numbered[index] = .placed(order, plan: plan)
        }
        for event in events.indices { events[event].sequence += before }
        let own = database.ownCommits.expect(
            backend: backend, range: FeedRange(before: before, after: before + Int64(tickets.count)))
        return (numbered, events, own)
    }

    // MARK: - Reading and cancelling

    public func order(id: String) async throws -> Order? {
        try await database.withConnection { connection in
            try await OrderRows.fetchOrder(connection, id: id, logger: self.database.logger)
        }
    }

    public func cancelOrder(id: String) async throws -> Order {
        let now = clock()
        let (order, sequence, event) = try await database.transaction { connection -> (Order, Int64?, OrderEvent?) in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT id, cafeId, number, pickupStart, capacityUnits, cancelledAt, couponId FROM customerOrder
                    WHERE id = \(id) FOR NO KEY UPDATE
                    """, logger: logger)
            else { throw CanteenError.notFound(.order, id) }
            let (_, cafeID, number, pickupStart, units, cancelledAt, couponID) = try StoredColumns.decode(
                row, table: "customerOrder", (String, String, Int, Date, Int, Date?, String?).self)
            let rows = try await connection.rows(
                "\(unescaped: OrderRows.selectTicket) WHERE orderId = \(id) ORDER BY id FOR UPDATE", logger: logger)
            let tickets = try rows.map(OrderRows.ticket)
            if tickets.contains(where: { $0.status == .pickedUp }) {
                throw CanteenError(
                    .conflict, code: .orderNotCancellable,
                    message: "order \(number) has been picked up", parameters: ["status": "picked_up"])
            }
            if cancelledAt != nil {
                guard let order = try await OrderRows.fetchOrder(connection, id: id, logger: logger) else {
                    throw CanteenError.notFound(.order, id)
                }
                return (order, nil, nil)
            }
            try await PostgresPickupCapacityStore.release(
                connection, cafeID: cafeID, windowStart: pickupStart, units: units,
                logger: logger)
            try await PostgresDailyStockStore.giveBack(connection, orderID: id, cafeID: cafeID, logger: logger)
            if let couponID { try await PostgresCouponStore.release(couponID, connection, logger: logger) }
            try await connection.run("UPDATE customerOrder SET cancelledAt = \(now) WHERE id = \(id)", logger: logger)
            let open = tickets.filter(\.status.isOpen)
            var last: Int64?
            if !open.isEmpty {
                var sequence = try await PostgresTicketStore.takeSequences(open.count, connection, logger: logger)
                for ticket in open {
                    try await connection.run(
                        """
                        UPDATE ticket SET status = \(TicketStatus.cancelled.rawValue), sequence = \(sequence), updatedAt = \(now)
                        WHERE id = \(ticket.id)
                        """, logger: logger)
                    last = sequence
                    sequence += 1
                }
            }
            guard let cancelled = try await OrderRows.fetchOrder(connection, id: id, logger: logger) else {
                throw CanteenError.notFound(.order, id)
            }
            var event: OrderEvent?
            if let last {
                event = try await self.events.insertIfStatusChanged(
                    connection, orderID: id, cafeID: cafeID, before: tickets.map(\.status), after: cancelled.tickets,
                    sequence: last, at: now, logger: logger)
            }
            return (cancelled, last, event)
        }
        if let sequence { tickets.published([order.cafeID: sequence]) }
        if let event { events.published([event]) }
        return order
    }

    public func latestOrderCafeID(userID: String) async throws -> String? {
        try await database.withConnection { connection -> String? in
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT cafeId FROM customerOrder WHERE userId = \(userID) ORDER BY createdAt DESC, id DESC LIMIT 1
                    """, logger: self.database.logger)
            else { return nil }
            return try StoredColumns.decode(row, table: "customerOrder", String.self)
        }
    }
}

extension CanteenError {
    static let idempotencyKeyReused = CanteenError(
        .invalid, code: .idempotencyKeyReused,
        message: "this idempotency key was already used with a different request")
}
