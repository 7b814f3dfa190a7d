import Beacons
import CanteenCore
import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// Canteen's own metrics and the registry `GET /metrics` writes out.
///
/// Every metric is made through the swift-metrics API with this instance's factory, never the
/// global `MetricsSystem`: each application (and each test) has its own registry. The HTTP
/// metrics of Hummingbird's `MetricsMiddleware` reach the same registry because the request
/// middleware binds this factory to the request's task (`withMetricsFactory`).
public final class CanteenMetrics: Sendable {
    /// Where the metrics live; `GET /metrics` writes it in Prometheus text format.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory over `registry`.
    public let factory: any MetricsFactory

    /// Orders committed (`canteen_orders_placed_total{cafe}`).
    private let placed = Labelled<CoreMetrics.Counter>()
    /// Answers replayed from an idempotency key (`canteen_order_replays_total`).
    private let orderReplays: CoreMetrics.Counter
    /// Orders refused, by error code (`canteen_orders_refused_total{reason}`).
    private let refused = Labelled<CoreMetrics.Counter>()
    /// Open tickets per café, read at each scrape (`canteen_open_tickets{cafe}`).
    private let openTickets = Labelled<CoreMetrics.Gauge>()
    /// Displays parked in a long-poll, read at each scrape (`canteen_feed_waiters`).
    private let feedWaiters: CoreMetrics.Gauge
    /// From the moment this process learns of a ticket change to the moment a display waiting
    /// for it has its page (`canteen_feed_wakeup_delay_seconds`).
    private let feedWakeupDelay: CoreMetrics.Timer
    /// Beacon sightings received by `POST /v1/locate` and café resolution
    /// (`canteen_beacon_reports_parsed_total`), and those of registered beacons
    /// (`canteen_beacon_sightings_total{known}`).
    private let beaconReportsParsed: CoreMetrics.Counter
    private let beaconSightings = Labelled<CoreMetrics.Counter>()

    /// Histogram buckets: HTTP requests run from a millisecond to a 30 s long-poll; a wake-up
    /// takes well under a millisecond to tens of milliseconds.
    static let requestBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]
    static let wakeupBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.requestBuckets
        factory.durationHistogramBuckets = ["canteen_feed_wakeup_delay_seconds": Self.wakeupBuckets]
        self.factory = factory
        orderReplays = CoreMetrics.Counter(label: "canteen_order_replays_total", factory: factory)
        feedWaiters = CoreMetrics.Gauge(label: "canteen_feed_waiters", factory: factory)
        feedWakeupDelay = CoreMetrics.Timer(label: "canteen_feed_wakeup_delay_seconds", factory: factory)
        beaconReportsParsed = CoreMetrics.Counter(label: "canteen_beacon_reports_parsed_total", factory: factory)
    }

    // MARK: - Recording

    func orderPlaced(cafeID: String) {
        placed.metric(["cafe": cafeID]) { CoreMetrics.Counter(label: "canteen_orders_placed_total", dimensions: $0, factory: factory) }
            .increment()
    }

    func orderReplayed() { orderReplays.increment() }

    func setFeedWaiters(_ count: Int) { feedWaiters.record(count) }

    /// A display waiting for a change published at `published` has its page now.
    func feedWoken(since published: ContinuousClock.Instant) { feedWakeupDelay.recordInterval(since: published) }

    func orderRefused(_ code: ErrorCode) {
        refused.metric(["reason": code.rawValue]) {
            CoreMetrics.Counter(label: "canteen_orders_refused_total", dimensions: $0, factory: factory)
        }.increment()
    }

    func setOpenTickets(_ count: Int, cafeID: String) {
        openTickets.metric(["cafe": cafeID]) { CoreMetrics.Gauge(label: "canteen_open_tickets", dimensions: $0, factory: factory) }
            .record(count)
    }

    /// Counts sightings a device reported, and which of them are of registered beacons.
    func beaconSightings(_ sightings: [LocateSighting], registry: BeaconRegistry) {
        let known = sightings.reduce(0) { $0 + (registry.beacons[$1.identity] == nil ? 0 : 1) }
        beaconSightings(known: known, unknown: sightings.count - known)
    }

    func beaconSightings(known: Int, unknown: Int) {
        beaconReportsParsed.increment(by: known + unknown)
        for (label, count) in [("true", known), ("false", unknown)] where count > 0 {
            beaconSightings.metric(["known": label]) {
                CoreMetrics.Counter(label: "canteen_beacon_sightings_total", dimensions: $0, factory: factory)
            }.increment(by: count)
        }
    }

    /// The registry in Prometheus text format.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}

/// Metrics of one family made once per set of label values.
private final class Labelled<Metric: Sendable>: Sendable {
    private let made = Mutex<[[String: String]: Metric]>([:])

    func metric(_ labels: [String: String], make: ([(String, String)]) -> Metric) -> Metric {
        made.withLock { made in
            if let metric = made[labels] { return metric }
            let metric = make(labels.sorted { $0.key < $1.key })
            made[labels] = metric
            return metric
        }
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` to now.
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
