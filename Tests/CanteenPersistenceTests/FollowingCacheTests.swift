import CanteenPersistence
import CanteenTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Caches that follow changes, not timers")
struct FollowingCacheTests {
    /// Counts the loads a cache makes.
    final class Loads: Sendable {
        let count = Atomic<Int>(0)
        func load(_ value: String) -> String? {
            count.add(1, ordering: .relaxed)
            return value
        }
    }

    @Test("a value is loaded once and kept until its topic changes; another topic's change keeps it")
    func keptUntilChanged() async throws {
        let changes = StoreChanges()
        changes.setFollowing(true)
        let cache = FollowingCache<String, String>(following: .tokens, in: changes)
        let loads = Loads()
        for _ in 0..<3 { #expect(await cache.value(for: "a") { loads.load("A") } == "A") }
        #expect(loads.count.load(ordering: .relaxed) == 1)
        changes.changed(.cafes)
        _ = await cache.value(for: "a") { loads.load("A") }
        #expect(loads.count.load(ordering: .relaxed) == 1)
        changes.changed(.tokens)
        #expect(await cache.value(for: "a") { loads.load("B") } == "B")
        #expect(loads.count.load(ordering: .relaxed) == 2)
    }

    @Test("a value read before a change and returned after it is not kept (a revocation cannot be undone)")
    func loadRacingAChange() async throws {
        let changes = StoreChanges()
        changes.setFollowing(true)
        let cache = FollowingCache<String, String>(following: .tokens, in: changes)
        let loads = Loads()
        // The load reads the old value, the change lands, then the load returns.
        let stale = await cache.value(for: "token") { () async -> String? in
            let old = loads.load("live")
            cache.invalidate("token")
            return old
        }
        #expect(stale == "live")
        #expect(cache.count == 0)
        #expect(await cache.value(for: "token") { loads.load("revoked") } == "revoked")
    }

    @Test("while changes are not followed (a listener reconnecting, a command-line process) every read loads")
    func notFollowing() async throws {
        let changes = StoreChanges()
        let cache = FollowingCache<String, String>(following: .cafes, in: changes)
        let loads = Loads()
        for _ in 0..<3 { _ = await cache.value(for: "c") { loads.load("C") } }
        #expect(loads.count.load(ordering: .relaxed) == 3)
        changes.setFollowing(true)
        for _ in 0..<3 { _ = await cache.value(for: "c") { loads.load("C") } }
        #expect(loads.count.load(ordering: .relaxed) == 4)
        changes.setFollowing(false)
        #expect(cache.count == 0)
    }

    @Test("nil is never kept: a token created later is found")
    func nilNotKept() async throws {
        let changes = StoreChanges()
        changes.setFollowing(true)
        let cache = FollowingCache<String, String>(following: .tokens, in: changes)
        #expect(await cache.value(for: "t") { nil } == nil)
        #expect(await cache.value(for: "t") { "now" } == "now")
    }
}
