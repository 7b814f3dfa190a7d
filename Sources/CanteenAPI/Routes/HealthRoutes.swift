import Hummingbird

/// `GET /healthz`: liveness, no authentication.
struct HealthRoutes {
    struct Health: Encodable { let status: String }

    func register(on routes: RouteTable) {
        routes.on(.get, "/healthz") { _, _ in try JSONResponse.make(Health(status: "ok")) }
    }
}
