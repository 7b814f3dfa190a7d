import CanteenAPI
import CanteenNotify
import CanteenPostgres
import Foundation
import Logging

/// Everything `buildApplication` needs to know; tests pass their own.
public struct AppConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Where `canteen.sqlite` lives; nil keeps the database in memory (tests).
    public var dataDirectory: URL?
    /// A PostgreSQL database to use instead of SQLite (several servers share one).
    public var database: PostgresURL?
    /// Café files imported when the database has no café yet; nil imports nothing.
    public var menusDirectory: URL?
    /// The UI strings, one file per language.
    public var localesDirectory: URL
    public var logLevel: Logger.Level
    /// How long a new connection may take to send its first complete request head; then it is closed.
    public var headerTimeout: Duration
    /// How long a connection may stay silent (no request part read or answer written, no
    /// request being answered) before it is closed.
    public var idleTimeout: Duration
    /// Where the application's metrics go (`GET /metrics`); tests may pass their own.
    public var metrics: CanteenMetrics?
    /// How webhooks are delivered (tests shorten the retry delays).
    public var webhooks: WebhookDeliverySettings
    /// How long an event stream (an order's, a café's tickets) stays quiet before it sends a comment.
    public var eventStreamHeartbeat: Duration
    /// Whether requests, order transactions and webhook attempts make spans (the tracer is
    /// bootstrapped by the caller, `--otel-endpoint`); off, no span is made.
    public var tracing = false
    /// Whether `GET /metrics` answers without a token (by default it needs an ops or metrics token).
    public var metricsArePublic = false
    /// Sign-in with the company's identity provider, the public URL, trusted proxies, client
    /// addresses in logs (tokens only by default).
    public var identity: IdentitySettings = .tokensOnly
    /// The longest the timer firing held tickets waits between two looks at the database.
    public var firingPollInterval: Duration
    /// How fast the application's clock runs against real time: 1, except for the kitchen
    /// simulation's accelerated clock (its timers wait that much less).
    public var clockRate: Double
    /// On the start that imports the sample cafés into an empty database: make the first
    /// minute's tokens, and hand the text with their links here once the server listens (nil:
    /// make none; `canteen serve` prints them to a terminal).
    public var welcome: (@Sendable (String) -> Void)?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL? = URL(fileURLWithPath: ".canteen"),
        menusDirectory: URL? = URL(fileURLWithPath: "Menus"),
        localesDirectory: URL = URL(fileURLWithPath: "Locales"), logLevel: Logger.Level = .info,
        headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
        metrics: CanteenMetrics? = nil, webhooks: WebhookDeliverySettings = WebhookDeliverySettings(),
        eventStreamHeartbeat: Duration = .seconds(15), firingPollInterval: Duration = .seconds(1),
        clockRate: Double = 1
    ) {
        self.webhooks = webhooks
        self.eventStreamHeartbeat = eventStreamHeartbeat
        self.firingPollInterval = firingPollInterval
        self.clockRate = clockRate
        self.localesDirectory = localesDirectory
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.menusDirectory = menusDirectory
        self.logLevel = logLevel
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.metrics = metrics
    }

    /// Where the stores live: `database` when set, else SQLite in `dataDirectory`.
    public var store: StoreLocation {
        database.map { .postgres($0, dataDirectory: dataDirectory) } ?? .sqlite(directory: dataDirectory)
    }
}
