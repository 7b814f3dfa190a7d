import Synchronization

/// Positions of the feed a commit took: after `before`, up to and including `after`.
struct FeedRange: Sendable, Hashable {
    let before: Int64
    let after: Int64
}

/// How far a follower of the feed (the kitchen feed's café positions, the order events) has
/// told its observers: moved forward by its reads after a hint, and past this server's own
/// batches only when it stands right before them (`OwnCommits`), so that it never moves past a
/// position nobody told.
final class FollowedPosition: Sendable {
    /// nil until the follower first learns where the feed stands.
    private let position: Mutex<Int64?>

    init(_ start: Int64?) {
        position = Mutex(start)
    }

    var current: Int64? { position.withLock { $0 } }

    /// A read told the observers everything up to `position`.
    func read(through position: Int64) {
        self.position.withLock { $0 = max($0 ?? position, position) }
    }

    /// Moves past `range`, told to the observers already; false when positions before it are
    /// still unread (the follower must read).
    func caughtUp(_ range: FeedRange) -> Bool {
        position.withLock { position in
            guard let current = position else { return false }
            if current >= range.after { return true }
            guard current == range.before else { return false }
            position = range.after
            return true
        }
    }
}
