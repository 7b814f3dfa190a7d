import CanteenCore
import Foundation

/// How webhooks are delivered: the request timeout, the retry schedule, how many requests run
/// at once, which internal addresses they may go to. Tests shorten the delays through
/// `AppConfiguration`.
public struct WebhookDeliverySettings: Hashable, Sendable {
    /// The longest one request may take, from connecting to the answer's head (10 s).
    public var timeout: Duration
    /// The delay before the first retry; each later one doubles it, up to `maxRetryDelay`, and
    /// is shortened by a random part of up to half (jitter), so that receivers coming back
    /// are not hit by every retry at once.
    public var firstRetryDelay: Duration
    public var maxRetryDelay: Duration
    /// How long after its first attempt a delivery is retried before it is marked failed (24 h).
    public var retryPeriod: Duration
    /// The most requests in flight at once, over every endpoint.
    public var maxConcurrentDeliveries: Int
    /// How often the outbox is looked at without a wake-up (events written by another process,
    /// retries falling due).
    public var pollInterval: Duration
    /// The least time between two rounds: a round's bookkeeping is one write transaction, and
    /// spacing them keeps the single writer free for orders.
    public var roundSpacing: Duration
    /// Whether each attempt is a client span that sends its `traceparent` (`--otel-endpoint`).
    public var traced = false
    /// Where webhooks may go: public addresses, and the internal ranges ops allowed
    /// (`--webhook-allow-private`). Judged at registration and before every attempt.
    public var addressPolicy: WebhookAddressPolicy

    public init(
        timeout: Duration = .seconds(10), firstRetryDelay: Duration = .seconds(5),
        maxRetryDelay: Duration = .seconds(3600), retryPeriod: Duration = .seconds(24 * 3600),
        maxConcurrentDeliveries: Int = 32, pollInterval: Duration = .seconds(1),
        roundSpacing: Duration = .milliseconds(50),
        addressPolicy: WebhookAddressPolicy = WebhookAddressPolicy()
    ) {
        self.timeout = timeout
        self.firstRetryDelay = firstRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.retryPeriod = retryPeriod
        self.maxConcurrentDeliveries = max(1, maxConcurrentDeliveries)
        self.pollInterval = pollInterval
        self.roundSpacing = roundSpacing
        self.addressPolicy = addressPolicy
    }

    /// How long a handed-out delivery stays leased: longer than any attempt, so that no other
    /// round (of this process or another on the same database) hands it out meanwhile; after a
    /// crash it is tried again once the lease ends.
    public var lease: Duration { timeout + Self.recordingMargin }

    /// Kept between the latest end of an attempt and the end of its lease, to record its result.
    public static let recordingMargin: Duration = .seconds(2)

    /// How long an attempt starting at `now` may take: the timeout, cut so that the attempt ends
    /// `recordingMargin` before its lease does. An attempt that starts late (a loaded machine, a
    /// long round) thus never outlives its lease, and no round hands its delivery out again
    /// while it is still out.
    public func attemptTimeout(leasedUntil: Date, now: Date) -> Duration {
        let left = leasedUntil.timeIntervalSince(now) - Self.recordingMargin.seconds
        return min(timeout, .milliseconds(Int64(max(0, left) * 1000)))
    }

    /// The delay before retry number `attempt` (1 after the first failure): exponential, capped,
    /// with jitter taking off a random part of up to half. `random` is in 0..<1.
    public func retryDelay(afterAttempt attempt: Int, random: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 40)
        let capped = min(firstRetryDelay.seconds * pow(2, Double(doublings)), maxRetryDelay.seconds)
        return .milliseconds(Int64((capped * (1 - 0.5 * random) * 1000).rounded()))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
