import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO

/// PostgresWebhookStore's outbox: the delivery service's round on PostgreSQL (recording attempts, fanning
/// events out to endpoints, claiming due deliveries), apart from the endpoints ops manage.
extension PostgresWebhookStore {
    public func deliveryRound(
        recording results: [WebhookAttemptResult], claim limit: Int, now: Date,
        lease: TimeInterval
    ) async throws -> WebhookRound {
        let (batch, open) = (fanOutBatch, openPerEndpoint)
        return try await database.transaction { connection in
            let logger = self.database.logger
            for result in results { try await Self.record(result, connection, logger: logger) }
            let moreEvents = try await Self.fanOut(
                connection, now: now, batch: batch, openPerEndpoint: open,
                logger: logger)
            let jobs =
                limit > 0
                ? try await Self.claim(
                    connection, limit: limit, now: now, lease: lease,
                    logger: logger) : []
            let nextDue = try await connection.scalar(
                """
                SELECT MIN(nextAttemptAt) FROM webhookDelivery WHERE state = 'pending' AND nextAttemptAt > \(now)
                """, table: "webhookDelivery", as: Date.self, logger: logger)
            return WebhookRound(jobs: jobs, nextDue: nextDue, moreEvents: moreEvents)
        }
    }

    /// Stores an attempt and moves its delivery on (see `WebhookStore.record`).
    private static func record(
        _ result: WebhookAttemptResult, _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let attempt = result.attempt
        let (state, nextAttemptAt): (WebhookDeliveryState, Date?) =
            switch result.next {
            case .delivered: (.delivered, nil)
            case .retry(let at): (.pending, at)
            case .failed: (.failed, nil)
            }
        guard
            try await connection.firstRow(
                """
                UPDATE webhookDelivery SET attempts = attempts + 1
                WHERE endpointId = \(result.endpointID) AND eventSequence = \(result.eventSequence)
                RETURNING orderId
                """, logger: logger) != nil
        else { return }
        try await connection.run(
            """
            INSERT INTO webhookAttempt (endpointId, eventSequence, attemptedAt, statusCode, latencyMilliseconds, error)
            VALUES (\(result.endpointID), \(result.eventSequence), \(attempt.attemptedAt), \(attempt.statusCode),
                \(attempt.latencyMilliseconds), \(attempt.error.map { String($0.prefix(500)) }))
            """, logger: logger)
        guard
            try await connection.firstRow(
                """
                UPDATE webhookDelivery SET state = \(state.rawValue), nextAttemptAt = COALESCE(\(nextAttemptAt), nextAttemptAt),
                    firstAttemptAt = COALESCE(firstAttemptAt, \(attempt.attemptedAt))
                WHERE endpointId = \(result.endpointID) AND eventSequence = \(result.eventSequence) AND state = 'pending'
                    AND nextAttemptAt = \(result.leasedUntil)
                RETURNING orderId
                """, logger: logger) != nil, state != .pending
        else { return }
        try await connection.run(
            """
            UPDATE webhookDelivery SET state = 'pending', nextAttemptAt = \(attempt.attemptedAt)
            WHERE endpointId = \(result.endpointID) AND eventSequence = (
                SELECT h.eventSequence FROM webhookDelivery h
                WHERE h.endpointId = \(result.endpointID) AND h.state = 'held' AND h.orderId = (
                    SELECT orderId FROM webhookDelivery
                    WHERE endpointId = \(result.endpointID) AND eventSequence = \(result.eventSequence))
                ORDER BY h.eventSequence LIMIT 1)
                AND NOT EXISTS (SELECT 1 FROM webhookDelivery p WHERE p.endpointId = \(result.endpointID)
                    AND p.state = 'pending' AND p.orderId = webhookDelivery.orderId)
            """, logger: logger)
    }

    /// Whether a delivery of the order to the endpoint is pending or held.
    static func hasOpenDelivery(
        _ connection: PostgresConnection, endpointID: String, orderID: String,
        logger: Logger
    ) async throws -> Bool {
        try await connection.firstRow(
            """
            SELECT 1 FROM webhookDelivery
            WHERE endpointId = \(endpointID) AND orderId = \(orderID) AND state IN ('pending', 'held') LIMIT 1
            """, logger: logger) != nil
    }

