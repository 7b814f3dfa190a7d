import CanteenApp
import CanteenCore
import CanteenPersistence
import CanteenPostgres
import CanteenTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Ticket feed store, on SQLite and PostgreSQL: the cursor never skips")
struct TicketFeedStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    func withServers(_ backend: StoreBackend, _ count: Int = 1, _ body: ([TestStores]) async throws -> Void)
        async throws
    {
        try await backend.withServers(count, clock: clock, onDisk: count > 1) { servers in
            var (cafe, menu) = try Fixtures.cafeAndMenu()
            cafe.pickup.capacity = 10_000
            try await servers[0].stores.cafes.importCafes([
                (cafe, menu), try Fixtures.cafeAndMenu(id: "othercafe", major: 901),
            ])
            try await body(servers)
        }
    }

    @Test(
        "a move takes the next position; a move the state machine forbids names the current state",
        arguments: StoreBackend.available)
    func moves(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            guard
                case .placed(let order) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(["latte"]), key: nil)
            else { return }
            let ticket = order.tickets[0]
            let moved = try await stores.tickets.moveTicket(id: ticket.id, to: .preparing)
            #expect(moved.ticket.sequence == ticket.sequence + 1)
            #expect(moved.orderNumber == order.number)
            #expect(moved.lines.map(\.itemID) == ["latte"])
            let refused = await #expect(throws: CanteenError.self) {
                try await stores.tickets.moveTicket(id: ticket.id, to: .pickedUp)
            }
            #expect(refused?.code == .invalidTransition)
            #expect(try await stores.tickets.ticket(id: ticket.id) == moved)
            await #expect(throws: CanteenError.notFound(.ticket, "tkt_nope")) {
                try await stores.tickets.moveTicket(id: "tkt_nope", to: .ready)
            }
        }
    }

    @Test(
        "open tickets counted in one read: by station and status, their orders, the oldest not yet ready",
        arguments: StoreBackend.available)
    func openCounts(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            // Given three orders: latte+salad, salad, latte; and one of another café.
            var placed: [Order] = []
            for items in [["latte", "salad"], ["salad"], ["latte"]] {
                clock.advance(by: 60)
                if case .placed(let order) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(items), key: nil)
                {
                    placed.append(order)
                }
            }
            var other = OrderStoreTests.request()
            other.cafeID = "othercafe"
            _ = try await stores.orders.placeOrder(other, key: nil)
            #expect(placed.count == 3)
            // When the first order's tickets are ready, the third's latte is picked up, the second's salad preparing.
            for ticket in placed[0].tickets {
                _ = try await stores.tickets.moveTicket(id: ticket.id, to: .preparing)
                _ = try await stores.tickets.moveTicket(id: ticket.id, to: .ready)
            }
            _ = try await stores.tickets.moveTicket(id: placed[1].tickets[0].id, to: .preparing)
            let latte = placed[2].tickets[0].id
            for status in [TicketStatus.preparing, .ready, .pickedUp] {
                _ = try await stores.tickets.moveTicket(id: latte, to: status)
            }

            // Then the counts are the open tickets' (picked up and the other café's left out), as the full read says.
            let counts = try await stores.tickets.openTicketCounts(cafeID: "testcafe")
            #expect(counts.byStation == ["bar": [.ready: 1], "cold": [.ready: 1, .preparing: 1]])
            #expect(counts.tickets == 3)
            #expect(counts.orders == 2)
            let oldest = try #require(counts.oldestNotReady)
            #expect(abs(oldest.timeIntervalSince(placed[1].tickets[0].createdAt)) < 0.001)
            let open = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: nil, station: nil, limit: 500)
            #expect(open.tickets.count == counts.tickets)
            #expect(
                try await stores.tickets.openTicketCounts(cafeID: "nowhere")
                    == OpenTicketCounts(
                        byStation: [:], orders: 0, oldestNotReady: nil))
        }
    }

    @Test(
        "a page lists changes after the cursor by station; its cursor is the feed's head when not full",
        arguments: StoreBackend.available)
    func pages(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            var placed: [Order] = []
            for items in [["latte", "salad"], ["salad"], ["latte"]] {
                if case .placed(let order) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(items), key: nil)
                {
                    placed.append(order)
                }
            }
            var other = OrderStoreTests.request()
            other.cafeID = "othercafe"
            _ = try await stores.orders.placeOrder(other, key: nil)
            let open = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: nil, station: nil, limit: 500)
            #expect(open.tickets.count == 4)
            #expect(open.cursor == 5)
            let bar = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: 0, station: "bar", limit: 500)
            #expect(bar.tickets.map(\.ticket.orderID) == [placed[0].id, placed[2].id])
            let firstTwo = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: 0, station: nil, limit: 2)
            #expect(firstTwo.cursor == 2)
            let rest = try await stores.tickets.ticketChanges(
                cafeID: "testcafe", after: firstTwo.cursor, station: nil, limit: 2)
            #expect(rest.tickets.map(\.ticket.sequence) == [3, 4])
            let head = try await stores.tickets.changes(after: 3)
            #expect(head == FeedHead(latest: 5, cafes: ["testcafe": 4, "othercafe": 5]))
            _ = try await stores.tickets.moveTicket(id: placed[0].tickets[0].id, to: .cancelled)
            let open2 = try await stores.tickets.ticketChanges(cafeID: "testcafe", after: nil, station: nil, limit: 500)
            #expect(open2.tickets.count == 3)
        }
    }

    @Test(
        "changes and order events far apart in the feed (more than 10,000 positions between them) are all found, in pages",
        arguments: StoreBackend.available)
    func farApart(backend: StoreBackend) async throws {
        try await withServers(backend) { servers in
            let stores = servers[0].stores
            var placed: [Order] = []
            for _ in 0..<2 {
                guard case .placed(let order) = try await stores.orders.placeOrder(OrderStoreTests.request(), key: nil)
                else {
                    Issue.record("not placed")
                    return
                }
                placed.append(order)
                // Positions taken by nobody this feed shows (as many as years of ticket moves).
                try await servers[0].execute("UPDATE feedSequence SET value = value + 25000 WHERE id = 1")
            }
            let (first, second) = (placed[0].tickets[0].sequence, placed[1].tickets[0].sequence)
            #expect(second > first + 25_000)
            let head = try #require(try await servers[0].integer("SELECT value FROM feedSequence WHERE id = 1"))
            #expect(try await stores.tickets.changes(after: 0) == FeedHead(latest: head, cafes: ["testcafe": second]))
            #expect(try await stores.tickets.changes(after: second) == FeedHead(latest: head, cafes: [:]))
            #expect(try await stores.orderEvents.events(after: 0, limit: 10).map(\.sequence) == [first, second])
            #expect(try await stores.orderEvents.events(after: 0, limit: 1).map(\.sequence) == [first])
            #expect(try await stores.orderEvents.events(after: first, limit: 10).map(\.sequence) == [second])
            #expect(try await stores.orderEvents.events(after: second, limit: 10).isEmpty)
        }
    }

    @Test(
        "two servers writing at once, commits landing out of order: a reader following the cursor sees every change exactly once",
        arguments: StoreBackend.available)
    func neverSkips(backend: StoreBackend) async throws {
        try await withServers(backend, 2) { servers in
            let observation = FeedObservation()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, server) in servers.enumerated() {
                    for writer in 0..<4 {
                        group.addTask {
                            for number in 0..<25 {
                                let request = OrderStoreTests.request(
                                    number % 3 == 0 ? ["latte", "salad"] : ["salad"],
                                    name: "s\(index)w\(writer)n\(number)")
                                guard
                                    case .placed(let order) = try await server.stores.orders.placeOrder(
                                        request, key: nil)
                                else { continue }
                                observation.written.withLock {
                                    $0.formUnion(order.tickets.map { "\($0.id)@\($0.sequence)" })
                                }
                                if number % 5 == 0 {
                                    let moved = try await server.stores.tickets.moveTicket(
                                        id: order.tickets[0].id, to: .preparing)
                                    observation.written.withLock {
                                        _ = $0.insert("\(moved.ticket.id)@\(moved.ticket.sequence)")
                                    }
                                }
                            }
                        }
                    }
                }
                // The reader, on the first server, pages with small pages while the writers run.
                let reader = Task {
                    var cursor: Int64 = 0
                    var idle = 0
                    while observation.writing.load(ordering: .acquiring) || idle < 2 {
                        let page = try await servers[0].stores.tickets.ticketChanges(
                            cafeID: "testcafe", after: cursor,
                            station: nil, limit: 7)
                        observation.seen.withLock { $0 += page.tickets.map { "\($0.ticket.id)@\($0.ticket.sequence)" } }
                        cursor = page.cursor
                        idle = observation.writing.load(ordering: .acquiring) || !page.tickets.isEmpty ? 0 : idle + 1
                        if page.tickets.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
                    }
                }
                try await group.waitForAll()
                observation.writing.store(false, ordering: .releasing)
                try await reader.value
            }
            let all = observation.written.withLock { $0 }
            let observed = observation.seen.withLock { $0 }
            // A ticket moved before the reader came by shows once, as it is now: its latest change
            // must be seen, every change seen must be real, none twice.
            var latest: [String: Int64] = [:]
            for change in all {
                let (id, sequence) = Self.split(change)
                latest[id] = max(latest[id] ?? 0, sequence)
            }
            let finals = Set(latest.map { "\($0.key)@\($0.value)" })
            #expect(all.count >= 200)
            #expect(observed.count == Set(observed).count, "a change was seen twice")
            #expect(Set(observed).isSubset(of: all), "a change was seen that nobody wrote")
            #expect(finals.isSubset(of: Set(observed)), "changes skipped: \(finals.subtracting(observed).sorted())")
        }
    }

    static func split(_ change: String) -> (String, Int64) {
        let parts = change.split(separator: "@")
        return (String(parts[0]), Int64(parts[1]) ?? 0)
    }

    @Test(
        "a change committed on another server reaches this server's observers (a notification, then a re-read)",
        arguments: StoreBackend.postgresOnly)
    func notifiedAcrossServers(backend: StoreBackend) async throws {
        try await withServers(backend, 2) { servers in
            let observation = FeedObservation()
            servers[1].stores.tickets.onTicketChanges { changes in
                observation.heard.withLock { $0.merge(changes) { max($0, $1) } }
            }
            try await eventually("the second server never listened") {
                servers[1].stores.postgresDatabase?.changes.isFollowing == true
            }
            guard
                case .placed(let order) = try await servers[0].stores.orders.placeOrder(
                    OrderStoreTests.request(), key: nil)
            else { return }
            try await eventually("the second server was never told of the order") {
                observation.heard.withLock { $0["testcafe"] } == order.tickets[0].sequence
            }
        }
    }
}

/// What a feed test's writers, reader and observers record, shared between their tasks.
final class FeedObservation: Sendable {
    /// `ticket@sequence` of every change the writers committed.
    let written = Mutex<Set<String>>([])
    /// `ticket@sequence` of every change the reader was given, in order.
    let seen = Mutex<[String]>([])
    let writing = Atomic<Bool>(true)
    /// Café → latest sequence, as the observers heard it.
    let heard = Mutex<[String: Int64]>([:])
}
