import CanteenPersistence
import Logging
import PostgresNIO
import Synchronization

/// The `LISTEN` connection: one dedicated connection (outside the pool, where it would hold a
/// slot for good) that hears every server's changes and tells the stores' caches and the
/// kitchen feed, reconnecting after every loss.
extension PostgresDatabase {
    /// Called for every hint that tickets changed on some server, and after every reconnection
    /// of the listener (notifications sent meanwhile are lost: re-read from the cursor).
    func onTicketHint(_ action: @escaping @Sendable () async -> Void) {
        ticketHandlers.withLock { $0.append(action) }
    }

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
    private func consumeNotifications(on connection: PostgresConnection, attempt: inout Int) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            attempt = 0
            if !reachable.exchange(true, ordering: .acquiringAndReleasing) {
                logger.notice("the database is reachable again: \(url)")
            }
            // Listening from here on: what happened before is re-read once.
            changes.setFollowing(true)
            hintTickets()
            for try await notification in notifications {
                switch notification.payload {
                case "tickets": hintTickets()
                case "tokens": changes.changed(.tokens)
                case "cafes": changes.changed(.cafes)
                default: logger.debug("unknown change notification '\(notification.payload)'")
                }
            }
        }
    }

    private func hintTickets() {
        ticketHints.continuation.yield()
    }
}
