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

    public init(
        id: String, url: String, cafeID: String?, events: [OrderEventType], createdAt: Date,
        previousSecretExpiresAt: Date?
    ) {
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
            throw CanteenError(
                .invalid, code: .invalidField, message: "events names at least one event type",
                field: "events")
        }
        var types: Set<OrderEventType> = []
        for (index, name) in events.enumerated() {
            guard let type = OrderEventType(rawValue: name), OrderEventType.webhookTypes.contains(type) else {
                let known = OrderEventType.webhookTypes.map(\.rawValue).joined(separator: ", ")
                throw CanteenError(
                    .invalid, code: .unknownEventType,
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

    public init(
        endpointID: String, event: OrderEvent, state: WebhookDeliveryState, nextAttemptAt: Date?,
        attempts: [WebhookAttempt]
    ) {
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

    public init(
        endpointID: String, url: String, secrets: WebhookSecrets, event: OrderEvent, attempt: Int,
        firstAttemptAt: Date?, leasedUntil: Date
    ) {
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

// MARK: - Audit

extension WebhookEndpoint {
    /// What the audit log shows of an endpoint: never its secret.
    public var audited: JSONValue {
        .object([
            "url": .string(url), "cafeId": cafeID.map(JSONValue.string) ?? .null,
            "events": .array(events.map { .string($0.rawValue) }),
        ])
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
