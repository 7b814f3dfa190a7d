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

/// The stores of one database, ready for the API and the command line.
public struct CanteenStores: Sendable {
    /// The engine and its database.
    public enum Engine: Sendable {
        case sqlite(AppDatabase)
        case postgres(PostgresDatabase)
    }

    public let engine: Engine
    public let cafes: any CafeRepository
    public let tokens: any TokenRepository
    public let orders: any OrderRepository
    public let pickupCapacity: any PickupCapacityRepository
    public let tickets: any TicketRepository
    public let idempotency: any IdempotencyRepository
    public let preferences: any PreferencesRepository
    public let beacons: any BeaconRepository
    public let cards: any CardRepository
    public let coupons: any CouponRepository
    public let orderEvents: any OrderEventRepository
    public let webhooks: any WebhookRepository
    public let sessions: any SessionRepository
    public let personalData: any PersonalDataRepository
    /// The kitchen's queue and the firing of held tickets.
    public let kitchen: any KitchenRepository
    /// What is left of limited dishes.
    public let dailyStock: any DailyStockRepository
    /// The audit log the other stores write, and the reports read from orders.
    public let audit: any AuditRepository
    public let reports: any ReportRepository

    /// The SQLite database, when that is the engine.
    public var sqliteDatabase: AppDatabase? {
        if case .sqlite(let database) = engine { return database }
        return nil
    }

    /// The PostgreSQL database, when that is the engine.
    public var postgresDatabase: PostgresDatabase? {
        if case .postgres(let database) = engine { return database }
        return nil
    }

    /// Opens the database in `dataDirectory` (in memory when nil), migrating it. With
    /// `checked`, an existing file is verified first and refused, untouched, when it is damaged.
    public static func open(
        dataDirectory: URL?, clock: @escaping @Sendable () -> Date = Date.init,
        checked: Bool = false
    ) throws -> CanteenStores {
        let database =
            try dataDirectory.map { try AppDatabase.open(directory: $0, verify: checked) } ?? AppDatabase.inMemory()
        let cafes = CafeStore(database: database, clock: clock)
        let ids = RandomID()
        let events = OrderEventStore(database: database, ids: ids)
        let tickets = TicketStore(database: database, events: events, clock: clock)
        let capacity = PickupCapacityStore(database: database, planner: PickupWindowPlanner(), clock: clock)
        // The server's key: card hashes and coupon signatures.
        let key = try CardKey.load(dataDirectory: dataDirectory)
        return CanteenStores(
            engine: .sqlite(database), cafes: cafes,
            tokens: TokenStore(database: database, ids: ids, clock: clock),
            orders: OrderStore(
                database: database, cafes: cafes, tickets: tickets, capacity: capacity,
                events: events, ids: ids, clock: clock),
            pickupCapacity: capacity, tickets: tickets,
            idempotency: IdempotencyStore(database: database),
            preferences: PreferencesStore(database: database, clock: clock),
            beacons: BeaconStore(database: database, cafes: cafes, clock: clock),
            cards: CardStore(database: database, key: key, clock: clock),
            coupons: CouponStore(database: database, key: key, clock: clock),
            orderEvents: events, webhooks: WebhookStore(database: database, ids: ids, clock: clock),
            sessions: SessionStore(database: database, ids: ids, clock: clock),
            personalData: PersonalDataStore(database: database),
            kitchen: tickets,
            dailyStock: DailyStockStore(database: database, cafes: cafes, clock: clock),
            audit: AuditStore(database: database), reports: ReportStore(database: database))
    }

