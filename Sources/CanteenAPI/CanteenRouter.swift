import CanteenCore
import Hummingbird

/// Builds the HTTP router: request ids and logs, metrics, error mapping and authentication
/// around every route of the API.
public enum CanteenRouter {
    /// The router and the table of what it serves.
    public static func build(_ services: APIServices) -> RouteTable {
        let router = Router(context: CanteenRequestContext.self, options: options)
        let methods = RouteMethods()
        // Outermost when tracing: its span covers the answer as sent, errors mapped.
        if services.tracesRequests { router.add(middleware: RequestTracing()) }
        router.add(
            middleware: APIMiddleware(
                metrics: services.metrics,
                errors: ErrorAnswers(presenter: services.presenter, methods: methods),
                authentication: Authentication(
                    tokens: services.tokens, sessions: services.sessions,
                    identity: services.identity),
                identity: services.identity))
        let routes = RouteTable(router: router, methods: methods)
        HealthRoutes(readiness: services.readiness).register(on: routes)
        MetricsRoutes(services: services).register(on: routes)
        TokenRoutes(services: services).register(on: routes)
        CafeRoutes(services: services).register(on: routes)
        MenuRoutes(services: services).register(on: routes)
        PickupWindowRoutes(services: services).register(on: routes)
        OrderRoutes(services: services, gate: IdempotencyGate()).register(on: routes)
        TicketRoutes(services: services).register(on: routes)
        TicketEventRoutes(services: services).register(on: routes)
        PreferenceRoutes(services: services).register(on: routes)
        SitePreferenceRoutes(services: services).register(on: routes)
        BeaconRoutes(services: services).register(on: routes)
        LocateRoutes(services: services).register(on: routes)
        CafeResolutionRoutes(services: services).register(on: routes)
        // One card routes for both: a tap's identification counts against the same guesses.
        let cards = CardRoutes(services: services)
        cards.register(on: routes)
        CouponRoutes(services: services).register(on: routes)
        TapRoutes(
            services: services, relay: TapRelay(), cards: cards,
            coupons: CouponRoutes(services: services)
        ).register(on: routes)
        PageRoutes(services: services, assets: services.pages).register(on: routes)
        OrderEventRoutes(services: services).register(on: routes)
        WebhookRoutes(services: services).register(on: routes)
        AuthRoutes(services: services).register(on: routes)
        MeRoutes(services: services).register(on: routes)
        KitchenRoutes(services: services).register(on: routes)
        ReportRoutes(services: services).register(on: routes)
        AuditRoutes(services: services).register(on: routes)
        OverviewRoutes(services: services).register(on: routes)
        return routes
    }

    /// Every GET route also answers HEAD (RFC 9110 §9.3.2): the GET's status and headers,
    /// `Content-Length` included, without the body.
    static let options: RouterOptions = [.autoGenerateHeadEndpoints]
}
