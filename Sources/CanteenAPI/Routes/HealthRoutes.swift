import Foundation
import HTTPTypes
import Hummingbird

/// `GET /healthz`: liveness (the process answers). `GET /readyz`: readiness (the database is
/// migrated, answers and can be written, and the cafés are loaded), for load balancers. Neither
/// needs a token.
struct HealthRoutes {
    struct Ready: Encodable {
        let status: String
        let database: String?
        let cafes: Int?
        let reason: String?
    }

    let readiness: Readiness

    func register(on routes: RouteTable) {
        // The one answer liveness has, encoded once: load balancers ask it every few seconds.
        let alive = JSONResponse.make(encoded: Data(#"{"status":"ok"}"#.utf8))
        routes.on(.get, "/healthz") { _, _ in alive }
        routes.on(.get, "/readyz") { _, _ in
            switch await readiness.verdict() {
            case .ready(let cafes):
                return try JSONResponse.make(
                    Ready(
                        status: "ready", database: readiness.engine, cafes: cafes,
                        reason: nil))
            case .notReady(let reason):
                return try JSONResponse.make(
                    Ready(
                        status: "not_ready", database: readiness.engine, cafes: nil,
                        reason: reason),
                    status: .serviceUnavailable, headers: [.retryAfter: "5", .cacheControl: "no-store"])
            }
        }
    }
}
