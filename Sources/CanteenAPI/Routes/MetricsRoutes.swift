import CanteenCore
import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus text format, for an ops or a metrics token, or anyone when the
/// server runs with `--metrics-public`.
struct MetricsRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/metrics") { _, context in try await scrape(context) }
    }

    func scrape(_ context: CanteenRequestContext) async throws -> Response {
        try MetricsAccess.authorize(token: context.token, metricsArePublic: services.metricsArePublic)
        let metrics = services.metrics
        metrics.setFeedWaiters(services.feed.waitingDisplays)
        metrics.setOrderFollowers(services.feed.orderFollowers)
        metrics.setFeedStreams(services.feed.openStreams)
        for cafe in try await services.cafes.cafes() {
            metrics.setOpenTickets(
                try await services.tickets.openTicketCount(cafeID: cafe.cafe.id), cafeID: cafe.cafe.id)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }

}

/// Who may read `GET /metrics`. Never decided by the peer's address: behind a reverse proxy on the
/// same host, every request comes from loopback.
public enum MetricsAccess {
    /// Anyone when the metrics are public; otherwise an ops or a metrics token (401 without a
    /// token, 403 with another role).
    public static func authorize(token: AccessToken?, metricsArePublic: Bool) throws(CanteenError) {
        if metricsArePublic { return }
        guard let token else {
            throw CanteenError(
                .unauthenticated, code: .unauthenticated,
                message: "metrics need an ops or metrics token (or canteen serve --metrics-public)")
        }
        guard token.role == .ops || token.role == .metrics else {
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "a \(token.role.rawValue) token cannot read metrics; it needs ops or metrics",
                parameters: ["role": token.role.rawValue])
        }
    }
}
