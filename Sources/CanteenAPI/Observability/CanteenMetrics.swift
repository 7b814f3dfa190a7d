import Beacons
import CanteenCore
import CoreMetrics
import Foundation
import HTTPTypes
import Prometheus
import Synchronization

/// Canteen's own metrics and the registry `GET /metrics` writes out.
///
/// Every metric is made through the swift-metrics API with this instance's factory, never the
/// global `MetricsSystem`: each application (and each test) has its own registry. The HTTP
/// metrics of every request are recorded here too, by `APIMiddleware`, under the names
/// and labels of Hummingbird's `MetricsMiddleware`; that middleware is not used, because it
/// wraps every answer's body to time its write, which keeps Hummingbird from writing a body it
/// holds in one go (three writes, each awaited, instead of one).
public final class CanteenMetrics: Sendable {
    /// Where the metrics live; `GET /metrics` writes it in Prometheus text format.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory over `registry`.
    public let factory: any MetricsFactory

    /// Orders committed (`canteen_orders_placed_total{cafe}`).
    private let placed = Labelled<[String: String], CoreMetrics.Counter>()
    /// Answers replayed from an idempotency key (`canteen_order_replays_total`).
    private let orderReplays: CoreMetrics.Counter
    /// Orders refused, by error code (`canteen_orders_refused_total{reason}`).
    private let refused = Labelled<[String: String], CoreMetrics.Counter>()
    /// Open tickets per café, read at each scrape (`canteen_open_tickets{cafe}`).
    private let openTickets = Labelled<[String: String], CoreMetrics.Gauge>()
    /// Displays parked in a long-poll (`canteen_feed_waiters`) and ticket event streams open
    /// (`canteen_feed_streams`), read at each scrape.
    private let feedWaiters: CoreMetrics.Gauge
    /// Clients following an order (a long-poll or an event stream), read at each scrape
    /// (`canteen_order_followers`).
    private let orderFollowers: CoreMetrics.Gauge
    private let feedStreams: CoreMetrics.Gauge
    /// From the moment this process learns of a ticket change to the moment a display waiting
    /// for it has its page (`canteen_feed_wakeup_delay_seconds`).
    private let feedWakeupDelay: CoreMetrics.Timer
    /// Beacon sightings received by `POST /v1/locate` and café resolution
    /// (`canteen_beacon_reports_parsed_total`), and those of registered beacons
    /// (`canteen_beacon_sightings_total{known}`).
    private let beaconReportsParsed: CoreMetrics.Counter
    private let beaconSightings = Labelled<[String: String], CoreMetrics.Counter>()

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
        orderFollowers = CoreMetrics.Gauge(label: "canteen_order_followers", factory: factory)
        feedStreams = CoreMetrics.Gauge(label: "canteen_feed_streams", factory: factory)
        feedWakeupDelay = CoreMetrics.Timer(label: "canteen_feed_wakeup_delay_seconds", factory: factory)
        beaconReportsParsed = CoreMetrics.Counter(label: "canteen_beacon_reports_parsed_total", factory: factory)
    }

    /// The HTTP metrics of every request, made once per route, method and status.
    private let requestMetrics = Labelled<RequestKey, RequestMetrics>()
    private let activeRequests = Labelled<HTTPRequest.Method, CoreMetrics.Meter>()

    // MARK: - HTTP requests

    /// A request began: counted in `http_server_active_requests{http_request_method}` until
    /// `requestAnswered` is given the meter this returns.
    func requestStarted(method: HTTPRequest.Method) -> CoreMetrics.Meter {
        let active = activeRequest(method)
        active.increment()
        return active
    }

    /// A request was answered: `hb_requests` and `http_server_request_duration` (seconds) by route
    /// pattern, method and status (the names and labels of Hummingbird's `MetricsMiddleware`).
    func requestAnswered(
        route: String, method: HTTPRequest.Method, status: HTTPResponse.Status,
        since start: ContinuousClock.Instant, active: CoreMetrics.Meter
    ) {
        let metrics = request(RequestKey(route: route, method: method, status: status.code))
        metrics.counter.increment()
        metrics.duration.recordInterval(since: start)
        active.decrement()
    }

    private func activeRequest(_ method: HTTPRequest.Method) -> CoreMetrics.Meter {
        activeRequests.metric(for: method) { method in
            CoreMetrics.Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)],
                factory: factory)
        }
    }

    private func request(_ key: RequestKey) -> RequestMetrics {
        requestMetrics.metric(for: key) { RequestMetrics($0, factory: factory) }
    }

    // MARK: - Recording

    func orderPlaced(cafeID: String) {
        placed.metric(["cafe": cafeID]) {
            CoreMetrics.Counter(label: "canteen_orders_placed_total", dimensions: $0, factory: factory)
        }
        .increment()
    }

    func orderReplayed() { orderReplays.increment() }

    func setFeedWaiters(_ count: Int) { feedWaiters.record(count) }

    func setOrderFollowers(_ count: Int) { orderFollowers.record(count) }
    func setFeedStreams(_ count: Int) { feedStreams.record(count) }

    /// A display waiting for a change published at `published` has its page now.
    func feedWoken(since published: ContinuousClock.Instant) { feedWakeupDelay.recordInterval(since: published) }

    func orderRefused(_ code: ErrorCode) {
        refused.metric(["reason": code.rawValue]) {
            CoreMetrics.Counter(label: "canteen_orders_refused_total", dimensions: $0, factory: factory)
        }.increment()
    }

    func setOpenTickets(_ count: Int, cafeID: String) {
        openTickets.metric(["cafe": cafeID]) {
            CoreMetrics.Gauge(label: "canteen_open_tickets", dimensions: $0, factory: factory)
        }
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

/// The route pattern (never the raw path), method and status of an answered request.
private struct RequestKey: Hashable, Sendable {
    let route: String
    let method: HTTPRequest.Method
    let status: Int
}

/// The metrics of one `RequestKey`.
private struct RequestMetrics: Sendable {
    let counter: CoreMetrics.Counter
    let duration: CoreMetrics.Timer

    init(_ key: RequestKey, factory: any MetricsFactory) {
        let labels = [("http.route", key.route), ("http.request.method", key.method.rawValue)]
        let status = String(key.status)
        counter = CoreMetrics.Counter(
            label: "hb.requests", dimensions: labels + [("http.response.status_code", status)],
            factory: factory)
        duration = CoreMetrics.Timer(
            label: "http.server.request.duration",
            dimensions: labels + [("http.response.status_code", status)],
            preferredDisplayUnit: .seconds, factory: factory)
    }
}

/// Metrics of one family made once per key (a set of label values, or a typed key on hot paths).
private final class Labelled<Key: Hashable & Sendable, Metric: Sendable>: Sendable {
    private let made = Mutex<[Key: Metric]>([:])

    func metric(for key: Key, make: (Key) -> Metric) -> Metric {
        made.withLock { made in
            if let metric = made[key] { return metric }
            let metric = make(key)
            made[key] = metric
            return metric
        }
    }
}

extension Labelled where Key == [String: String] {
    /// The metric of these label values, made with them sorted by name.
    func metric(_ labels: [String: String], make: ([(String, String)]) -> Metric) -> Metric {
        metric(for: labels) { make($0.sorted { $0.key < $1.key }) }
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` to now.
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
