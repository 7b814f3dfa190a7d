import CanteenAPI
import CanteenCore
import CanteenFormat
import CanteenNotify
import CanteenPostgres
import CanteenStore
import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The one composition root: database, stores, metrics, router and HTTP server.
///
/// Metrics go to the configuration's registry (a new one by default), never to the global
/// `MetricsSystem`: the request middleware binds this application's factory to each request.
/// Log lines written while a request is handled carry its `request_id` (and, tracing, `trace_id`).
public func buildApplication(
    _ configuration: AppConfiguration,
    clock: @escaping @Sendable () -> Date = Date.init
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "canteen", metadataProvider: TraceLog.provider(tracing: configuration.tracing))
    logger.logLevel = configuration.logLevel
    // Taken before the database is opened: no restore may replace it under a running server.
    var hold: DataDirectoryHold?
    if case .sqlite(let directory?) = configuration.store {
        hold = DataDirectoryHold(lock: try DataDirectoryLock.server(directory: directory))
    }
    let stores = try CanteenStores.open(configuration.store, clock: clock, checked: true)
    let importLogger = logger
    let firstMinute = FirstMinute()
    let importSamples: @Sendable () async throws -> Void = {
        if let menus = configuration.menusDirectory {
            let imported = try await stores.importSampleCafesIfEmpty(from: menus)
            if imported > 0 { importLogger.info("imported \(imported) cafés from \(menus.relativePath)") }
            // Only the start that imported (once, whatever servers start together) makes them.
            if imported > 0, configuration.welcome != nil {
                try await firstMinute.provision(
                    tokens: stores.tokens, cafeID: try await stores.cafes.cafes().first?.cafe.id)
            }
        }
    }
    // SQLite is open already; PostgreSQL is migrated by its service, which runs with the server.
    if stores.sqliteDatabase != nil { try await importSamples() }
    let strings = try Strings(directory: configuration.localesDirectory)
    var built = stores.apiServices(
        strings: strings, prices: PriceFormatter(cacheCapacity: 1024),
        windows: PickupWindowFormatter(cacheCapacity: 1024, labelCapacity: 8192),
        heartbeat: configuration.eventStreamHeartbeat, clock: clock,
        metrics: configuration.metrics ?? CanteenMetrics(),
        webhookPolicy: configuration.webhooks.addressPolicy)
    built.identity = configuration.identity
    built.metricsArePublic = configuration.metricsArePublic
    built.tracesRequests = configuration.tracing
    let services = built
    var deliveries = configuration.webhooks
    deliveries.traced = configuration.tracing
    if case .failure(let error) = services.pages {
        logger.error("the pages /kds, /kiosk and /board cannot be served: \(error)")
    }
    let renderer = OrderEventRenderer(services: services)
    let webhooks = WebhookDeliveryService(
        webhooks: stores.webhooks, events: stores.orderEvents,
        render: { event in try await renderer.webhookBody(event) },
        settings: deliveries, logger: logger)
    let routes = CanteenRouter.build(services)
    let serverLogger = logger
    let headerTimeout = configuration.headerTimeout
    let idleTimeout = configuration.idleTimeout
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [
            FirstRequestDeadline(timeout: headerTimeout)
        ],
        idleTimeout: TimeAmount(idleTimeout),
        httpDecoderConfiguration: .init(
            maxHeaderFieldSize: APILimits.maxHeaderFieldBytes,
            maxHeaderListSize: APILimits.maxHeaderBytes,
            maxHeaderFieldCount: APILimits.maxHeaderFields))
    var app = Application(
        router: routes.router,
        server: .canteenHTTP1(
            configuration: http1, onQuiesce: { [feed = services.feed] in feed.serverIsStopping() }),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: CanteenServer.name),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            serverLogger.notice("Canteen listening on http://\(configuration.host):\(port)")
            if let welcome = configuration.welcome,
                let text = firstMinute.takeText(base: FirstMinute.base(host: configuration.host, port: port))
            {
                welcome(text)
            }
        },
        logger: logger)
    if stores.postgresDatabase != nil { app.beforeServerStarts(perform: importSamples) }
    if let hold { app.addServices(hold) }
    // The database first: services stop in reverse order, so it closes last.
    app.addServices(
        stores.databaseService, services.feed,
        IdempotencyPurgeService(idempotency: stores.idempotency, clock: clock, logger: logger), webhooks,
        TicketFiringService(
            kitchen: stores.kitchen, clock: clock, clockRate: configuration.clockRate,
            pollInterval: configuration.firingPollInterval, logger: logger))
    return app
}

/// Keeps the SQLite database open for the server's lifetime, following other processes' changes
/// (tokens revoked, menus imported) for the caches, and closes it on graceful shutdown.
struct SQLiteDatabaseService: Service {
    let database: AppDatabase

    func run() async throws {
        try await StoreChangeWatcher(database: database).run()
        try database.close()
    }
}
