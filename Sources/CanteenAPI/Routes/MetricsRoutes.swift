import CanteenCore
import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus text format. Without a token only from this machine (loopback);
/// from elsewhere with an ops token.
struct MetricsRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/metrics") { _, context in try await scrape(context) }
    }

    func scrape(_ context: CanteenRequestContext) async throws -> Response {
        try MetricsAccess.authorize(token: context.token, remoteAddress: context.remoteAddress)
        let metrics = services.metrics
        metrics.setFeedWaiters(services.feed.waitingDisplays)
        metrics.setFeedStreams(services.feed.openStreams)
        for cafe in try await services.cafes.cafes() {
            metrics.setOpenTickets(try await services.tickets.openTicketCount(cafeID: cafe.cafe.id), cafeID: cafe.cafe.id)
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }

}

/// Who may read `GET /metrics`.
public enum MetricsAccess {
    /// An ops token from anywhere; no token from loopback only (401 otherwise); any other token is 403.
    public static func authorize(token: AccessToken?, remoteAddress: SocketAddress?) throws(CanteenError) {
        if let token {
            guard token.role == .ops else {
                throw CanteenError(.forbidden, code: .forbidden,
                                   message: "a \(token.role.rawValue) token cannot read metrics; it needs ops",
                                   parameters: ["role": token.role.rawValue])
            }
            return
        }
        guard isLoopback(remoteAddress) else {
            throw CanteenError(.unauthenticated, code: .unauthenticated,
                               message: "metrics need an ops token unless asked from this machine (loopback)")
        }
    }

    /// 127.0.0.0/8, ::1 and IPv4-mapped 127.x addresses.
    public static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let ip = address?.ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.lowercased().hasPrefix("::ffff:127.")
    }
}
