import CanteenPersistence
import Logging
import PostgresNIO
import Synchronization

/// The `LISTEN` connection: one dedicated connection (outside the pool, where it would hold a
/// slot for good) that hears every server's changes and tells the stores' caches and the
/// kitchen feed, reconnecting after every loss.
extension PostgresDatabase {
    /// Follows the feed: `read` after every hint that tickets changed (another server's commit,
    /// a batch of this server's not told) and after every reconnection of the listener
    /// (notifications sent meanwhile are lost: re-read from the position); `caughtUp` for this
    /// server's own batches (`OwnCommits`).
    func follow(read: @escaping @Sendable () async -> Void, caughtUp: @escaping @Sendable (FeedRange) -> Bool) {
        followers.add(TicketFollowers.Follower(read: read, caughtUp: caughtUp))
    }

    /// How this server has followed the feed so far.
    var followCounts: FollowCounts { followers.current }

    /// Holds a dedicated connection listening on `channel`, reconnecting after every loss.
    func listen(_ configuration: PostgresConnection.Configuration) async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 0, logger: logger)
                do {
                    try await consumeNotifications(on: connection, attempt: &attempt)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { break }
                if reachable.exchange(false, ordering: .acquiringAndReleasing) {
                    logger.warning(
                        "lost the database (\(url)); answering 503 until it is back: \(DatabaseFailure.describe(error))"
                    )
                }
                for abandon in inFlight.withLock({ $0.abandon.values }) { abandon() }
            }
            changes.setFollowing(false)
            if Task.isCancelled { break }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(1000, 50 * (1 << min(attempt, 5)))))
        }
        changes.setFollowing(false)
    }

    /// Listens on `connection` until it fails: every notification is a hint, never the truth.
    ///
    /// Through postgres-nio's listener closure rather than its notification sequence: only the
    /// closure is given the backend that sent each notification, which tells this server's own
    /// batches apart. The closure is added on the connection's event loop while the connection
    /// is open: added to a connection closed meanwhile, postgres-nio would drop it unused, which
    /// it treats as a programming error.
    private func consumeNotifications(on connection: PostgresConnection, attempt: inout Int) async throws {
        let (notifications, received) = AsyncStream.makeStream(of: (backend: Int32, payload: String).self)
        let listener = try await connection.eventLoop.submit {
            guard !connection.isClosed else { throw ListenerClosed() }
            return connection.addListener(channel: Self.channel) { _, notification in
                received.yield((notification.backendPID, notification.payload))
            }
        }.get()
        connection.closeFuture.whenComplete { _ in received.finish() }
        defer { listener.stop() }
        // The listener sent `LISTEN` already; this one returns once both are done, after which
        // every commit is notified.
        try await connection.query("LISTEN \(unescaped: Self.channel)", logger: logger)
        attempt = 0
        if !reachable.exchange(true, ordering: .acquiringAndReleasing) {
            logger.notice("the database is reachable again: \(url)")
        }
        // Listening from here on: what happened before is re-read once.
        changes.setFollowing(true)
        ownCommits.listening()
        followers.hint()
        for await notification in notifications {
            switch notification.payload {
            case "tickets":
                if !ownCommits.heard(backend: notification.backend) { followers.hint() }
            case "tokens": changes.changed(.tokens)
            case "cafes": changes.changed(.cafes)
            default: logger.debug("unknown change notification '\(notification.payload)'")
            }
        }
        throw ListenerClosed()
    }

    /// The listening connection closed.
    struct ListenerClosed: Error, CustomStringConvertible {
        var description: String { "the listening connection closed" }
    }
}
