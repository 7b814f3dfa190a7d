import Synchronization

/// How a store's caches learn that what they hold changed in the database, whichever process
/// or server changed it.
///
/// Each engine feeds it: the PostgreSQL stores from `LISTEN` notifications (every change is
/// announced at commit), the SQLite stores from a change counter that triggers bump and a
/// watcher reads. While the engine cannot vouch for being told of every change (the listener is
/// reconnecting; a command-line process runs no watcher), `isFollowing` is false and caches
/// read through to the database instead of trusting what they hold.
public final class StoreChanges: Sendable {
    /// What a cache may hold: each topic is announced as a whole.
    public enum Topic: String, Sendable, CaseIterable {
        /// Access tokens (created, revoked).
        case tokens
        /// Cafés' configuration, menus and beacons.
        case cafes
    }

    private struct State {
        var following = false
        var observers: [Topic: [@Sendable () -> Void]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether every change is being reported right now.
    public var isFollowing: Bool { state.withLock { $0.following } }

    /// Runs `action` whenever `topic` changes (and whenever following starts or stops).
    public func observe(_ topic: Topic, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers[topic, default: []].append(action) }
    }

    /// Something of `topic` changed (committed).
    public func changed(_ topic: Topic) {
        for action in state.withLock({ $0.observers[topic] ?? [] }) { action() }
    }

    /// Starts or stops trusting the change reports. Both forget every cached value: changes
    /// may have been missed while nobody listened.
    public func setFollowing(_ following: Bool) {
        let actions = state.withLock { state in
            state.following = following
            return state.observers.values.flatMap { $0 }
        }
        for action in actions { action() }
    }
}
