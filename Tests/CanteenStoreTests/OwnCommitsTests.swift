import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Synchronization
import Testing

@testable import CanteenPostgres

/// A PostgreSQL server hears every server's `tickets` notifications. Its own batches of orders,
/// told to its observers when they commit, need no read after theirs (`OwnCommits`); another
/// server's commit, or one of its own that was not told, is read.
@Suite("PostgreSQL: a server's own batches need no read after their notification")
struct OwnCommitsTests {
    /// What the registry asked the followers to do.
    final class Followed: Sendable {
        let caughtUp = Mutex<[FeedRange]>([])
        let missed = Atomic<Int>(0)

        func registry() -> OwnCommits {
            OwnCommits(
                caughtUp: { range in self.caughtUp.withLock { $0.append(range) } },
                missed: { self.missed.add(1, ordering: .relaxed) })
        }
    }

    @Test("a batch is caught up once it is both notified and told, in either order")
    func notifiedAndTold() {
        let followed = Followed()
        let registry = followed.registry()
        let first = registry.expect(backend: 7, range: FeedRange(before: 10, after: 12))
        #expect(registry.heard(backend: 7))
        #expect(followed.caughtUp.withLock { $0 }.isEmpty, "caught up before its observers were told")
        first.told()
        let second = registry.expect(backend: 7, range: FeedRange(before: 12, after: 15))
        second.told()
        #expect(followed.caughtUp.withLock { $0 } == [FeedRange(before: 10, after: 12)])
        #expect(registry.heard(backend: 7))
        #expect(
            followed.caughtUp.withLock { $0 } == [FeedRange(before: 10, after: 12), FeedRange(before: 12, after: 15)])
        #expect(registry.waiting == 0)
        #expect(followed.missed.load(ordering: .relaxed) == 0)
    }

    @Test("another backend's notification, or one more than a backend's batches, is read")
    func othersAreRead() {
        let followed = Followed()
        let registry = followed.registry()
        let batch = registry.expect(backend: 7, range: FeedRange(before: 0, after: 1))
        #expect(!registry.heard(backend: 8))
        #expect(registry.heard(backend: 7))
        #expect(!registry.heard(backend: 7), "a second notification taken for the same batch")
        batch.told()
        #expect(followed.caughtUp.withLock { $0 } == [FeedRange(before: 0, after: 1)])
    }

    @Test("a backend's batches are matched to its notifications in the order they commit")
    func inOrder() {
        let followed = Followed()
        let registry = followed.registry()
        let first = registry.expect(backend: 7, range: FeedRange(before: 0, after: 2))
        let other = registry.expect(backend: 9, range: FeedRange(before: 2, after: 3))
        let second = registry.expect(backend: 7, range: FeedRange(before: 3, after: 5))
        for batch in [first, other, second] { batch.told() }
        #expect(registry.heard(backend: 7))
        #expect(registry.heard(backend: 9))
        #expect(registry.heard(backend: 7))
        #expect(
            followed.caughtUp.withLock { $0 } == [
                FeedRange(before: 0, after: 2), FeedRange(before: 2, after: 3), FeedRange(before: 3, after: 5),
            ])
    }

    @Test("a batch dropped untold is forgotten before its notification, and read after it (it committed)")
    func droppedUntold() {
        let followed = Followed()
        let registry = followed.registry()
        // Its COMMIT failed: no notification comes; the next one from that backend is not its.
        var failed: OwnCommit? = registry.expect(backend: 7, range: FeedRange(before: 0, after: 1))
        #expect(failed != nil)
        failed = nil
        #expect(registry.waiting == 0)
        #expect(!registry.heard(backend: 7))
        #expect(followed.missed.load(ordering: .relaxed) == 0)
        // Its COMMIT's answer was lost (or it was abandoned at a deadline) but it committed.
        var lost: OwnCommit? = registry.expect(backend: 7, range: FeedRange(before: 1, after: 2))
        #expect(registry.heard(backend: 7))
        #expect(lost != nil)
        lost = nil
        #expect(followed.missed.load(ordering: .relaxed) == 1)
        #expect(followed.caughtUp.withLock { $0 }.isEmpty)
        #expect(registry.waiting == 0)
    }

    @Test("a batch told but never notified waits for its notification; a listener starting again forgets every batch")
    func listenerStartsAgain() {
        let followed = Followed()
        let registry = followed.registry()
        var told: OwnCommit? = registry.expect(backend: 7, range: FeedRange(before: 0, after: 1))
        told?.told()
        told = nil
        let inFlight = registry.expect(backend: 8, range: FeedRange(before: 1, after: 2))
        #expect(registry.waiting == 2)
        registry.listening()
        #expect(registry.waiting == 0)
        // After a restart the same process ids may be other servers' backends: read.
        #expect(!registry.heard(backend: 7))
        #expect(!registry.heard(backend: 8))
        inFlight.told()
        #expect(followed.caughtUp.withLock { $0 }.isEmpty)
        #expect(followed.missed.load(ordering: .relaxed) == 0)
    }

    @Test("batches told whose notifications never come are forgotten past a limit, and read")
    func bounded() {
        let followed = Followed()
        let registry = followed.registry()
        for position in 0..<Int64(OwnCommits.limit) {
            registry.expect(backend: 7, range: FeedRange(before: position, after: position + 1)).told()
        }
        #expect(registry.waiting == OwnCommits.limit)
        #expect(followed.missed.load(ordering: .relaxed) == 0)
        let next = registry.expect(backend: 7, range: FeedRange(before: 5000, after: 5001))
        #expect(registry.waiting == 1)
        #expect(followed.missed.load(ordering: .relaxed) == 1)
        #expect(registry.heard(backend: 7))
        next.told()
        #expect(followed.caughtUp.withLock { $0 } == [FeedRange(before: 5000, after: 5001)])
    }

    @Test("a follower moves past a batch only from right before it, and reads never move it back")
    func followedPosition() {
        let unread = FollowedPosition(nil)
        #expect(!unread.caughtUp(FeedRange(before: 0, after: 2)), "moved before it knew where the feed stood")
        #expect(unread.current == nil)
        let position = FollowedPosition(10)
        #expect(!position.caughtUp(FeedRange(before: 12, after: 15)), "moved past unread positions 11 and 12")
        #expect(position.current == 10)
        #expect(position.caughtUp(FeedRange(before: 10, after: 12)))
        #expect(position.current == 12)
        #expect(position.caughtUp(FeedRange(before: 11, after: 12)), "a range already read is caught up")
        #expect(position.current == 12)
        position.read(through: 20)
        position.read(through: 15)
        #expect(position.current == 20)
        unread.read(through: 7)
        #expect(unread.current == 7)
    }

    @Test("a batch caught up by some followers and not others is read")
    func someFollowersBehind() async throws {
        let followers = TicketFollowers()
        let asked = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        for behind in [false, true] {
            followers.add(
                TicketFollowers.Follower(
                    read: { reads.add(1, ordering: .relaxed) },
                    caughtUp: { _ in
                        asked.add(1, ordering: .relaxed)
                        return !behind
                    }))
        }
        let running = Task { await followers.run() }
        defer { running.cancel() }
        followers.caughtUp(FeedRange(before: 0, after: 1))
        #expect(asked.load(ordering: .relaxed) == 2, "a follower was not moved")
        try await eventually("the followers never read") { followers.current.reads == 1 }
        #expect(reads.load(ordering: .relaxed) == 2)
        #expect(followers.current.ownBatches == 0)
    }

    @Test(
        "a server's own orders reach its observers once, without a read; another server's order is read, once",
        arguments: StoreBackend.postgresOnly)
    func ownBatchesUnread(backend: StoreBackend) async throws {
        let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            var (cafe, menu) = try Fixtures.cafeAndMenu()
            cafe.pickup.capacity = 10_000
            try await servers[0].stores.cafes.importCafes([(cafe, menu)])
            let heard = servers.map { _ in Heard() }
            for (index, server) in servers.enumerated() {
                let heard = heard[index]
                server.stores.orderEvents.onOrderEvents { events in
                    heard.orders.withLock { $0 += events.map(\.orderID) }
                }
                server.stores.tickets.onTicketChanges { latest in
                    heard.latest.withLock { $0 = max($0, latest["testcafe"] ?? 0) }
                }
            }
            func counts(_ index: Int) throws -> FollowCounts {
                try #require(servers[index].stores.postgresDatabase).followCounts
            }
            // Both listen and have read once, as every server does when its listener starts.
            try await eventually("a server never read the feed when it started listening") {
                try counts(0).reads >= 1 && counts(1).reads >= 1
            }
            let readsBefore = try counts(0).reads

            var placed: [Order] = []
            for number in 0..<5 {
                guard
                    case .placed(let order) = try await servers[0].stores.orders.placeOrder(
                        OrderStoreTests.request(["latte"], name: "own \(number)"), key: nil)
                else { throw PlacementRefused() }
                placed.append(order)
            }
            let last = try #require(placed.last?.tickets.last?.sequence)
            try await eventually("the server's own batches were never caught up") { try counts(0).ownBatches == 5 }
            #expect(try counts(0).reads == readsBefore, "the server read after its own batches")
            #expect(heard[0].orders.withLock { $0 } == placed.map(\.id), "its observers were not told each order once")
            // The other server read them: both of its followers are past the last one.
            try await eventually("the other server never read the orders") {
                heard[1].orders.withLock { $0 } == placed.map(\.id) && heard[1].latest.withLock { $0 } == last
            }

            let readsOfOther = try counts(0).reads
            guard
                case .placed(let other) = try await servers[1].stores.orders.placeOrder(
                    OrderStoreTests.request(["latte"], name: "other"), key: nil)
            else { throw PlacementRefused() }
            let all = placed.map(\.id) + [other.id]
            try await eventually("the first server never read the other's order") {
                heard[0].orders.withLock { $0 } == all
            }
            try await eventually("the first server's read was not counted") { try counts(0).reads > readsOfOther }
            try await eventually("the other server's own batch was never caught up") { try counts(1).ownBatches == 1 }
            // Nothing told twice on either server, up to the other server's order.
            #expect(heard[0].orders.withLock { $0 } == all)
            #expect(heard[1].orders.withLock { $0 } == all)
        }
    }

    @Test(
        "the events after a position come a page at a time, each read through its last event or the feed's head",
        arguments: StoreBackend.postgresOnly)
    func pages(backend: StoreBackend) async throws {
        let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
        try await backend.withStores(clock: clock) { test in
            try await test.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            var placed: [Order] = []
            for number in 0..<3 {
                guard
                    case .placed(let order) = try await test.stores.orders.placeOrder(
                        OrderStoreTests.request(["latte", "salad"], name: "guest \(number)"), key: nil)
                else { throw PlacementRefused() }
                placed.append(order)
            }
            let events = try #require(test.stores.orderEvents as? PostgresOrderEventStore)
            let head = try #require(placed.last?.tickets.map(\.sequence).max())
            let first = try await events.page(after: 0, limit: 2)
            #expect(first.events.map(\.orderID) == placed.prefix(2).map(\.id))
            #expect(first.through == first.events.last?.sequence)
            let rest = try await events.page(after: first.through, limit: 2)
            #expect(rest.events.map(\.orderID) == [placed[2].id])
            #expect(rest.through == head)
            let none = try await events.page(after: head, limit: 2)
            #expect(none.events.isEmpty)
            #expect(none.through == head)
        }
    }

    struct PlacementRefused: Error {}

    /// What a server's observers were told: the orders of its events, in order, and the test
    /// café's latest feed position.
    final class Heard: Sendable {
        let orders = Mutex<[String]>([])
        let latest = Mutex<Int64>(0)
    }
}
