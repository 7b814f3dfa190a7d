import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import GRDB

/// The SQLite implementation of `WebhookRepository`: endpoints, and the deliveries made from
/// the order-event outbox.
///
/// An endpoint keeps a cursor in the event sequence. Each delivery round turns the events after
/// it into one delivery per interested endpoint; a new endpoint starts at the feed's current
/// sequence, so it is sent the events committed after its registration. Events commit in
/// sequence order (SQLite has one writer), so no event is skipped. Of one order's deliveries to
/// one endpoint only the earliest is `pending`; the later ones are `held` until it is delivered
/// or has failed: events of one order arrive in order, and a failing one holds back only its
/// own order's. So the due deliveries are simply the pending ones whose time has come. An
/// endpoint has at most `openPerEndpoint` open deliveries: the rest of its events wait in the
/// outbox behind its cursor, so a slow receiver costs a delivery row per event it takes.
public final class WebhookStore: WebhookRepository {
    let database: AppDatabase
    let ids: RandomID
    let clock: @Sendable () -> Date
    /// The most events read for one endpoint in one round.
    let fanOutBatch: Int
    /// The most open (pending or held) deliveries an endpoint has: events beyond them wait in
    /// the outbox, behind the endpoint's cursor. A slow receiver then costs the writer one
    /// delivery row per event it takes, not one per event committed.
    let openPerEndpoint: Int

    public init(
        database: AppDatabase, ids: RandomID = RandomID(), fanOutBatch: Int = 1000, openPerEndpoint: Int = 1000,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.ids = ids
        self.fanOutBatch = max(1, fanOutBatch)
        self.openPerEndpoint = max(1, openPerEndpoint)
        self.clock = clock
    }

    // MARK: - Endpoints

