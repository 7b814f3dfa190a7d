import Synchronization

/// What follows the feed on this server: the stores that read what changed after a `tickets`
/// notification (the kitchen feed's café positions, the order events) and that move past this
/// server's own batches without reading them (`OwnCommits`).
final class TicketFollowers: Sendable {
    struct Follower: Sendable {
        /// Reads what changed since the follower's position and tells its observers.
        let read: @Sendable () async -> Void
        /// Moves the follower's position past `range`, told to its observers already, when it
        /// is right there; false when positions before the range are still unread.
        let caughtUp: @Sendable (FeedRange) -> Bool
    }

    private let followers = Mutex<[Follower]>([])
    /// Hints waiting for the followers: at most one (a burst of notifications is one read).
    private let hints = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    private let counts = Mutex(FollowCounts())

    func add(_ follower: Follower) {
        followers.withLock { $0.append(follower) }
    }

    /// Something changed that this server did not tell: the followers read (soon, once).
    func hint() {
        hints.continuation.yield()
    }

    /// One of this server's batches was both notified and told.
    func caughtUp(_ range: FeedRange) {
        // Every follower is moved, even after one that cannot be.
        let moved = followers.withLock { $0 }.map { $0.caughtUp(range) }
        if moved.allSatisfy({ $0 }) {
            counts.withLock { $0.ownBatches += 1 }
        } else {
            hint()
        }
    }

    var current: FollowCounts { counts.withLock { $0 } }

    /// Runs the followers' reads, one hint after another, until cancelled.
    func run() async {
        for await _ in hints.stream {
            for follower in followers.withLock({ $0 }) { await follower.read() }
            counts.withLock { $0.reads += 1 }
        }
    }
}

/// How this server followed the other servers' changes (for tests).
struct FollowCounts: Sendable, Hashable {
    /// Reads done after a notification, a reconnection of the listener or a batch not told.
    var reads = 0
    /// This server's own batches, moved past without a read.
    var ownBatches = 0
}