    /// Turns the events after each endpoint's cursor into deliveries, as long as the endpoint
    /// has fewer than `openPerEndpoint` open ones; true when an endpoint with room has more.
    /// Endpoints another server is fanning out right now are skipped (it does them).
    private static func fanOut(
        _ connection: PostgresConnection, now: Date, batch: Int, openPerEndpoint: Int,
        logger: Logger
    ) async throws -> Bool {
        var more = false
        let endpoints = try await connection.rows(
            """
            SELECT id, cafeId, events, cursor FROM webhookEndpoint
            WHERE cursor < (SELECT COALESCE(MAX(sequence), 0) FROM orderEvent)
            ORDER BY id FOR UPDATE SKIP LOCKED
            """, logger: logger)
        for row in endpoints {
            let (id, cafeID, names, cursor) = try StoredColumns.decode(
                row, table: "webhookEndpoint",
                (String, String?, String, Int64).self)
            let wanted = names.split(separator: " ").map(String.init)
            let openNow =
                try await connection.scalar(
                    """
                    SELECT COUNT(*) FROM (SELECT 1 FROM webhookDelivery
                        WHERE endpointId = \(id) AND state IN ('pending', 'held') LIMIT \(openPerEndpoint)) AS open
                    """, table: "webhookDelivery", as: Int.self, logger: logger) ?? 0
            var room = openPerEndpoint - openNow
            guard room > 0 else { continue }
            let events = try await connection.rows(
                """
                SELECT sequence, orderId, cafeId, type FROM orderEvent WHERE sequence > \(cursor) ORDER BY sequence
                LIMIT \(batch)
                """, logger: logger)
            var last: Int64?
            for event in events {
                let (sequence, orderID, eventCafeID, type) = try StoredColumns.decode(
                    event, table: "orderEvent", (Int64, String, String, String).self)
                if wanted.contains(type), cafeID == nil || cafeID == eventCafeID {
                    guard room > 0 else { break }
                    try await connection.run(
                        """
                        INSERT INTO webhookDelivery (endpointId, eventSequence, orderId, state, attempts, nextAttemptAt)
                        SELECT \(id), \(sequence), \(orderID),
                            CASE WHEN EXISTS (SELECT 1 FROM webhookDelivery WHERE endpointId = \(id)
                                AND orderId = \(orderID) AND state IN ('pending', 'held')) THEN 'held' ELSE 'pending' END,
                            0, \(now)
                        ON CONFLICT (endpointId, eventSequence) DO NOTHING
                        """, logger: logger)
                    room -= 1
                }
                last = sequence
            }
            if let last {
                try await connection.run("UPDATE webhookEndpoint SET cursor = \(last) WHERE id = \(id)", logger: logger)
            }
            if events.count == batch && room > 0 { more = true }
        }
        return more
    }

    /// Hands out up to `limit` due deliveries, leasing each until `now + lease`, in one
    /// statement: rows another server is claiming are skipped, not waited for.
    private static func claim(
        _ connection: PostgresConnection, limit: Int, now: Date, lease: TimeInterval,
        logger: Logger
    ) async throws -> [WebhookJob] {
        // Whole milliseconds, as on SQLite: the attempt's result names its lease exactly.
        let leased = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 + lease) * 1000).rounded(.down) / 1000)
        let rows = try await connection.rows(
            """
            WITH due AS (
                SELECT endpointId, eventSequence FROM webhookDelivery
                WHERE state = 'pending' AND nextAttemptAt <= \(now)
                ORDER BY nextAttemptAt, eventSequence LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE webhookDelivery d SET nextAttemptAt = \(leased)
                FROM due WHERE d.endpointId = due.endpointId AND d.eventSequence = due.eventSequence
                RETURNING d.endpointId, d.eventSequence, d.attempts, d.firstAttemptAt
            )
            SELECT c.endpointId, c.attempts, c.firstAttemptAt, w.url, w.secret, w.previousSecret,
                w.previousSecretExpiresAt, e.sequence, e.id, e.orderId, e.cafeId, e.type, e.previousSequence, e.tickets,
                e.createdAt
            FROM claimed c
            JOIN webhookEndpoint w ON w.id = c.endpointId
            JOIN orderEvent e ON e.sequence = c.eventSequence
            ORDER BY c.eventSequence
            """, logger: logger)
        return try rows.map { row in
            let (
                endpointID, attempts, firstAttemptAt, url, secret, previousSecret, expires, sequence, id, orderID,
                cafeID, type, previousSequence, tickets, createdAt
            ) = try StoredColumns.decode(
                row, table: "webhookDelivery",
                (
                    String, Int, Date?, String, String, String?, Date?, Int64, String, String, String, String, Int64?,
                    String?, Date
                ).self)
            let event = try PostgresOrderEventStore.event(
                sequence: sequence, id: id, orderID: orderID, cafeID: cafeID,
                typeName: type, previousSequence: previousSequence,
                tickets: tickets, createdAt: createdAt)
            let previous = expires.map { $0 > now } == true ? previousSecret : nil
            return WebhookJob(
                endpointID: endpointID, url: url,
                secrets: WebhookSecrets(current: secret, previous: previous), event: event,
                attempt: attempts + 1, firstAttemptAt: firstAttemptAt, leasedUntil: leased)
        }
    }
}
