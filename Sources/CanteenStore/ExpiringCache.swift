import Synchronization

/// A small thread-safe cache whose entries expire after `lifetime` (monotonic time).
///
/// For reads that every request repeats (token lookups, a café's configuration): the store's
/// own writes invalidate at once; writes by another process (the command line) are seen
/// within `lifetime`.
final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let lifetime: Duration
    private let capacity: Int

    init(lifetime: Duration, capacity: Int = 4096) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The cached value, or the loaded one (cached when not nil).
    func value(for key: Key, load: () async throws -> Value?) async rethrows -> Value? {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), entry.expires > now { return entry.value }
        guard let loaded = try await load() else {
            entries.withLock { _ = $0.removeValue(forKey: key) }
            return nil
        }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(value: loaded, expires: now + lifetime)
        }
        return loaded
    }

    /// Forgets one key (after this process changed it).
    func invalidate(_ key: Key) { entries.withLock { _ = $0.removeValue(forKey: key) } }

    /// Forgets everything.
    func removeAll() { entries.withLock { $0.removeAll() } }
}