    public func createEndpoint(
        _ registration: WebhookRegistration,
        audit: AuditEntry?
    ) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        let secret = newSecret()
        let endpoint = WebhookEndpoint(
            id: ids.make("whk"), url: registration.url, cafeID: registration.cafeID,
            events: registration.events, createdAt: clock(), previousSecretExpiresAt: nil)
        try await database.writer.write { db in
            if let cafeID = registration.cafeID, try !CafeRecord.exists(db, key: cafeID) {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(cafeID)'", field: "cafeId",
                    parameters: ["cafe": cafeID])
            }
            let head = try Int64.fetchOne(db, sql: "SELECT value FROM feedSequence WHERE id = 1") ?? 0
            try db.execute(
                sql: """
                    INSERT INTO webhookEndpoint (id, url, cafeId, events, secret, previousSecret, previousSecretExpiresAt,
                        cursor, createdAt)
                    VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?)
                    """,
                arguments: [
                    endpoint.id, endpoint.url, endpoint.cafeID,
                    endpoint.events.map(\.rawValue).joined(separator: " "), secret, head, endpoint.createdAt,
                ])
            try AuditStore.record(
                audit?.targeting(endpoint.id), before: nil, after: endpoint.audited,
                at: endpoint.createdAt, db)
        }
        return (endpoint, secret)
    }

    public func endpoints() async throws -> [WebhookEndpoint] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhookEndpoint ORDER BY createdAt, id").map(Self.endpoint(from:))
        }
    }

    public func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webhookEndpoint WHERE id = ?", arguments: [id]).map(
                Self.endpoint(from:))
        }
    }

    public func deleteEndpoint(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM webhookEndpoint WHERE id = ?", arguments: [id])
            else {
                throw CanteenError.notFound(.webhook, id)
            }
            let endpoint = try Self.endpoint(from: row)
            try db.execute(sql: "DELETE FROM webhookEndpoint WHERE id = ?", arguments: [id])
            try AuditStore.record(audit, before: endpoint.audited, after: nil, at: now, db)
        }
    }

    public func rotateSecret(
        endpointID: String,
        audit: AuditEntry?
    ) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        let secret = newSecret()
        let now = clock()
        let endpoint = try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE webhookEndpoint SET previousSecret = secret, previousSecretExpiresAt = ?, secret = ? WHERE id = ?
                    """, arguments: [now.addingTimeInterval(WebhookEndpoint.secretOverlap), secret, endpointID])
            guard db.changesCount > 0 else { throw CanteenError.notFound(.webhook, endpointID) }
            try AuditStore.write(audit.map(WebhookEndpoint.secretRotation(at: now)), db)
            return try Self.endpoint(
                from: try Row.fetchOne(
                    db, sql: "SELECT * FROM webhookEndpoint WHERE id = ?",
                    arguments: [endpointID])!)
        }
        return (endpoint, secret)
    }

    /// `whsec_` and 32 random bytes, base64url.
    private func newSecret() -> String { "whsec_" + ids.base64URL(bytes: 32) }

    static func endpoint(from row: Row) throws -> WebhookEndpoint {
        let id: String = row["id"]
        let names: String = row["events"]
        var events: [OrderEventType] = []
        for name in names.split(separator: " ") {
            guard let type = OrderEventType(rawValue: String(name)) else {
                throw StoredRow.invalid(table: "webhookEndpoint", id: id, "'\(name)' is not an order event type")
            }
            events.append(type)
        }
        return WebhookEndpoint(
            id: id, url: row["url"], cafeID: row["cafeId"], events: events,
            createdAt: row["createdAt"], previousSecretExpiresAt: row["previousSecretExpiresAt"])
    }

    // MARK: - Deliveries as ops see them

    public func deliveries(endpointID: String, limit: Int) async throws -> [WebhookDelivery] {
        try await database.writer.read { db in
            guard
                try Row.fetchOne(db, sql: "SELECT 1 FROM webhookEndpoint WHERE id = ?", arguments: [endpointID]) != nil
            else {
                throw CanteenError.notFound(.webhook, endpointID)
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.endpointId, d.state, d.nextAttemptAt, e.* FROM webhookDelivery d
                    JOIN orderEvent e ON e.sequence = d.eventSequence
                    WHERE d.endpointId = ? ORDER BY d.eventSequence DESC LIMIT ?
                    """, arguments: [endpointID, limit])
            return try rows.map { try Self.delivery(db, from: $0) }
        }
    }

    public func redeliver(endpointID: String, eventID: String, audit: AuditEntry?) async throws -> WebhookDelivery {
        let now = clock()
        return try await database.writer.write { db in
            guard
                try Row.fetchOne(db, sql: "SELECT 1 FROM webhookEndpoint WHERE id = ?", arguments: [endpointID]) != nil
            else {
                throw CanteenError.notFound(.webhook, endpointID)
            }
            guard
                let delivery = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT d.eventSequence, d.orderId, d.state FROM webhookDelivery d
                        JOIN orderEvent e ON e.sequence = d.eventSequence
                        WHERE d.endpointId = ? AND e.id = ?
                        """, arguments: [endpointID, eventID])
            else {
                throw CanteenError.notFound(.delivery, eventID, field: "eventId")
            }
            let state: String = delivery["state"]
            var next = state
            if state == "delivered" || state == "failed" {
                // Sent again after whatever of its order is open now: one pending per order.
                let busy = try Self.hasOpenDelivery(db, endpointID: endpointID, orderID: delivery["orderId"])
                next = busy ? "held" : "pending"
            }
            // A pending one waiting for its next retry is tried now, with a fresh retry period
            // (due since the epoch: whatever clock the delivery service keeps, it is due).
            try db.execute(
                sql: """
                    UPDATE webhookDelivery SET state = ?, nextAttemptAt = ?, firstAttemptAt = NULL
                    WHERE endpointId = ? AND eventSequence = ?
                    """,
                arguments: [next, Date(timeIntervalSince1970: 0), endpointID, delivery["eventSequence"] as Int64])
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT d.endpointId, d.state, d.nextAttemptAt, e.* FROM webhookDelivery d
                    JOIN orderEvent e ON e.sequence = d.eventSequence
                    WHERE d.endpointId = ? AND e.id = ?
                    """, arguments: [endpointID, eventID])!
            try AuditStore.record(
                audit, before: ["eventId": .string(eventID), "state": .string(state)],
                after: ["eventId": .string(eventID), "state": .string(next)], at: now, db)
            return try Self.delivery(db, from: row)
        }
    }

    /// A delivery from a row of `webhookDelivery` (endpointId, state, nextAttemptAt) joined with
    /// its event, with its attempts.
    private static func delivery(_ db: Database, from row: Row) throws -> WebhookDelivery {
        let event = try OrderEventStore.event(from: row)
        let endpointID: String = row["endpointId"]
        let stateName: String = row["state"]
        guard let state = stateName == "held" ? .pending : WebhookDeliveryState(rawValue: stateName) else {
            throw StoredRow.invalid(
                table: "webhookDelivery", id: "\(endpointID)/\(event.sequence)",
                "'\(stateName)' is not a delivery state")
        }
        let attempts = try Row.fetchAll(
            db,
            sql: """
                SELECT attemptedAt, statusCode, latencyMilliseconds, error FROM webhookAttempt
                WHERE endpointId = ? AND eventSequence = ? ORDER BY attemptedAt, id
                """, arguments: [endpointID, event.sequence]
        ).map { attempt in
            WebhookAttempt(
                attemptedAt: attempt["attemptedAt"], statusCode: attempt["statusCode"],
                latencyMilliseconds: attempt["latencyMilliseconds"], error: attempt["error"])
        }
        return WebhookDelivery(
            endpointID: endpointID, event: event, state: state,
            nextAttemptAt: stateName == "pending" ? row["nextAttemptAt"] : nil, attempts: attempts)
    }
}
