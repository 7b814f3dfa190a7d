import Synchronization

/// Values read from the database, kept until the database reports a change to their topic
/// (`StoreChanges`), never for a fixed time.
///
/// A value loaded while a change was being reported is not kept: each invalidation moves a
/// generation, and a load that started before it returns its value without caching it. So a
/// revocation can never be undone by a request that read the token just before it. While
/// changes are not being followed, every read goes to the database.
public final class FollowingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: Value] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let changes: StoreChanges
    private let capacity: Int

    /// A cache of `topic`, emptied whenever `changes` reports it.
    public init(following topic: StoreChanges.Topic, in changes: StoreChanges, capacity: Int = 4096) {
        self.changes = changes
        self.capacity = max(1, capacity)
        changes.observe(topic) { [weak self] in self?.removeAll() }
    }

    /// The cached value, or the loaded one (cached when not nil and nothing changed meanwhile).
    public func value(for key: Key, load: () async throws -> Value?) async rethrows -> Value? {
        guard changes.isFollowing else { return try await load() }
        let (cached, generation) = state.withLock { ($0.entries[key], $0.generation) }
        if let cached { return cached }
        let loaded = try await load()
        guard let loaded else { return nil }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = loaded
        }
        return loaded
    }

    /// Forgets one key (after this process changed it). Loads under way are not cached.
    public func invalidate(_ key: Key) {
        state.withLock { state in
            state.entries.removeValue(forKey: key)
            state.generation &+= 1
        }
    }

    /// Forgets everything. Loads under way are not cached.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.generation &+= 1
        }
    }

    /// How many values are cached now (for tests).
    public var count: Int { state.withLock { $0.entries.count } }
}
