import CanteenJSON
import Foundation

// MARK: - Endpoints

/// A receiver of order events that ops registered: where to post, which events, of which café.
public struct WebhookEndpoint: Hashable, Sendable {
    /// Public id (`whk_…`).
    public var id: String
    public var url: String
    /// The café whose events are sent; nil for every café.
    public var cafeID: String?
    /// The event types sent, in `OrderEventType.webhookTypes` order.
    public var events: [OrderEventType]
    public var createdAt: Date
    /// Until when the secret that a rotation replaced still signs deliveries (nil: no such secret).
    public var previousSecretExpiresAt: Date?

    public init(id: String, url: String, cafeID: String?, events: [OrderEventType], createdAt: Date,
                previousSecretExpiresAt: Date?) {
        self.id = id
        self.url = url
        self.cafeID = cafeID
        self.events = events
        self.createdAt = createdAt
        self.previousSecretExpiresAt = previousSecretExpiresAt
    }

    /// Whether this endpoint is sent `event`.
    public func accepts(_ type: OrderEventType, cafeID eventCafe: String) -> Bool {
        events.contains(type) && (cafeID == nil || cafeID == eventCafe)
    }

    /// How long a replaced secret keeps signing after a rotation.
    public static let secretOverlap: TimeInterval = 24 * 3600
}

/// What ops send to register an endpoint, checked.
public struct WebhookRegistration: Hashable, Sendable {
    public var url: String
    public var cafeID: String?
    public var events: [OrderEventType]

    /// Checks the URL (`invalid_webhook_url`) and the events (`unknown_event_type`, at least one).
    public init(url: String, cafeID: String?, events: [String]) throws(CanteenError) {
        self.url = try Self.checkedURL(url)
        self.cafeID = cafeID
        guard !events.isEmpty else {
            throw CanteenError(.invalid, code: .invalidField, message: "events names at least one event type",
                               field: "events")
        }
        var types: Set<OrderEventType> = []
        for (index, name) in events.enumerated() {
            guard let type = OrderEventType(rawValue: name), OrderEventType.webhookTypes.contains(type) else {
                let known = OrderEventType.webhookTypes.map(\.rawValue).joined(separator: ", ")
                throw CanteenError(.invalid, code: .unknownEventType,
                                   message: "'\(name.prefix(100))' is not an event type; use \(known)",
                                   field: "events[\(index)]", parameters: ["type": String(name.prefix(100))])
            }
            types.insert(type)
        }
        self.events = OrderEventType.webhookTypes.filter(types.contains)
    }

    /// The longest URL accepted.
    public static let maximumURLLength = WebhookDestination.maximumLength

    /// An absolute `http` or `https` URL, read strictly (see `WebhookDestination`). Where it
    /// points is judged apart, by the `WebhookAddressPolicy` (it needs the resolver).
    static func checkedURL(_ text: String) throws(CanteenError) -> String {
        _ = try WebhookDestination(url: text)
        return text
    }
}

/// The secrets that sign an endpoint's deliveries: the current one, and during 24 hours after
/// a rotation the one it replaced.
public struct WebhookSecrets: Hashable, Sendable {
    public var current: String
    public var previous: String?

    public init(current: String, previous: String?) {
        self.current = current
        self.previous = previous
    }
}

// MARK: - Deliveries

/// Where an event's delivery to one endpoint stands.
public enum WebhookDeliveryState: String, Hashable, Sendable {
    /// Not yet accepted by the receiver; will be tried (again).
    case pending
    /// The receiver answered 2xx.
    case delivered
    /// Retried for the whole retry period without success.
    case failed
}

/// One attempt to deliver an event.
public struct WebhookAttempt: Hashable, Sendable {
    public var attemptedAt: Date
    /// The receiver's HTTP status, nil when no answer came (refused, timed out).
    public var statusCode: Int?
    public var latencyMilliseconds: Int
    /// What went wrong (nil for a 2xx answer).
    public var error: String?

    public init(attemptedAt: Date, statusCode: Int?, latencyMilliseconds: Int, error: String?) {
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }
}

/// An event's delivery to one endpoint with its attempts, oldest first.
public struct WebhookDelivery: Hashable, Sendable {
    public var endpointID: String
    public var event: OrderEvent
    public var state: WebhookDeliveryState
    /// When it is tried next (pending ones only).
    public var nextAttemptAt: Date?
    public var attempts: [WebhookAttempt]

    public init(endpointID: String, event: OrderEvent, state: WebhookDeliveryState, nextAttemptAt: Date?,
                attempts: [WebhookAttempt]) {
        self.endpointID = endpointID
        self.event = event
        self.state = state
        self.nextAttemptAt = nextAttemptAt
        self.attempts = attempts
    }
}

/// One delivery attempt handed to the delivery service: where, signed with what, which event.
public struct WebhookJob: Hashable, Sendable {
    public var endpointID: String
    public var url: String
    public var secrets: WebhookSecrets
    public var event: OrderEvent
    /// 1 for the first attempt.
    public var attempt: Int
    /// When the first attempt was made (the retry period counts from it); nil before it.
    public var firstAttemptAt: Date?
    /// Until when the delivery is leased to this attempt.
    public var leasedUntil: Date

