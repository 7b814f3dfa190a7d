import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `GET /metrics` needs an ops token or a `metrics` token, wherever the request comes from (behind
/// a reverse proxy on the same host every peer is loopback), unless the server was started with
/// `--metrics-public`. A `metrics` token reads the metrics and nothing else.
@Suite("Who may read /metrics")
struct MetricsAccessTests {
    /// A real server on loopback over a fresh data dir, with an ops token.
    func withServer(
        metricsPublic: Bool = false,
        _ body: @escaping @Sendable (_ port: Int, _ ops: String) async throws -> Void
    ) async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, menusDirectory: nil,
            localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
            logLevel: .warning)
        configuration.metricsArePublic = metricsPublic
        let app = try await buildApplication(configuration)
        let ops = try await CanteenStores.open(dataDirectory: directory).tokens.createToken(
            role: .ops, cafeID: nil, name: nil)
        try await app.test(.live) { client in try await body(try #require(client.port), ops.secret) }
    }

    @Test("from loopback without a token: 401, as from anywhere; with an ops token: the metrics")
    func loopbackIsNotTrusted() async throws {
        try await withServer { port, ops in
            // (Expectations outside `blocking`: its thread does not know which test it serves.)
            let (anonymous, scraped) = try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                return (
                    try connection.exchange("GET", "/metrics"),
                    try connection.exchange("GET", "/metrics", headers: [("Authorization", "Bearer \(ops)")])
                )
            }
            #expect(anonymous.status == 401)
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            #expect(anonymous.headers["content-type"] == "application/json; charset=utf-8")
            #expect(scraped.status == 200)
            #expect(scraped.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(scraped.text.contains("canteen_feed_waiters"))
        }
    }

    @Test("with --metrics-public, no token is needed")
    func publicMetrics() async throws {
        try await withServer(metricsPublic: true) { port, _ in
            let anonymous = try await blocking { try RawHTTP(port: port, timeout: 20).exchange("GET", "/metrics") }
            #expect(anonymous.status == 200)
            #expect(anonymous.text.contains("canteen_feed_waiters"))
        }
    }

    @Test("a metrics token reads /metrics and is refused everything else")
    func metricsRole() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given a metrics token made by ops
            let made = try await client.send(.post, "/v1/tokens", token: environment.ops, json: ["role": "metrics"])
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let metrics = try #require(try made.json["secret"]?.stringValue)
            // Then it reads the metrics
            let scrape = try await client.send(.get, "/metrics", token: metrics)
            #expect(scrape.status == .ok)
            // And nothing else, not even what any other token may read
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/cafes"), (.get, "/v1/cafes/testcafe"),
                (.get, "/v1/cafes/testcafe/menu"), (.get, "/v1/cafes/testcafe/pickup-windows"),
                (.get, "/v1/orders/ord_x"), (.get, "/v1/orders/ord_x/events"),
                (.get, "/v1/users/u-1/preferences"), (.get, "/v1/tokens"),
                (.get, "/v1/cafes/testcafe/tickets"), (.post, "/v1/users/u-1/cafe"),
                (.get, "/v1/token"),
            ] {
                let answer = try await client.send(method, path, token: metrics)
                #expect(answer.status == .forbidden, "\(method) \(path): \(answer.status)")
                #expect(answer.errorCode == "forbidden")
            }
            // A kiosk token may not read metrics
            #expect(try await client.send(.get, "/metrics", token: environment.kiosk).status == .forbidden)
        }
    }

    @Test("a metrics token is bound to no café and no user")
    func metricsTokenShape() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let bound = try await client.send(
                .post, "/v1/tokens", token: environment.ops,
                json: ["role": "metrics", "cafeId": "testcafe"])
            #expect(bound.status == .unprocessableContent)
            #expect(bound.errorField == "cafeId")
            let user = try await client.send(
                .post, "/v1/tokens", token: environment.ops,
                json: ["role": "metrics", "userId": "u-1"])
            #expect(user.status == .unprocessableContent)
            #expect(user.errorField == "userId")
        }
    }
}
