import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Order store, on SQLite and PostgreSQL: capacity, idempotency, numbering across servers")
struct OrderStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// The first window the test café offers at 09:00 (lead time 10 minutes, 15-minute slots of 20 orders).
    var firstWindow: Date { Fixtures.chicagoMonday(hour: 9, minute: 15) }

    static func request(
        _ items: [String] = ["salad"], pickup: PickupChoice = .asap, name: String = "Ada",
        userID: String? = nil
    ) -> OrderRequest {
        OrderRequest(
            cafeID: "testcafe",
            lines: items.map {
                OrderLineRequest(itemID: $0, quantity: 1, options: $0 == "latte" ? ["small"] : [], note: nil)
            },
            pickup: pickup, customer: Customer(name: name, userID: userID))
    }

    static func key(_ key: String, token: String = "tok_kiosk", body: String = "body") -> IdempotencyKey {
        IdempotencyKey(tokenID: token, key: key, requestHash: Data(body.utf8), answerLanguage: "en")
    }

    /// Runs `body` with `count` servers on one fresh database holding the test café.
    func withServers(_ backend: StoreBackend, _ count: Int = 1, _ body: ([TestStores]) async throws -> Void)
        async throws
    {
        try await backend.withServers(count, clock: clock, onDisk: count > 1) { servers in
            try await servers[0].stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            try await body(servers)
        }
    }

    @Test(
        "an order is priced, numbered, windowed and ticketed per station, and reads back the same",
        arguments: StoreBackend.available)
    func placeAndRead(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            guard
                case .placed(let order) = try await stores.orders.placeOrder(
                    Self.request(["latte", "salad"]), key: nil)
            else {
                Issue.record("not placed")
                return
            }
            #expect(order.number == 1)
            #expect(order.pickup.start == firstWindow)
            #expect(order.subtotal.minorUnits == 450 + 750)
            #expect(order.tickets.map(\.station) == ["bar", "cold"])
            #expect(Set(order.tickets.map(\.sequence)).count == 2)
            #expect(try await stores.orders.order(id: order.id) == order)
            #expect(try await stores.orders.latestOrderCafeID(userID: "nobody") == nil)
            let windows = try await stores.pickupCapacity.pickupWindows(
                of: try Fixtures.cafeAndMenu().cafe,
                date: LocalDate(clock.now, in: try Fixtures.cafeAndMenu().cafe.calendar))
            #expect(windows.first?.remaining == 19)
        }
    }

    @Test(
        "an item's names and options with quotes, slashes, controls, emoji and right-to-left text are stored as the menu has them, on every line",
        arguments: StoreBackend.available)
    func namesStoredAsTheMenuHasThem(backend: StoreBackend) async throws {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        let tricky = LocalizedText([
            "en": "Say \"hi\" \\ back/slash\n\ttab \u{01}", "ja": "抹茶ラテ 🍵", "ar": "\u{200F}شاي بالحليب",
        ])
        let index = try #require(menu.items.firstIndex { $0.id == "latte" })
        menu.items[index].names = tricky
        for group in menu.items[index].modifierGroups.indices {
            for option in menu.items[index].modifierGroups[group].options.indices {
                menu.items[index].modifierGroups[group].options[option].names = tricky
            }
        }
        try await backend.withServers(1, clock: clock, onDisk: false) { servers in
            let stores = servers[0].stores
            try await stores.cafes.importCafes([(cafe, menu)])
            // Two lines of the latte in one order, and a second order sent at once (most often in
            // the same batch: the names are written once per batch).
            let placements = try await withThrowingTaskGroup(of: OrderPlacement.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await stores.orders.placeOrder(Self.request(["latte", "salad", "latte"]), key: nil)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for placement in placements {
                guard case .placed(let order) = placement else {
                    Issue.record("not placed: \(placement)")
                    continue
                }
                let lattes = order.lines.filter { $0.itemID == "latte" }
                #expect(lattes.count == 2)
                #expect(lattes.allSatisfy { $0.names == tricky && $0.options.allSatisfy { $0.names == tricky } })
                #expect(lattes.allSatisfy { !$0.options.isEmpty })
                #expect(try await stores.orders.order(id: order.id) == order)
            }
        }
    }

    @Test(
        "orders sent at once to two servers never overbook a window: exactly its capacity is placed",
        arguments: StoreBackend.available)
    func exactCapacity(backend: StoreBackend) async throws {
        try await withServers(backend, 2) { servers in
            let window = firstWindow
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for number in 0..<30 {
                    let stores = servers[number % 2].stores
                    group.addTask {
                        do {
                            _ = try await stores.orders.placeOrder(
                                Self.request(pickup: .window(start: window), name: "n\(number)"),
                                key: Self.key("k\(number)"))
                            return "placed"
                        } catch let error as CanteenError {
                            return error.code.rawValue
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "placed" }.count == 20)
            #expect(outcomes.filter { $0 == "pickup_window_full" }.count == 10)
            let server = servers[0]
            #expect(try await server.count("customerOrder") == 20)
            #expect(try await server.integer("SELECT used FROM pickupSlot") == 20)
            #expect(try await server.integer("SELECT COUNT(DISTINCT number) FROM customerOrder") == 20)
            #expect(try await server.integer("SELECT MAX(number) FROM customerOrder") == 20)
            #expect(try await server.count("idempotencyRecord") == 20)
        }
    }

    @Test(
        "a key retried on another server replays the first order; another request under it is idempotency_key_reused",
        arguments: StoreBackend.available)
    func replayAcrossServers(backend: StoreBackend) async throws {
        try await withServers(backend, 2) { servers in
            let first = try await servers[0].stores.orders.placeOrder(Self.request(), key: Self.key("retry"))
            guard case .placed(let order) = first else {
                Issue.record("not placed: \(first)")
                return
            }
            let retried = try await servers[1].stores.orders.placeOrder(Self.request(), key: Self.key("retry"))
            #expect(retried == .replayed(order.asPlaced, answerLanguage: "en"))
            await #expect(throws: CanteenError.self) {
                try await servers[1].stores.orders.placeOrder(
                    Self.request(["latte"]), key: Self.key("retry", body: "other"))
            }
            let probe = servers[0]
            #expect(try await probe.count("customerOrder") == 1)
        }
    }

    @Test(
        "the same key in flight on two servers at once places one order, and both answers name it",
        arguments: StoreBackend.available)
    func sameKeyInFlight(backend: StoreBackend) async throws {
        try await withServers(backend, 2) { servers in
            for round in 0..<5 {
                let placements = try await withThrowingTaskGroup(of: OrderPlacement.self) { group in
                    for server in servers {
                        group.addTask {
                            try await server.stores.orders.placeOrder(Self.request(), key: Self.key("race-\(round)"))
                        }
                    }
                    return try await group.reduce(into: [OrderPlacement]()) { $0.append($1) }
                }
                let ids = placements.map { placement -> String? in
                    switch placement {
                    case .placed(let order), .replayed(let order, _): order.id
                    case .replayedAnswer: nil
                    }
                }
                #expect(Set(ids).count == 1, "round \(round): \(placements)")
                #expect(placements.filter { if case .placed = $0 { true } else { false } }.count == 1)
            }
            let probe = servers[0]
            #expect(try await probe.count("customerOrder") == 5)
        }
    }

    @Test(
        "orders placed together (a key twice, a key held already, keys of two tokens, with and without an answer language): one order per key, replays in the first answer's language",
        arguments: StoreBackend.available)
    func keysPlacedTogether(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            guard case .placed(let held) = try await stores.orders.placeOrder(Self.request(), key: Self.key("held"))
            else {
                Issue.record("not placed")
                return
            }
            let keys = [
                Self.key("twice"), Self.key("twice"), Self.key("held"), Self.key("twice", token: "tok_other"),
                IdempotencyKey(tokenID: "tok_kiosk", key: "bare", requestHash: Data("body".utf8)),
                IdempotencyKey(
                    tokenID: "tok_kiosk", key: "arabic", requestHash: Data("body".utf8), answerLanguage: "ar"),
            ]
            let placements = try await withThrowingTaskGroup(of: (Int, OrderPlacement).self) { group in
                for (index, key) in keys.enumerated() {
                    group.addTask { (index, try await stores.orders.placeOrder(Self.request(), key: key)) }
                }
                return try await group.reduce(into: [Int: OrderPlacement]()) { $0[$1.0] = $1.1 }
            }
            func order(_ placement: OrderPlacement?) -> Order? {
                switch placement {
                case .placed(let order)?, .replayed(let order, _)?: order
                default: nil
                }
            }
            let twice = [placements[0], placements[1]]
            #expect(twice.filter { if case .placed = $0 { true } else { false } }.count == 1, "\(twice)")
            #expect(Set(twice.compactMap { order($0)?.id }).count == 1)
            #expect(placements[2] == .replayed(held.asPlaced, answerLanguage: "en"))
            #expect(order(placements[3])?.id != order(placements[0])?.id)
            for index in [3, 4, 5] {
                guard case .placed = placements[index] else {
                    Issue.record("\(keys[index].key) was not placed: \(String(describing: placements[index]))")
                    continue
                }
            }
            // Each key's replay is in the language its first answer was given in, or none.
            for (index, language) in [(4, nil), (5, "ar")] as [(Int, String?)] {
                let again = try await stores.orders.placeOrder(Self.request(), key: keys[index])
                #expect(again == .replayed(try #require(order(placements[index])).asPlaced, answerLanguage: language))
            }
            #expect(try await servers[0].count("customerOrder") == 5)
            #expect(try await servers[0].count("idempotencyRecord") == 5)
        }
    }

    @Test("refused orders in a batch leave no trace and do not stop the others", arguments: StoreBackend.available)
    func refusedInBatch(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for number in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await stores.orders.placeOrder(
                                Self.request(number % 4 == 0 ? ["nosuch"] : ["salad"]),
                                key: Self.key("b\(number)"))
                            return true
                        } catch is CanteenError {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 15)
            let probe = server
            #expect(try await probe.count("customerOrder") == 15)
            #expect(try await probe.count("idempotencyRecord") == 15)
            #expect(try await probe.count("ticket") == 15)
            #expect(try await probe.integer("SELECT used FROM pickupSlot") == 15)
            #expect(try await probe.integer("SELECT MAX(number) FROM customerOrder") == 15)
        }
    }

    @Test(
        "cancelling frees the capacity and cancels the open tickets once; a picked-up order is not cancellable",
        arguments: StoreBackend.available)
    func cancel(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            guard
                case .placed(let order) = try await stores.orders.placeOrder(
                    Self.request(["latte", "salad"]), key: nil),
                case .placed(let other) = try await stores.orders.placeOrder(Self.request(), key: nil)
            else {
                Issue.record("not placed")
                return
            }
            let cancelled = try await stores.orders.cancelOrder(id: order.id)
            #expect(cancelled.tickets.allSatisfy { $0.status == .cancelled })
            #expect(cancelled.tickets.map(\.sequence).min()! > other.tickets[0].sequence)
            #expect(try await stores.orders.cancelOrder(id: order.id) == cancelled)
            let probe = server
            #expect(try await probe.integer("SELECT used FROM pickupSlot") == 1)
            for status in [TicketStatus.preparing, .ready, .pickedUp] {
                _ = try await stores.tickets.moveTicket(id: other.tickets[0].id, to: status)
            }
            let refused = await #expect(throws: CanteenError.self) { try await stores.orders.cancelOrder(id: other.id) }
            #expect(refused?.code == .orderNotCancellable)
            await #expect(throws: CanteenError.notFound(.order, "ord_nope")) {
                try await stores.orders.cancelOrder(id: "ord_nope")
            }
        }
    }

    @Test(
        "orders for two cafés sent at once (batches holding both) all place, each café numbering its own",
        arguments: StoreBackend.available)
    func twoCafesAtOnce(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu(id: "othercafe", major: 901)])
            let placements = try await withThrowingTaskGroup(of: OrderPlacement.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        var request = Self.request(["latte"], name: "guest \(index)")
                        if index.isMultiple(of: 2) { request.cafeID = "othercafe" }
                        return try await stores.orders.placeOrder(request, key: nil)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var numbers: [String: [Int]] = [:]
            for placement in placements {
                guard case .placed(let order) = placement else {
                    Issue.record("not placed: \(placement)")
                    continue
                }
                numbers[order.cafeID, default: []].append(order.number)
                #expect(try await stores.orders.order(id: order.id) == order)
            }
            #expect(numbers.mapValues { $0.sorted() } == ["testcafe": Array(1...12), "othercafe": Array(1...12)])
        }
    }

    @Test("the café of a user's latest order is found, cancelled orders included", arguments: StoreBackend.available)
    func latestCafe(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu(id: "othercafe", major: 901)])
            _ = try await stores.orders.placeOrder(Self.request(userID: "ana"), key: nil)
            clock.advance(by: 60)
            var request = Self.request(userID: "ana")
            request.cafeID = "othercafe"
            guard case .placed(let later) = try await stores.orders.placeOrder(request, key: nil) else { return }
            _ = try await stores.orders.cancelOrder(id: later.id)
            #expect(try await stores.orders.latestOrderCafeID(userID: "ana") == "othercafe")
        }
    }

    @Test(
        "idempotency records older than the cutoff are purged; the key then places a new order",
        arguments: StoreBackend.available)
    func purge(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            _ = try await stores.orders.placeOrder(Self.request(), key: Self.key("old"))
            clock.advance(by: 3600)
            _ = try await stores.orders.placeOrder(Self.request(), key: Self.key("new"))
            #expect(try await stores.idempotency.purgeIdempotencyKeys(createdBefore: clock.now - 60) == 1)
            guard case .placed = try await stores.orders.placeOrder(Self.request(), key: Self.key("old")) else {
                Issue.record("a purged key replayed")
                return
            }
            guard case .replayed = try await stores.orders.placeOrder(Self.request(), key: Self.key("new")) else {
                Issue.record("a kept key did not replay")
                return
            }
        }
    }

    @Test("an order row whose currency does not parse is an error naming the row", arguments: StoreBackend.available)
    func corruptOrder(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let server = servers[0]
            let stores = server.stores
            guard case .placed(let order) = try await stores.orders.placeOrder(Self.request(), key: nil) else { return }
            let probe = server
            try await probe.execute("UPDATE customerOrder SET currency = 'XXQ'")
            await #expect {
                _ = try await stores.orders.order(id: order.id)
            } throws: { error in
                let error = try #require(error as? CanteenError)
                return error.code == .storedDataInvalid && error.message.contains(order.id)
                    && error.message.contains("XXQ")
            }
            try await probe.execute("UPDATE ticket SET status = 'burnt'")
            await #expect {
                _ = try await stores.tickets.ticket(id: order.tickets[0].id)
            } throws: { error in
                let error = try #require(error as? CanteenError)
                return error.code == .storedDataInvalid && error.message.contains(order.tickets[0].id)
            }
        }
    }
}
