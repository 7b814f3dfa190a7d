import Synchronization

/// This server's own batches of orders, expected on the `LISTEN` connection so that their
/// `tickets` notifications need no read.
///
/// Every server reads the feed and the order events after each `tickets` notification, to hear
/// the other servers' commits. A batch this server committed has already been told to its
/// observers, and PostgreSQL names the backend that sent each notification. So a batch, before
/// its `COMMIT`, says which backend commits it and which feed positions it takes (`expect`); the
/// notification from that backend then moves the followers past those positions instead of
/// reading them, once the batch has been told to the observers (`OwnCommit.told()`).
///
/// The followers only ever move past positions that were told here (`FeedRange`), one range
/// right after another; anything else is read. A notification taken for one of ours when it was
/// not (a commit of the same connection that expected nothing) is at worst read later, never
/// skipped: the next range will not follow on, and its notification reads. A batch whose
/// `COMMIT` failed after its notification came (the commit happened, its answer was lost), or
/// that was abandoned at a deadline, is read at once (`missed`). When the listener starts again,
/// every batch is forgotten: the listener's first read covers what committed before, and a
/// notification that came to no one must not be matched to a later one (a backend's process id
/// may be another's after a restart).
final class OwnCommits: Sendable {
    private struct Entry {
        let id: UInt64
        let backend: Int32
        let range: FeedRange
        var notified = false
        var told = false
    }

    private let entries = Mutex<(next: UInt64, waiting: [Entry])>((0, []))
    /// Batches kept at most: told ones wait only for their notification, which a listener that
    /// hears nothing (a pooler in transaction mode) never brings; past this many they are
    /// forgotten and read.
    static let limit = 1024
    /// Called with a range that was both notified and told: the followers move past it.
    private let caughtUp: @Sendable (FeedRange) -> Void
    /// Called when a commit of ours happened but was not told: the followers read.
    private let missed: @Sendable () -> Void

    init(caughtUp: @escaping @Sendable (FeedRange) -> Void, missed: @escaping @Sendable () -> Void) {
        self.caughtUp = caughtUp
        self.missed = missed
    }

    /// How many batches are waiting for their notification or to be told.
    var waiting: Int { entries.withLock { $0.waiting.count } }

    /// Registers a batch that `backend` is about to commit, taking `range` of the feed. Call it
    /// in the transaction, before `COMMIT`: the notification may arrive before `COMMIT`'s answer.
    func expect(backend: Int32, range: FeedRange) -> OwnCommit {
        let (id, forgot) = entries.withLock { state -> (UInt64, Bool) in
            let full = state.waiting.count >= Self.limit
            if full { state.waiting.removeAll(where: \.told) }
            state.next &+= 1
            state.waiting.append(Entry(id: state.next, backend: backend, range: range))
            return (state.next, full)
        }
        if forgot { missed() }
        return OwnCommit(registry: self, id: id)
    }

    /// A `tickets` notification from `backend`: true when it was one of ours (nothing to read now),
    /// false when the followers must read.
    func heard(backend: Int32) -> Bool {
        let outcome = entries.withLock { state -> (ours: Bool, caughtUp: FeedRange?) in
            // A connection commits one transaction at a time, in order: its oldest batch still
            // waiting for a notification is the one this notification announces.
            guard let index = state.waiting.firstIndex(where: { $0.backend == backend && !$0.notified }) else {
                return (false, nil)
            }
            guard state.waiting[index].told else {
                state.waiting[index].notified = true
                return (true, nil)
            }
            return (true, state.waiting.remove(at: index).range)
        }
        if let range = outcome.caughtUp { caughtUp(range) }
        return outcome.ours
    }

    /// The listener (re)started and is about to read: every batch expected so far is forgotten
    /// (what committed before is read; what commits after is notified to no entry, and read).
    func listening() {
        entries.withLock { $0.waiting.removeAll() }
    }

    fileprivate func told(_ id: UInt64) {
        let range = entries.withLock { state -> FeedRange? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            guard state.waiting[index].notified else {
                state.waiting[index].told = true
                return nil
            }
            return state.waiting.remove(at: index).range
        }
        if let range { caughtUp(range) }
    }

    fileprivate func ended(_ id: UInt64) {
        let committedUntold = entries.withLock { state -> Bool in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return false }
            // Told and not yet notified: it waits for its notification.
            guard !state.waiting[index].told else { return false }
            return state.waiting.remove(at: index).notified
        }
        if committedUntold { missed() }
    }
}

/// One batch expected by `OwnCommits`. Told once its tickets and events reached this server's
/// observers; dropped without being told (its `COMMIT` failed or was abandoned), it is forgotten
/// or, when its notification came anyway, read.
final class OwnCommit: Sendable {
    private let registry: OwnCommits
    private let id: UInt64

    fileprivate init(registry: OwnCommits, id: UInt64) {
        self.registry = registry
        self.id = id
    }

    /// The batch was committed and told to this server's observers.
    func told() {
        registry.told(id)
    }

    deinit {
        registry.ended(id)
    }
}
