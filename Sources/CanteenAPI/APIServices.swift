import CanteenCore
import CanteenWeb
import Foundation

/// Everything the routes need, as protocols and app-owned parts: the composition root supplies
/// real stores, tests may supply others.
public struct APIServices: Sendable {
    public var cafes: any CafeRepository
    public var tokens: any TokenRepository
    public var orders: any OrderRepository
    public var pickupCapacity: any PickupCapacityRepository
    public var tickets: any TicketRepository
    public var preferences: any PreferencesRepository
    public var beacons: any BeaconRepository
    /// Renders responses in the reader's language and locale.
    public var presenter: Presenter
    /// The kitchen feed: where each café stands, parked displays, shared pages.
    public var feed: TicketFeed
    /// Registered badge cards.
    public var cards: any CardRepository
    /// Coupons and their signed codes.
    public var coupons: any CouponRepository
    /// Orders as their followers see them, and their events.
    public var orderEvents: any OrderEventRepository
    /// Webhook endpoints and their deliveries.
    public var webhooks: any WebhookRepository
    /// The audit log (written by the stores with each change; read here).
    public var audit: any AuditRepository
    /// Sales, kitchen and pickup-window reports.
    public var reports: any ReportRepository
    /// Where webhooks may be sent (judged at registration, as the delivery service judges each attempt).
    public var webhookPolicy: WebhookAddressPolicy
    /// Resolves a webhook URL's host name at registration.
    public var hostResolver: any HostResolver
    /// The kitchen's queue (ready times, live times).
    public var kitchen: any KitchenRepository
    /// What is left of limited dishes.
    public var dailyStock: any DailyStockRepository
    /// The current instant (a fixed clock in tests).
    public var clock: @Sendable () -> Date
    /// Canteen's metrics and the registry `GET /metrics` shows (the feed's own must be the same).
    public var metrics: CanteenMetrics
    /// Whether `GET /metrics` answers without a token (`canteen serve --metrics-public`).
    public var metricsArePublic = false
    /// Sessions of people signed in, and sign-ins under way.
    public var sessions: any SessionRepository
    /// One person's data as a whole (`/v1/me/data`, `DELETE /v1/me`).
    public var personalData: any PersonalDataRepository
    /// Sign-in with the identity provider, the public URL, trusted proxies (tokens only by default).
    public var identity: IdentitySettings = .tokensOnly
    /// The pages' files (`/kds`, `/kiosk`, `/board`, `/assets/…`): those shipped with Canteen.
    public var pages: Result<WebAssets, WebAssetsError> = WebAssets.bundled
    /// What `GET /readyz` asks (the composition root gives it the database's health check).
    public var readiness: Readiness
    /// Whether each request gets a server span (`--otel-endpoint`); off, tracing costs nothing.
    public var tracesRequests = false

    public init(
        cafes: any CafeRepository, tokens: any TokenRepository, orders: any OrderRepository,
        pickupCapacity: any PickupCapacityRepository, tickets: any TicketRepository,
        preferences: any PreferencesRepository, beacons: any BeaconRepository,
        cards: any CardRepository, coupons: any CouponRepository, sessions: any SessionRepository,
        personalData: any PersonalDataRepository, presenter: Presenter,
        feed: TicketFeed, orderEvents: any OrderEventRepository, webhooks: any WebhookRepository,
        audit: any AuditRepository, reports: any ReportRepository,
        webhookPolicy: WebhookAddressPolicy = WebhookAddressPolicy(), hostResolver: any HostResolver,
        kitchen: any KitchenRepository, dailyStock: any DailyStockRepository,
        clock: @escaping @Sendable () -> Date = Date.init, metrics: CanteenMetrics? = nil
    ) {
        self.cafes = cafes
        self.tokens = tokens
        self.orders = orders
        self.pickupCapacity = pickupCapacity
        self.tickets = tickets
        self.preferences = preferences
        self.presenter = presenter
        self.beacons = beacons
        self.feed = feed
        self.cards = cards
        self.sessions = sessions
        self.personalData = personalData
        self.coupons = coupons
        self.orderEvents = orderEvents
        self.webhooks = webhooks
        self.audit = audit
        self.reports = reports
        self.webhookPolicy = webhookPolicy
        self.hostResolver = hostResolver
        self.kitchen = kitchen
        self.dailyStock = dailyStock
        self.clock = clock
        self.metrics = metrics ?? feed.metrics
        readiness = Readiness(cafes: cafes, database: nil)
    }
}

extension APIServices {
    /// What is stored as left today (the café's local date at `now`) of the menu's limited
    /// dishes; nothing is read for a menu without any.
    func remaining(of menu: CafeMenu, now: Date) async throws -> [String: Int] {
        guard menu.menu.items.contains(where: { $0.dailyQuantity != nil }) else { return [:] }
        return try await dailyStock.remaining(cafeID: menu.cafe.id, date: DailyStock.day(of: now, at: menu.cafe))
    }
}
