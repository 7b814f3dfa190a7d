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

    @Test("a batch told but never notified waits for its notification until the listener starts again")
    func toldNeverNotified() {
        let followed = Followed()
        let registry = followed.registry()
        var batch: OwnCommit? = registry.expect(backend: 7, range: FeedRange(before: 0, after: 1))
        batch?.told()
        batch = nil
        #expect(registry.waiting == 1)
        registry.listening()
        #expect(registry.waiting == 0)
        #expect(!registry.heard(backend: 7))
        #expect(followed.caughtUp.withLock { $0 }.isEmpty)
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
            }
            func counts(_ index: Int) throws -> FollowCounts {
                try #require(servers[index].stores.postgresDatabase).followCounts
            }
            // Both listen and have read once, as every server does when its listener starts.
            try await eventually("a server never read the feed when it started listening") {
                try counts(0).reads >= 1 && counts(1).reads >= 1
            }
            let readsBefore = try counts(0).reads

            var placed: [String] = []
            for number in 0..<5 {
                guard
                    case .placed(let order) = try await servers[0].stores.orders.placeOrder(
                        OrderStoreTests.request(["latte"], name: "own \(number)"), key: nil)
                else { throw PlacementRefused() }
                placed.append(order.id)
            }
            try await eventually("the server's own batches were never caught up") { try counts(0).ownBatches == 5 }
            #expect(try counts(0).reads == readsBefore, "the server read after its own batches")
            #expect(heard[0].orders.withLock { $0 } == placed, "its observers were not told each order once")
            try await eventually("the other server never read the orders") { heard[1].orders.withLock { $0 } == placed }

            let readsOfOther = try counts(0).reads
            guard
                case .placed(let other) = try await servers[1].stores.orders.placeOrder(
                    OrderStoreTests.request(["latte"], name: "other"), key: nil)
            else { throw PlacementRefused() }
            try await eventually("the first server never read the other's order") {
                heard[0].orders.withLock { $0 } == placed + [other.id]
            }
            try await eventually("the first server's read was not counted") { try counts(0).reads > readsOfOther }
            #expect(try counts(1).ownBatches == 1)
            // Nothing told twice on either server.
            try await Task.sleep(for: .milliseconds(200))
            #expect(heard[0].orders.withLock { $0 } == placed + [other.id])
            #expect(heard[1].orders.withLock { $0 } == placed + [other.id])
        }
    }

    struct PlacementRefused: Error {}

    /// The orders a server's event observers were told of, in order.
    final class Heard: Sendable {
        let orders = Mutex<[String]>([])
    }
}
