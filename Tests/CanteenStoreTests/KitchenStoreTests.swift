import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Kitchen timing in the stores, on SQLite and PostgreSQL: held tickets, the timer, ready times, limited dishes")
struct KitchenStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
    var nine: Date { Fixtures.chicagoMonday(hour: 9) }

    /// The test café with a timed kitchen (grill 8 min, cold 5, bar 2) and a salad of `salads` a day.
    static func timedCafe(salads: Int? = nil) throws -> (cafe: Cafe, menu: Menu) {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        cafe.kitchen = KitchenSettings(
            stations: [
                StationSettings(id: "grill", prepSeconds: 480),
                StationSettings(id: "cold", prepSeconds: 300),
                StationSettings(id: "bar", prepSeconds: 120),
            ], fireByPrepTime: true)
        if let salads { menu.items[2].dailyQuantity = salads }
        return (cafe, menu)
    }

    static func request(
        _ items: [String], pickup: PickupChoice = .asap, name: String = "Ada",
        quantity: Int = 1
    ) -> OrderRequest {
        OrderRequest(
            cafeID: "testcafe",
            lines: items.map {
                OrderLineRequest(itemID: $0, quantity: quantity, options: $0 == "latte" ? ["small"] : [], note: nil)
            },
            pickup: pickup, customer: Customer(name: name, userID: nil))
    }

    func withServers(
        _ backend: StoreBackend, _ count: Int = 1, salads: Int? = nil,
        _ body: ([TestStores]) async throws -> Void
    ) async throws {
        try await backend.withServers(count, clock: clock, onDisk: count > 1) { servers in
            try await servers[0].stores.cafes.importCafes([try Self.timedCafe(salads: salads)])
            try await body(servers)
        }
    }

    func place(_ stores: CanteenStores, _ request: OrderRequest) async throws -> Order {
        guard case .placed(let order) = try await stores.orders.placeOrder(request, key: nil) else {
            throw CanteenError(.internal, code: .internalError, message: "not placed")
        }
        return order
    }

    // MARK: - Held tickets and the timer

    @Test(
        "an order over two stations holds its shorter ticket; the timer fires it once, at its time, through the feed",
        arguments: StoreBackend.available)
    func holdAndFire(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            // Given a burrito (grill, 8 min) and a latte (bar, 2 min) ordered at 09:00
            let order = try await place(stores, Self.request(["burrito", "latte"]))
            // Then the grill ticket fires at once, the bar one is held until 09:06, and it is expected at 09:08
            #expect(order.tickets.map(\.status) == [.new, .held])
            #expect(order.tickets.map(\.fireAt) == [nil, nine + 360])
            #expect(order.tickets.map(\.firedAt) == [nine, nil])
            #expect(order.tickets.map(\.prepSeconds) == [480, 120])
            #expect(order.readyAt == nine + 480)
            #expect(order.status == .placed)
            #expect(try await stores.orders.order(id: order.id) == order)
            // The open feed shows the held ticket; its placed event replays it held
            let open = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: nil, station: "bar", limit: 10)
            #expect(open.tickets.map(\.ticket.status) == [.held])
            let placed = try await stores.orderEvents.events(orderID: order.id, after: 0)
            #expect(placed.map(\.type) == [.placed])
            #expect(placed[0].applied(to: order).tickets.map(\.status) == [.new, .held])

            // When the timer looks before 09:06, nothing fires
            clock.advance(by: 359)
            let early = try await stores.kitchen.fireDueTickets(limit: 10)
            #expect(early.fired.isEmpty)
            #expect(early.nextFireAt == nine + 360)
            let cursor = open.cursor

            // When it looks at 09:06:01, the ticket becomes new with a new feed position, once
            clock.advance(by: 2)
            let round = try await stores.kitchen.fireDueTickets(limit: 10)
            #expect(round.fired.map(\.id) == [order.tickets[1].id])
            #expect(round.fired.first?.status == .new)
            #expect(round.fired.first?.firedAt == nine + 361)
            #expect(round.nextFireAt == nil)
            #expect(try await stores.kitchen.fireDueTickets(limit: 10).fired.isEmpty)
            let changes = try await stores.tickets.ticketChanges(
                cafeID: "testcafe", after: cursor, station: nil, limit: 10)
            #expect(changes.tickets.map(\.ticket.id) == [order.tickets[1].id])
            #expect(changes.tickets.first?.ticket.status == .new)
            #expect(changes.tickets.first?.ticket.sequence ?? 0 > cursor)
            // Firing changes no order status: no event
            #expect(try await stores.orderEvents.events(orderID: order.id, after: 0).count == 1)
            let read = try await stores.orders.order(id: order.id)
            #expect(read?.tickets.map(\.status) == [.new, .new])
            #expect(read?.asPlaced.tickets.map(\.status) == [.new, .held])
        }
    }

    @Test(
        "a server that was not running when a ticket came due fires it as soon as it runs",
        arguments: StoreBackend.available)
    func fireAfterRestart(backend: StoreBackend) async throws {
        // Two store sets on one database: the first places the order and stops; the second starts later
        try await withServers(backend, 2) { servers in
            let order = try await place(servers[0].stores, Self.request(["burrito", "latte"]))
            clock.advance(by: 3600)
            let round = try await servers[1].stores.kitchen.fireDueTickets(limit: 10)
            #expect(round.fired.map(\.id) == [order.tickets[1].id])
            #expect(round.fired.first?.firedAt == nine + 3600)
            let ticket = try await servers[0].stores.tickets.ticket(id: order.tickets[1].id)
            #expect(ticket?.ticket.status == .new)
        }
    }

    @Test("servers firing at the same time fire every held ticket exactly once", arguments: StoreBackend.available)
    func fireOnceAcrossServers(backend: StoreBackend) async throws {
        try await withServers(backend, 3) { servers in
            var held: Set<String> = []
            // Salads queue at the cold station (5 minutes each); each latte is held to finish with its salad.
            for number in 0..<24 {
                let order = try await place(
                    servers[number % 3].stores, Self.request(["salad", "latte"], name: "n\(number)"))
                held.insert(order.tickets[1].id)
            }
            #expect(held.count == 24)
            clock.advance(by: 4 * 3600)
            let fired = try await withThrowingTaskGroup(of: [String].self) { group in
                for server in servers {
                    for _ in 0..<3 {
                        group.addTask {
                            var ids: [String] = []
                            while true {
                                let round = try await server.stores.kitchen.fireDueTickets(limit: 4)
                                ids += round.fired.map(\.id)
                                if round.fired.isEmpty && round.nextFireAt == nil { return ids }
                            }
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(fired.count == 24)
            #expect(Set(fired) == held)
            #expect(try await servers[0].integer("SELECT COUNT(*) FROM ticket WHERE status = 'held'") == 0)
            #expect(try await servers[0].integer("SELECT COUNT(DISTINCT sequence) FROM ticket") == 48)
        }
    }

    // MARK: - Ready times and busy windows

    @Test(
        "ready times follow the grill's queue; a window the queue cannot meet is refused as kitchen_busy",
        arguments: StoreBackend.available)
    func kitchenBusy(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            var ready: [Date] = []
            var windows: [Date] = []
            for number in 0..<4 {
                let order = try await place(stores, Self.request(["burrito"], name: "b\(number)"))
                ready.append(order.readyAt)
                windows.append(order.pickup.start)
            }
            // One grill ticket after another: 09:08, 09:16, 09:24, 09:32; the fourth no longer fits 09:15–09:30
            #expect(ready == [8, 16, 24, 32].map { nine + Double($0) * 60 })
            #expect(windows == [15, 15, 15, 30].map { Fixtures.chicagoMonday(hour: 9, minute: $0) })
            // A burrito for 09:15–09:30 would be ready at 09:40: refused, nothing written
            let first = Fixtures.chicagoMonday(hour: 9, minute: 15)
            await #expect {
                try await stores.orders.placeOrder(Self.request(["burrito"], pickup: .window(start: first)), key: nil)
            } throws: { error in
                (error as? CanteenError)?.code == .kitchenBusy && (error as? CanteenError)?.kind == .conflict
            }
            #expect(try await servers[0].count("customerOrder") == 4)
            // A latte for the same window is fine: the bar is idle
            let latte = try await place(stores, Self.request(["latte"], pickup: .window(start: first)))
            #expect(latte.readyAt == first)
            // The load the estimate came from: four grill tickets waiting, and the latte held until 09:13
            let load = try await stores.kitchen.kitchenLoad(cafeID: "testcafe")
            #expect(load.open.filter { $0.station == "grill" }.count == 4)
            #expect(load.open.first { $0.station == "bar" }?.availableAt == first - 120)
        }
    }

    @Test(
        "the kitchen's times: fired → ready durations of the last hour, and a throughput learnt from them",
        arguments: StoreBackend.available)
    func liveTimes(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            let first = try await place(stores, Self.request(["salad"], name: "one"))
            let second = try await place(stores, Self.request(["salad"], name: "two"))
            clock.advance(by: 60)
            _ = try await stores.tickets.moveTicket(id: first.tickets[0].id, to: .preparing)
            _ = try await stores.tickets.moveTicket(id: second.tickets[0].id, to: .preparing)
            clock.advance(by: 400)
            _ = try await stores.tickets.moveTicket(id: first.tickets[0].id, to: .ready)
            clock.advance(by: 200)
            let moved = try await stores.tickets.moveTicket(id: second.tickets[0].id, to: .ready)
            #expect(moved.ticket.startedAt == nine + 60 && moved.ticket.finishedAt == nine + 660)
            let load = try await stores.kitchen.kitchenLoad(cafeID: "testcafe")
            let report = StationTimes.report(load, stations: ["cold"])
            #expect(report[0].finishedLastHour == 2)
            #expect(report[0].medianSeconds == 460 && report[0].p90Seconds == 660)
            #expect(report[0].openTickets == 2)
            #expect(load.throughput(of: "cold").cooks == 2)
            // A recall clears the finish; an hour later the history is gone
            _ = try await stores.tickets.moveTicket(id: first.tickets[0].id, to: .preparing)
            #expect(try await stores.kitchen.kitchenLoad(cafeID: "testcafe").finished.count == 1)
            clock.advance(by: 3601)
            #expect(try await stores.kitchen.kitchenLoad(cafeID: "testcafe").finished.isEmpty)
        }
    }

    // MARK: - Limited dishes

    @Test(
        "200 orders at once, on two servers, for a dish with 40 left: exactly 40 are placed",
        arguments: StoreBackend.available)
    func exactQuantity(backend: StoreBackend) async throws {
        try await withServers(backend, 2, salads: 40) { servers in
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for number in 0..<200 {
                    let stores = servers[number % 2].stores
                    group.addTask {
                        do {
                            _ = try await stores.orders.placeOrder(
                                Self.request(["salad"], name: "s\(number)"),
                                key: IdempotencyKey(
                                    tokenID: "tok", key: "k\(number)",
                                    requestHash: Data("\(number)".utf8)))
                            return "placed"
                        } catch let error as CanteenError {
                            return "\(error.code.rawValue) \(error.parameters["reason"] ?? "")"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "placed" }.count == 40)
            #expect(outcomes.filter { $0 == "item_unavailable sold_out" }.count == 160)
            let server = servers[0]
            #expect(try await server.count("customerOrder") == 40)
            #expect(try await server.integer("SELECT remaining FROM dailyStock") == 0)
            #expect(try await server.integer("SELECT CAST(SUM(quantity) AS BIGINT) FROM stockTaken") == 40)
            #expect(
                try await server.stores.dailyStock.remaining(
                    cafeID: "testcafe", date: LocalDate(year: 2026, month: 11, day: 23))
                    == ["salad": 0])
        }
    }

    @Test(
        "a cancellation gives back what it took; too many is refused naming what is left; a new day restocks",
        arguments: StoreBackend.available)
    func giveBackAndRestock(backend: StoreBackend) async throws {
        try await withServers(backend, salads: 3) { servers in
            let stores = servers[0].stores
            let today = LocalDate(year: 2026, month: 11, day: 23)
            let two = try await place(stores, Self.request(["salad"], quantity: 2))
            #expect(try await stores.dailyStock.remaining(cafeID: "testcafe", date: today) == ["salad": 1])
            await #expect {
                try await stores.orders.placeOrder(Self.request(["salad", "latte"], quantity: 2), key: nil)
            } throws: { error in
                let error = error as? CanteenError
                return error?.code == .notEnoughLeft && error?.parameters["remaining"] == "1"
                    && error?.field == "lines[0].quantity"
            }
            #expect(try await servers[0].count("customerOrder") == 1)
            _ = try await stores.orders.cancelOrder(id: two.id)
            #expect(try await stores.dailyStock.remaining(cafeID: "testcafe", date: today) == ["salad": 3])
            _ = try await stores.orders.cancelOrder(id: two.id)
            #expect(try await stores.dailyStock.remaining(cafeID: "testcafe", date: today) == ["salad": 3])
            _ = try await place(stores, Self.request(["salad"], quantity: 3))
            await #expect {
                try await stores.orders.placeOrder(Self.request(["salad"]), key: nil)
            } throws: { error in (error as? CanteenError)?.parameters["reason"] == "sold_out" }
            // Ops (or the kitchen) find two more
            let set = try await stores.dailyStock.setRemaining(cafeID: "testcafe", itemID: "salad", remaining: 2)
            #expect(set == ItemStock(cafeID: "testcafe", itemID: "salad", date: today, dailyQuantity: 3, remaining: 2))
            _ = try await place(stores, Self.request(["salad"]))
            await #expect(throws: CanteenError.self) {
                try await stores.dailyStock.setRemaining(cafeID: "testcafe", itemID: "latte", remaining: 2)
            }
            await #expect(throws: CanteenError.notFound(.cafe, "nowhere")) {
                try await stores.dailyStock.setRemaining(cafeID: "nowhere", itemID: "salad", remaining: 2)
            }
            // Tuesday in Chicago: the whole batch again
            clock.set(Fixtures.chicagoMonday(hour: 9).addingTimeInterval(86_400))
            let tuesday = try await place(stores, Self.request(["salad"]))
            #expect(
                try await stores.dailyStock.remaining(
                    cafeID: "testcafe", date: LocalDate(year: 2026, month: 11, day: 24))
                    == ["salad": 2])
            #expect(tuesday.number == 1)
        }
    }
}
