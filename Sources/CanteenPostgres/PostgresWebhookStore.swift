import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `WebhookRepository`, with the SQLite store's rules, for
/// several servers delivering from one outbox.
///
/// Events commit in sequence order on every server (their sequence is the feed position of
/// the change that caused them, taken from `feedSequence`'s row), so an endpoint's cursor
/// never skips one. In a delivery round the endpoints are locked (`FOR UPDATE SKIP LOCKED`):
/// one server at a time turns an endpoint's new events into deliveries, the other skips it.
/// Due deliveries are claimed with `FOR UPDATE SKIP LOCKED` and leased in the same statement
/// (`nextAttemptAt` moves to the lease's end): a round on another server skips what this one
/// is claiming and, once it committed, finds it not due, so no delivery is sent by two servers
/// at once. A server that dies mid-attempt leaves its lease to run out; then another retries.
public final class PostgresWebhookStore: WebhookRepository {
    let database: PostgresDatabase
    let ids: RandomID
    let clock: @Sendable () -> Date
    /// The most events read for one endpoint in one round.
    let fanOutBatch: Int
    /// The most open (pending or held) deliveries an endpoint has (see `WebhookStore`).
    let openPerEndpoint: Int

    public init(
        database: PostgresDatabase, ids: RandomID = RandomID(), fanOutBatch: Int = 1000,
        openPerEndpoint: Int = 1000, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.ids = ids
        self.fanOutBatch = max(1, fanOutBatch)
        self.openPerEndpoint = max(1, openPerEndpoint)
        self.clock = clock
    }

    static let endpointColumns = "id, url, cafeId, events, createdAt, previousSecretExpiresAt"

    // MARK: - Endpoints

