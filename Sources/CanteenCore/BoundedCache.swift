import Synchronization

/// A thread-safe dictionary of at most `capacity` entries, for values that are costly to build.
///
/// When full, the cache is emptied before the next insertion: keys come from a small set in
/// practice (locales × currencies, cafés × dates), so a reset is rare and only costs a rebuild.
/// `@inlinable`, so that other modules' lookups (a dozen per order) are specialized for their
/// key and value rather than resolving generic metadata at run time.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let storage = Mutex<[Key: Value]>([:])
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    // MARK: - Lookup

    /// The cached value for `key`, building and storing it on a miss.
    ///
    /// `build` runs outside the lock, so two threads may each build the same value once.
    @inlinable
    public func value(for key: Key, orBuild build: () -> Value) -> Value {
        if let cached = storage.withLock({ $0[key] }) { return cached }
        let built = build()
        storage.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = built
        }
        return built
    }

    /// How many entries are cached now.
    public var count: Int { storage.withLock { $0.count } }
}
