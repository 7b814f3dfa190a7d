import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// Orders placed together share one transaction, which reads the feed sequence, the day's order
/// numbers and the windows' capacity once and writes them back once before its commit.
@Suite("Orders placed in one transaction")
struct PlacementBatchTests {
    static func request(_ items: [String], name: String) -> OrderRequest {
        OrderRequest(
            cafeID: "testcafe",
            lines: items.map {
                OrderLineRequest(
                    itemID: $0, quantity: 1, options: $0 == "latte" ? ["small"] : [],
                    note: nil)
            },
            pickup: .asap, customer: Customer(name: name, userID: nil))
    }

    @Test(
        "concurrent orders take consecutive numbers, sequences, capacity and events; refused ones, even midway, take none"
    )
    func refusedOrdersTakeNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
        let database = try AppDatabase.open(directory: directory)
        let cafes = CafeStore(database: database, clock: clock.closure)
        try await cafes.importCafes([try Fixtures.cafeAndMenu()])
        let events = OrderEventStore(database: database)
        let published = Mutex<[OrderEvent]>([])
        events.onOrderEvents { batch in published.withLock { $0 += batch } }
        let tickets = TicketStore(database: database, events: events, clock: clock.closure)
        let orders = OrderStore(
            database: database, cafes: cafes, tickets: tickets,
            capacity: PickupCapacityStore(
                database: database, planner: PickupWindowPlanner(),
                clock: clock.closure),
            events: events, clock: clock.closure)
        // A salad's ticket cannot be written: such an order fails after taking its number, its
        // capacity and its first ticket's sequence (the latte's, written first).
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuseCold BEFORE INSERT ON ticket WHEN NEW.station = 'cold'
                    BEGIN SELECT RAISE(ABORT, 'no cold tickets today'); END
                    """)
        }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Order?).self) { group in
            for index in 0..<90 {
                group.addTask {
                    let items =
                        switch index % 3 {
                        case 0: ["latte", "burrito"]
                        case 1: ["latte", "salad"]  // refused midway
                        default: ["pizza"]  // refused before anything is taken
                        }
                    let key = IdempotencyKey(tokenID: "tok", key: "k\(index)", requestHash: Data([UInt8(index)]))
                    do {
                        let placement = try await orders.placeOrder(
                            Self.request(items, name: "guest \(index)"), key: key)
                        guard case .placed(let order) = placement else { return (index, nil) }
                        return (index, order)
                    } catch {
                        return (index, nil)
                    }
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let placed = outcomes.filter { $0.key % 3 == 0 }.compactMap(\.value)
        #expect(placed.count == 30)
        #expect(outcomes.filter { $0.key % 3 != 0 }.allSatisfy { $0.value == nil })

        // Numbers 1…30, sequences without a gap, the feed's sequence at the last, capacity of 30 orders.
        #expect(placed.map(\.number).sorted() == Array(1...30))
        let sequences = placed.flatMap { $0.tickets.map(\.sequence) }.sorted()
        #expect(sequences == Array(1...60))
        let stored = try await database.writer.read { db in
            (
                sequence: try Int64.fetchOne(db, sql: "SELECT value FROM feedSequence"),
                tickets: try Int64.fetchAll(db, sql: "SELECT sequence FROM ticket ORDER BY sequence"),
                lastNumber: try Int.fetchOne(db, sql: "SELECT MAX(last) FROM orderNumber"),
                used: try Int.fetchAll(db, sql: "SELECT used FROM pickupSlot ORDER BY start"),
                orders: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customerOrder"),
                keys: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM idempotencyRecord")
            )
        }
        #expect(stored.sequence == 60)
        #expect(stored.tickets == sequences)
        #expect(stored.lastNumber == 30)
        #expect(stored.used == [20, 10])  // capacity 20 per window, taken in order
        #expect(stored.orders == 30)
        #expect(stored.keys == 30)

        // Lines of one item store the same names, written once per transaction: the menu's.
        let storedNames = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT DISTINCT itemId, names FROM orderLine")
        }
        #expect(Set(storedNames.map { $0["itemId"] as String }) == ["latte", "burrito"])
        #expect(storedNames.count == 2)
        for row in storedNames {
            let itemID: String = row["itemId"]
            let line = try #require(placed.flatMap(\.lines).first { $0.itemID == itemID })
            let decoded = try JSONDecoder().decode([String: String].self, from: Data((row["names"] as String).utf8))
            #expect(decoded == line.names.translations)
            #expect(!decoded.isEmpty)
        }

        // One `order.placed` event per placed order, none for a refused one, each at its order's
        // last ticket sequence (the feed sequence the batch handed out), published once committed.
        let expected = Set(placed.map { "\($0.id) \($0.tickets.map(\.sequence).max() ?? 0)" })
        let rows = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT orderId, sequence, type, previousSequence FROM orderEvent")
        }
        #expect(Set(rows.map { "\($0["orderId"] as String) \($0["sequence"] as Int64)" }) == expected)
        #expect(rows.count == 30)
        #expect(rows.allSatisfy { ($0["type"] as String) == OrderEventType.placed.rawValue })
        #expect(rows.allSatisfy { ($0["previousSequence"] as Int64?) == nil })
        #expect(Set(published.withLock { $0 }.map { "\($0.orderID) \($0.sequence)" }) == expected)
        #expect(published.withLock { $0.count } == 30)

        // A ticket move after the batch takes the feed sequence the batch wrote back; its event too.
        let ready = try #require(placed.first { $0.tickets.count == 2 })
        _ = try await tickets.moveTicket(id: ready.tickets[0].id, to: .preparing)
        let moved = try await events.events(orderID: ready.id, after: 0)
        #expect(moved.map(\.sequence) == [ready.tickets.map(\.sequence).max() ?? 0, 61])
        #expect(moved.last?.previousSequence == moved.first?.sequence)

        // The next transaction starts from what this one wrote back.
        let next = try await orders.placeOrder(Self.request(["latte"], name: "later"), key: nil)
        guard case .placed(let order) = next else { Issue.record("not placed"); return }
        #expect(order.number == 31)
        #expect(order.tickets.map(\.sequence) == [62])
        #expect(try await events.events(orderID: order.id, after: 0).map(\.sequence) == [62])
    }
}