    /// The stores on a PostgreSQL database. Nothing is read until `databaseService` runs (it
    /// migrates first); `withDatabase` runs it around a piece of work. The card and coupon key
    /// is `cardKey` when given (`CANTEEN_CARD_KEY`, the same on every server), else the one
    /// stored in the database (made once by the first server that needs it), so every server
    /// hashes cards and signs coupons alike.
    public static func open(
        postgres url: PostgresURL, cardKey: SymmetricKey? = nil, maximumConnections: Int = 20,
        logger: Logger = Logger(label: "canteen.postgres"),
        clock: @escaping @Sendable () -> Date = Date.init
    ) -> CanteenStores {
        let database = PostgresDatabase(url: url, maximumConnections: maximumConnections, logger: logger)
        let cafes = PostgresCafeStore(database: database, clock: clock)
        let ids = RandomID()
        let events = PostgresOrderEventStore(database: database, ids: ids)
        let tickets = PostgresTicketStore(database: database, events: events, clock: clock)
        let capacity = PostgresPickupCapacityStore(database: database, planner: PickupWindowPlanner(), clock: clock)
        let key = PostgresServerKey(database: database, fixed: cardKey)
        return CanteenStores(
            engine: .postgres(database), cafes: cafes,
            tokens: PostgresTokenStore(database: database, ids: ids, clock: clock),
            orders: PostgresOrderStore(
                database: database, cafes: cafes, tickets: tickets, capacity: capacity,
                events: events, ids: ids, clock: clock),
            pickupCapacity: capacity, tickets: tickets, idempotency: PostgresIdempotencyStore(database: database),
            preferences: PostgresPreferencesStore(database: database, clock: clock),
            beacons: PostgresBeaconStore(database: database, cafes: cafes, clock: clock),
            cards: PostgresCardStore(database: database, key: key, clock: clock),
            coupons: PostgresCouponStore(database: database, key: key, clock: clock),
            orderEvents: events, webhooks: PostgresWebhookStore(database: database, ids: ids, clock: clock),
            sessions: PostgresSessionStore(database: database, ids: ids, clock: clock),
            personalData: PostgresPersonalDataStore(database: database),
            kitchen: tickets, dailyStock: PostgresDailyStockStore(database: database, cafes: cafes, clock: clock),
            audit: PostgresAuditStore(database: database), reports: PostgresReportStore(database: database))
    }

    /// The stores at `location`. With `checked`, a SQLite file is verified before it is opened.
    public static func open(
        _ location: StoreLocation, clock: @escaping @Sendable () -> Date = Date.init,
        checked: Bool = false
    ) throws -> CanteenStores {
        switch location {
        case .sqlite(let directory):
            return try open(dataDirectory: directory, clock: clock, checked: checked)
        case .postgres(let url, _):
            return open(postgres: url, cardKey: try CardKey.fromEnvironment(), clock: clock)
        }
    }

    /// The database as a lifecycle service: on PostgreSQL the pool, the migrations and the
    /// change listener; on SQLite the change-counter watcher, and closing on shutdown.
    public var databaseService: any Service {
        switch engine {
        case .sqlite(let database): SQLiteDatabaseService(database: database)
        case .postgres(let database): database
        }
    }

    /// Runs `body` with the database running (what the command line and tests need: the
    /// PostgreSQL pool works only while its service runs), then stops it.
    public func withDatabase<T: Sendable>(_ body: (CanteenStores) async throws -> T) async throws -> T {
        guard case .postgres(let database) = engine else { return try await body(self) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            do {
                let result = try await body(self)
                group.cancelAll()
                try? await group.waitForAll()
                return result
            } catch {
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// What `GET /readyz` asks of the database.
    public var health: any DatabaseHealth {
        switch engine {
        case .sqlite(let database): SQLiteHealth(database: database)
        case .postgres(let database): PostgresHealth(database: database)
        }
    }

    /// The routes' services over these stores, with a kitchen feed of its own.
    /// Formatters are the application's own: pass the same ones to share their caches.
    public func apiServices(
        strings: Strings, prices: PriceFormatter = PriceFormatter(),
        windows: PickupWindowFormatter = PickupWindowFormatter(),
        heartbeat: Duration = .seconds(15),
        clock: @escaping @Sendable () -> Date = Date.init,
        metrics: CanteenMetrics = CanteenMetrics(),
        webhookPolicy: WebhookAddressPolicy = WebhookAddressPolicy(),
        hostResolver: any HostResolver = SystemHostResolver()
    ) -> APIServices {
        var services = APIServices(
            cafes: cafes, tokens: tokens, orders: orders, pickupCapacity: pickupCapacity, tickets: tickets,
            preferences: preferences, beacons: beacons, cards: cards, coupons: coupons, sessions: sessions,
            personalData: personalData,
            presenter: Presenter(strings: strings, prices: prices, windows: windows),
            feed: TicketFeed(tickets: tickets, events: orderEvents, heartbeat: heartbeat, metrics: metrics),
            orderEvents: orderEvents, webhooks: webhooks, audit: audit, reports: reports,
            webhookPolicy: webhookPolicy,
            hostResolver: hostResolver, kitchen: kitchen, dailyStock: dailyStock,
            clock: clock, metrics: metrics)
        services.readiness = Readiness(cafes: cafes, database: health)
        return services
    }

    /// Imports the café files of `directory` when the database has no café yet.
    /// Returns how many cafés were imported (0 when there were cafés already).
    @discardableResult
    public func importSampleCafesIfEmpty(from directory: URL) async throws -> Int {
        guard try await cafes.cafes().isEmpty else { return 0 }
        let documents = try CafeFiles.load(directory: directory).get()
        return try await cafes.importCafesIfEmpty(documents) ? documents.count : 0
    }
}