    public func createEndpoint(
        _ registration: WebhookRegistration,
        audit: AuditEntry?
    ) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        let secret = newSecret()
        let endpoint = WebhookEndpoint(
            id: ids.make("whk"), url: registration.url, cafeID: registration.cafeID,
            events: registration.events, createdAt: clock(), previousSecretExpiresAt: nil)
        try await database.transaction { connection in
            let logger = self.database.logger
            if let cafeID = registration.cafeID,
                try await connection.firstRow("SELECT 1 FROM cafe WHERE id = \(cafeID)", logger: logger) == nil
            {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(cafeID)'", field: "cafeId",
                    parameters: ["cafe": cafeID])
            }
            // The feed's committed head: the events after it are the ones committed from now on.
            try await connection.run(
                """
                INSERT INTO webhookEndpoint (id, url, cafeId, events, secret, previousSecret, previousSecretExpiresAt,
                    cursor, createdAt)
                SELECT \(endpoint.id), \(endpoint.url), \(endpoint.cafeID),
                    \(endpoint.events.map(\.rawValue).joined(separator: " ")), \(secret), NULL, NULL, value,
                    \(endpoint.createdAt)
                FROM feedSequence WHERE id = 1
                """, logger: logger)
            try await PostgresAuditStore.record(
                audit?.targeting(endpoint.id), before: nil, after: endpoint.audited,
                at: endpoint.createdAt, connection, logger: logger)
        }
        return (endpoint, secret)
    }

    public func endpoints() async throws -> [WebhookEndpoint] {
        try await database.withConnection { connection in
            try await connection.rows(
                "SELECT \(unescaped: Self.endpointColumns) FROM webhookEndpoint ORDER BY createdAt, id",
                logger: self.database.logger
            ).map(Self.endpoint)
        }
    }

    public func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await database.withConnection { connection in
            try await connection.firstRow(
                "SELECT \(unescaped: Self.endpointColumns) FROM webhookEndpoint WHERE id = \(id)",
                logger: self.database.logger
            ).map(Self.endpoint)
        }
    }

    public func deleteEndpoint(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.transaction { connection in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    "DELETE FROM webhookEndpoint WHERE id = \(id) RETURNING \(unescaped: Self.endpointColumns)",
                    logger: logger)
            else {
                throw CanteenError.notFound(.webhook, id)
            }
            try await PostgresAuditStore.record(
                audit, before: try Self.endpoint(row).audited, after: nil, at: now,
                connection, logger: logger)
        }
    }

    public func rotateSecret(
        endpointID: String,
        audit: AuditEntry?
    ) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        let secret = newSecret()
        let now = clock()
        let endpoint = try await database.transaction { connection in
            guard
                let row = try await connection.firstRow(
                    """
                    UPDATE webhookEndpoint SET previousSecret = secret,
                        previousSecretExpiresAt = \(now.addingTimeInterval(WebhookEndpoint.secretOverlap)), secret = \(secret)
                    WHERE id = \(endpointID)
                    RETURNING \(unescaped: Self.endpointColumns)
                    """, logger: self.database.logger)
            else { throw CanteenError.notFound(.webhook, endpointID) }
            try await PostgresAuditStore.write(
                audit.map(WebhookEndpoint.secretRotation(at: now)), connection,
                logger: self.database.logger)
            return try Self.endpoint(row)
        }
        return (endpoint, secret)
    }

    /// `whsec_` and 32 random bytes, base64url.
    private func newSecret() -> String { "whsec_" + ids.base64URL(bytes: 32) }

    /// A row of `endpointColumns`; an event type this version does not know is an error naming the row.
    static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        let (id, url, cafeID, names, createdAt, previousSecretExpiresAt) = try StoredColumns.decode(
            row, table: "webhookEndpoint", (String, String, String?, String, Date, Date?).self)
        var events: [OrderEventType] = []
        for name in names.split(separator: " ") {
            guard let type = OrderEventType(rawValue: String(name)) else {
                throw StoredRow.invalid(table: "webhookEndpoint", id: id, "'\(name)' is not an order event type")
            }
            events.append(type)
        }
        return WebhookEndpoint(
            id: id, url: url, cafeID: cafeID, events: events, createdAt: createdAt,
            previousSecretExpiresAt: previousSecretExpiresAt)
    }

    // MARK: - Deliveries as ops see them

    /// A delivery's columns and its event's (`deliveryFrom`'s rows).
    static let deliveryColumns = """
        d.endpointId, d.state, d.nextAttemptAt, e.sequence, e.id, e.orderId, e.cafeId, e.type, e.previousSequence,
        e.tickets, e.createdAt
        """

    public func deliveries(endpointID: String, limit: Int) async throws -> [WebhookDelivery] {
        try await database.withConnection { connection in
            let logger = self.database.logger
            guard
                try await connection.firstRow(
                    "SELECT 1 FROM webhookEndpoint WHERE id = \(endpointID)",
                    logger: logger) != nil
            else {
                throw CanteenError.notFound(.webhook, endpointID)
            }
            let rows = try await connection.rows(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM webhookDelivery d
                JOIN orderEvent e ON e.sequence = d.eventSequence
                WHERE d.endpointId = \(endpointID) ORDER BY d.eventSequence DESC LIMIT \(limit)
                """, logger: logger)
            var deliveries: [WebhookDelivery] = []
            for row in rows { deliveries.append(try await Self.delivery(connection, from: row, logger: logger)) }
            return deliveries
        }
    }

    public func redeliver(endpointID: String, eventID: String, audit: AuditEntry?) async throws -> WebhookDelivery {
        let now = clock()
        return try await database.transaction { connection in
            let logger = self.database.logger
            guard
                try await connection.firstRow(
                    "SELECT 1 FROM webhookEndpoint WHERE id = \(endpointID) FOR UPDATE",
                    logger: logger) != nil
            else {
                throw CanteenError.notFound(.webhook, endpointID)
            }
            guard
                let found = try await connection.firstRow(
                    """
                    SELECT d.eventSequence, d.orderId, d.state FROM webhookDelivery d
                    JOIN orderEvent e ON e.sequence = d.eventSequence
                    WHERE d.endpointId = \(endpointID) AND e.id = \(eventID)
                    FOR UPDATE OF d
                    """, logger: logger)
            else {
                throw CanteenError.notFound(.delivery, eventID, field: "eventId")
            }
            let (sequence, orderID, state) = try StoredColumns.decode(
                found, table: "webhookDelivery",
                (Int64, String, String).self)
            var next = state
            if state == "delivered" || state == "failed" {
                // Sent again after whatever of its order is open now: one pending per order.
                let busy = try await Self.hasOpenDelivery(
                    connection, endpointID: endpointID, orderID: orderID,
                    logger: logger)
                next = busy ? "held" : "pending"
            }
            // Due since the epoch: whatever clock the delivery service keeps, it is due now.
            try await connection.run(
                """
                UPDATE webhookDelivery SET state = \(next), nextAttemptAt = \(Date(timeIntervalSince1970: 0)),
                    firstAttemptAt = NULL
                WHERE endpointId = \(endpointID) AND eventSequence = \(sequence)
                """, logger: logger)
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT \(unescaped: Self.deliveryColumns) FROM webhookDelivery d
                    JOIN orderEvent e ON e.sequence = d.eventSequence
                    WHERE d.endpointId = \(endpointID) AND d.eventSequence = \(sequence)
                    """, logger: logger)
            else { throw CanteenError.notFound(.delivery, eventID, field: "eventId") }
            try await PostgresAuditStore.record(
                audit, before: ["eventId": .string(eventID), "state": .string(state)],
                after: ["eventId": .string(eventID), "state": .string(next)], at: now,
                connection, logger: logger)
            return try await Self.delivery(connection, from: row, logger: logger)
        }
    }

    /// A delivery from a row of `deliveryColumns`, with its attempts.
    private static func delivery(
        _ connection: PostgresConnection, from row: PostgresRow,
        logger: Logger
    ) async throws -> WebhookDelivery {
        let (
            endpointID, stateName, nextAttemptAt, sequence, id, orderID, cafeID, type, previousSequence, tickets,
            createdAt
        ) = try StoredColumns.decode(
            row, table: "webhookDelivery",
            (String, String, Date, Int64, String, String, String, String, Int64?, String?, Date).self)
        let event = try PostgresOrderEventStore.event(
            sequence: sequence, id: id, orderID: orderID, cafeID: cafeID,
            typeName: type, previousSequence: previousSequence,
            tickets: tickets, createdAt: createdAt)
        guard let state = stateName == "held" ? .pending : WebhookDeliveryState(rawValue: stateName) else {
            throw StoredRow.invalid(
                table: "webhookDelivery", id: "\(endpointID)/\(sequence)",
                "'\(stateName)' is not a delivery state")
        }
        let attempts = try await connection.rows(
            """
            SELECT attemptedAt, statusCode, latencyMilliseconds, error FROM webhookAttempt
            WHERE endpointId = \(endpointID) AND eventSequence = \(sequence) ORDER BY attemptedAt, id
            """, logger: logger
        ).map { attempt in
            let (attemptedAt, statusCode, latency, error) = try StoredColumns.decode(
                attempt, table: "webhookAttempt", (Date, Int?, Int, String?).self)
            return WebhookAttempt(
                attemptedAt: attemptedAt, statusCode: statusCode, latencyMilliseconds: latency,
                error: error)
        }
        return WebhookDelivery(
            endpointID: endpointID, event: event, state: state,
            nextAttemptAt: stateName == "pending" ? nextAttemptAt : nil, attempts: attempts)
    }
}
