import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import GRDB

/// WebhookStore's outbox: the delivery service's round on SQLite (recording attempts, fanning
/// events out to endpoints, claiming due deliveries), apart from the endpoints ops manage.
extension WebhookStore {
    public func deliveryRound(
        recording results: [WebhookAttemptResult], claim limit: Int, now: Date,
        lease: TimeInterval
    ) async throws -> WebhookRound {
        // Most rounds have nothing to write: a read decides (readers never wait for the writer).
        if results.isEmpty, try await !hasWork(now: now, claiming: limit > 0) {
            let nextDue = try await database.writer.read { db in try Self.nextDue(db, after: now) }
            return WebhookRound(jobs: [], nextDue: nextDue, moreEvents: false)
        }
        let (batch, open) = (fanOutBatch, openPerEndpoint)
        // The round commits without an fsync of its own (synchronous = NORMAL for this one
        // transaction): the next order's commit or checkpoint makes it durable, so it never
        // holds the single writer for a disk flush. Lost in a power cut, it costs a repeated
        // attempt (deliveries are at least once), never an event: the events are the orders'.
        return try await database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            var round: WebhookRound?
            try db.inTransaction(.immediate) {
                for result in results { try Self.record(result, db) }
                let moreEvents = try Self.fanOut(db, now: now, batch: batch, openPerEndpoint: open)
                let jobs = limit > 0 ? try Self.claim(db, limit: limit, now: now, lease: lease) : []
                round = WebhookRound(jobs: jobs, nextDue: try Self.nextDue(db, after: now), moreEvents: moreEvents)
                return .commit
            }
            return round!
        }
    }

    /// Whether a round would fan out an event or hand out a delivery.
    private func hasWork(now: Date, claiming: Bool) async throws -> Bool {
        let open = openPerEndpoint
        return try await database.writer.read { db in
            let latest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM orderEvent") ?? 0
            for row in try Row.fetchAll(db, sql: "SELECT id FROM webhookEndpoint WHERE cursor < ?", arguments: [latest])
            {
                if try Self.openDeliveries(db, endpointID: row["id"], upTo: open) < open { return true }
            }
            guard claiming else { return false }
            return try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM webhookDelivery WHERE state = 'pending' AND nextAttemptAt <= ?)
                    """, arguments: [now]) ?? false
        }
    }

    /// How many deliveries of the endpoint are pending or held, counted up to `limit`.
    private static func openDeliveries(_ db: Database, endpointID: String, upTo limit: Int) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(*) FROM (SELECT 1 FROM webhookDelivery
                                          WHERE endpointId = ? AND state IN ('pending', 'held') LIMIT ?)
                    """), arguments: [endpointID, limit]) ?? 0
    }

    /// Stores an attempt and moves its delivery on: nothing when the endpoint was deleted
    /// meanwhile, the attempt alone when the delivery's lease changed meanwhile (a redelivery
    /// was asked for). A delivery that is finished releases the next held event of its order.
    private static func record(_ result: WebhookAttemptResult, _ db: Database) throws {
        let attempt = result.attempt
        let (state, nextAttemptAt): (WebhookDeliveryState, Date?) =
            switch result.next {
            case .delivered: (.delivered, nil)
            case .retry(let at): (.pending, at)
            case .failed: (.failed, nil)
            }
        try db.execute(
            sql: "UPDATE webhookDelivery SET attempts = attempts + 1 WHERE endpointId = ? AND eventSequence = ?",
            arguments: [result.endpointID, result.eventSequence])
        guard db.changesCount > 0 else { return }
        try db.execute(
            sql: """
                INSERT INTO webhookAttempt (endpointId, eventSequence, attemptedAt, statusCode, latencyMilliseconds, error)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                result.endpointID, result.eventSequence, attempt.attemptedAt, attempt.statusCode,
                attempt.latencyMilliseconds, attempt.error.map { String($0.prefix(500)) },
            ])
        try db.execute(
            sql: """
                UPDATE webhookDelivery SET state = ?, nextAttemptAt = COALESCE(?, nextAttemptAt),
                    firstAttemptAt = COALESCE(firstAttemptAt, ?)
                WHERE endpointId = ? AND eventSequence = ? AND state = 'pending' AND nextAttemptAt = ?
                """,
            arguments: [
                state.rawValue, nextAttemptAt, attempt.attemptedAt, result.endpointID, result.eventSequence,
                result.leasedUntil,
            ])
        guard db.changesCount > 0, state != .pending else { return }
        try db.execute(
            sql: """
                UPDATE webhookDelivery SET state = 'pending', nextAttemptAt = :now
                WHERE endpointId = :endpoint AND eventSequence = (
                    SELECT h.eventSequence FROM webhookDelivery h
                    WHERE h.endpointId = :endpoint AND h.state = 'held' AND h.orderId = (
                        SELECT orderId FROM webhookDelivery WHERE endpointId = :endpoint AND eventSequence = :sequence)
                    ORDER BY h.eventSequence LIMIT 1)
                    AND NOT EXISTS (SELECT 1 FROM webhookDelivery p WHERE p.endpointId = :endpoint AND p.state = 'pending'
                        AND p.orderId = webhookDelivery.orderId)
                """,
            arguments: ["now": attempt.attemptedAt, "endpoint": result.endpointID, "sequence": result.eventSequence])
    }

    /// Whether a delivery of the order to the endpoint is pending or held.
    static func hasOpenDelivery(_ db: Database, endpointID: String, orderID: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM webhookDelivery
                                   WHERE endpointId = ? AND orderId = ? AND state IN ('pending', 'held'))
                    """), arguments: [endpointID, orderID]) ?? false
    }

    /// Turns the events after each endpoint's cursor into deliveries, as long as the endpoint
    /// has fewer than `openPerEndpoint` open ones; true when an endpoint with room has more.
    private static func fanOut(_ db: Database, now: Date, batch: Int, openPerEndpoint: Int) throws -> Bool {
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO webhookDelivery (endpointId, eventSequence, orderId, state, attempts, nextAttemptAt)
                VALUES (?, ?, ?, ?, 0, ?)
                """)
        var more = false
        for endpoint in try Row.fetchAll(db, sql: "SELECT id, cafeId, events, cursor FROM webhookEndpoint") {
            let id: String = endpoint["id"]
            let cafeID: String? = endpoint["cafeId"]
            let wanted = Set((endpoint["events"] as String).split(separator: " ").map(String.init))
            var room = openPerEndpoint - (try openDeliveries(db, endpointID: id, upTo: openPerEndpoint))
            guard room > 0 else { continue }
            let events = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT sequence, orderId, cafeId, type FROM orderEvent WHERE sequence > ? ORDER BY sequence LIMIT ?
                        """), arguments: [endpoint["cursor"] as Int64, batch])
            var cursor: Int64?
            for event in events {
                let type: String = event["type"]
                if wanted.contains(type), cafeID == nil || cafeID == event["cafeId"] {
                    guard room > 0 else { break }
                    let orderID: String = event["orderId"]
                    let held = try hasOpenDelivery(db, endpointID: id, orderID: orderID)
                    try insert.execute(arguments: [
                        id, event["sequence"] as Int64, orderID, held ? "held" : "pending", now,
                    ])
                    room -= 1
                }
                cursor = event["sequence"]
            }
            if let cursor {
                try db.execute(sql: "UPDATE webhookEndpoint SET cursor = ? WHERE id = ?", arguments: [cursor, id])
            }
            if events.count == batch && room > 0 { more = true }
        }
        return more
    }

    /// Hands out up to `limit` due deliveries, leasing each until `now + lease`.
    private static func claim(_ db: Database, limit: Int, now: Date, lease: TimeInterval) throws -> [WebhookJob] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT d.endpointId, d.attempts, d.firstAttemptAt, w.url, w.secret, w.previousSecret,
                    w.previousSecretExpiresAt, e.*
                FROM webhookDelivery d
                JOIN webhookEndpoint w ON w.id = d.endpointId
                JOIN orderEvent e ON e.sequence = d.eventSequence
                WHERE d.state = 'pending' AND d.nextAttemptAt <= ?
                ORDER BY d.nextAttemptAt, d.eventSequence
                LIMIT ?
                """, arguments: [now, limit])
        // Whole milliseconds, as stored: the result of the attempt names its lease exactly.
        let leased = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 + lease) * 1000).rounded(.down) / 1000)
        let update = try db.cachedStatement(
            sql: """
                UPDATE webhookDelivery SET nextAttemptAt = ? WHERE endpointId = ? AND eventSequence = ?
                """)
        return try rows.map { row in
            let event = try OrderEventStore.event(from: row)
            let endpointID: String = row["endpointId"]
            try update.execute(arguments: [leased, endpointID, event.sequence])
            let expires: Date? = row["previousSecretExpiresAt"]
            let previous: String? = expires.map { $0 > now } == true ? row["previousSecret"] : nil
            return WebhookJob(
                endpointID: endpointID, url: row["url"],
                secrets: WebhookSecrets(current: row["secret"], previous: previous), event: event,
                attempt: (row["attempts"] as Int) + 1, firstAttemptAt: row["firstAttemptAt"],
                leasedUntil: leased)
        }
    }

    /// The earliest instant after `now` that a pending delivery falls due (or its lease ends).
    /// Deliveries due already but not handed out wait for a slot: the service runs a round when
    /// an attempt finishes.
    private static func nextDue(_ db: Database, after now: Date) throws -> Date? {
        try Date.fetchOne(
            db,
            sql: """
                SELECT MIN(nextAttemptAt) FROM webhookDelivery WHERE state = 'pending' AND nextAttemptAt > ?
                """, arguments: [now])
    }
}