    public init(endpointID: String, url: String, secrets: WebhookSecrets, event: OrderEvent, attempt: Int,
                firstAttemptAt: Date?, leasedUntil: Date) {
        self.endpointID = endpointID
        self.url = url
        self.secrets = secrets
        self.event = event
        self.attempt = attempt
        self.firstAttemptAt = firstAttemptAt
        self.leasedUntil = leasedUntil
    }
}

/// What an attempt came to, and what happens next.
public struct WebhookAttemptResult: Hashable, Sendable {
    public enum Next: Hashable, Sendable {
        /// The receiver accepted it.
        case delivered
        /// Try again at this instant.
        case retry(at: Date)
        /// The retry period is over.
        case failed
    }

    public var endpointID: String
    public var eventSequence: Int64
    /// The lease the attempt was made under: a delivery whose lease changed meanwhile (ops asked
    /// for a redelivery, the lease ended and another round took it) keeps its new state.
    public var leasedUntil: Date
    public var attempt: WebhookAttempt
    public var next: Next

    public init(endpointID: String, eventSequence: Int64, leasedUntil: Date, attempt: WebhookAttempt, next: Next) {
        self.endpointID = endpointID
        self.eventSequence = eventSequence
        self.leasedUntil = leasedUntil
        self.attempt = attempt
        self.next = next
    }
}

/// What one round of the delivery service got: the attempts to make now, and when the next
/// pending delivery falls due.
public struct WebhookRound: Hashable, Sendable {
    public var jobs: [WebhookJob]
    /// The earliest instant a pending delivery not handed out now falls due (nil: none pending).
    public var nextDue: Date?
    /// Events remain that were not yet turned into deliveries (run another round at once).
    public var moreEvents: Bool

    public init(jobs: [WebhookJob], nextDue: Date?, moreEvents: Bool) {
        self.jobs = jobs
        self.nextDue = nextDue
        self.moreEvents = moreEvents
    }
}

// MARK: - Repository

/// Where webhook endpoints and the deliveries of the order-event outbox are kept.
public protocol WebhookRepository: Sendable {
    /// Registers an endpoint; it is sent the events committed from now on. The secret is
    /// returned once. `cafe_not_found` when `cafeID` names no café.
    /// `audit` (when given, here and below) is recorded in the same transaction, never a secret.
    func createEndpoint(_ registration: WebhookRegistration,
                        audit: AuditEntry?) async throws -> (endpoint: WebhookEndpoint, secret: String)
    /// Every endpoint, oldest first.
    func endpoints() async throws -> [WebhookEndpoint]
    /// One endpoint, or nil.
    func endpoint(id: String) async throws -> WebhookEndpoint?
    /// Deletes an endpoint with its deliveries; `webhook_not_found`.
    func deleteEndpoint(id: String, audit: AuditEntry?) async throws
    /// Replaces the secret; the replaced one keeps signing for `WebhookEndpoint.secretOverlap`.
    func rotateSecret(endpointID: String, audit: AuditEntry?) async throws -> (endpoint: WebhookEndpoint, secret: String)
    /// The endpoint's latest deliveries with their attempts, newest event first; `webhook_not_found`.
    func deliveries(endpointID: String, limit: Int) async throws -> [WebhookDelivery]
    /// Delivers an event to an endpoint again as soon as possible, with a fresh retry period
    /// (`delivery_not_found` when the endpoint was never sent that event).
    func redeliver(endpointID: String, eventID: String, audit: AuditEntry?) async throws -> WebhookDelivery
    /// One round of the delivery service, in one transaction: records the attempts that
    /// finished, turns new events into deliveries for the endpoints that want them, and hands
    /// out up to `limit` deliveries that are due and not held back by an earlier pending event
    /// of the same order, leased until `now + lease` (a crashed attempt is retried after it).
    func deliveryRound(recording results: [WebhookAttemptResult], claim limit: Int, now: Date,
                       lease: TimeInterval) async throws -> WebhookRound
}

extension WebhookRepository {
    public func createEndpoint(_ registration: WebhookRegistration) async throws -> (endpoint: WebhookEndpoint,
                                                                                     secret: String) {
        try await createEndpoint(registration, audit: nil)
    }

    public func deleteEndpoint(id: String) async throws { try await deleteEndpoint(id: id, audit: nil) }

    public func rotateSecret(endpointID: String) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        try await rotateSecret(endpointID: endpointID, audit: nil)
    }

    public func redeliver(endpointID: String, eventID: String) async throws -> WebhookDelivery {
        try await redeliver(endpointID: endpointID, eventID: eventID, audit: nil)
    }
}

extension WebhookEndpoint {
    /// What the audit log shows of an endpoint: never its secret.
    public var audited: JSONValue {
        .object(["url": .string(url), "cafeId": cafeID.map(JSONValue.string) ?? .null,
                 "events": .array(events.map { .string($0.rawValue) })])
    }

    /// The audit entry of a secret rotation at `now`: that the secret changed, never its value.
    public static func secretRotation(at now: Date) -> @Sendable (AuditEntry) -> AuditEntry {
        { entry in
            var entry = entry
            entry.at = now
            entry.changes = [AuditChange(field: "secret", before: nil, after: nil)]
            return entry
        }
    }
}
