import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Log lines written through a `Logger`, kept for the test (metadata of the logger, of the
/// call and of the metadata provider, as a real handler would print them).
final class CapturedLogs: @unchecked Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
        var text: String {
            "\(level) \(message) " + metadata.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        }
    }

    private let lock = NSLock()
    private var stored: [Line] = []

    var lines: [Line] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    var text: String { lines.map(\.text).joined(separator: "\n") }

    func append(_ line: Line) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }

    /// A logger at `level` writing here, with the request-id metadata provider, through
    /// `CanteenLogHandler` as `canteen serve` logs.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(
            label: "test",
            factory: { _ in
                CanteenLogHandler(Handler(logs: self, metadataProvider: RequestLog.metadataProvider))
            })
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadataProvider: Logger.MetadataProvider?
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var all = metadata
            for (key, value) in metadataProvider?.get() ?? [:] { all[key] = value }
            for (key, value) in event.metadata ?? [:] { all[key] = value }
            logs.append(Line(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
        }
    }
}

@Suite("observability: request ids, one log line per request, metrics")
struct ObservabilityTests {
    /// The environment's router in an application that logs into `logs`.
    func withLoggedRouter<Value: Sendable>(
        _ environment: TestEnvironment, _ logs: CapturedLogs,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = Application(router: CanteenRouter.build(environment.services).router, logger: logs.logger())
        return try await app.test(.router) { client in try await body(client) }
    }

    @Test("a sane X-Request-ID is kept; a missing or unsafe one is replaced by a new id; the answer carries it")
    func requestIDs() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let kept = try await client.send(.get, "/healthz", headers: [RequestLog.header: "3f2c-9a1e.trace:7"])
            #expect(kept.headers[RequestLog.header] == "3f2c-9a1e.trace:7")
            let fresh = try await client.send(.get, "/healthz")
            let new = try #require(fresh.headers[RequestLog.header])
            #expect(new.count == 16 && RequestLog.accepted(new) == new)
            for unsafe in ["has space", "new\u{7F}line", String(repeating: "x", count: 129), "", "quote\"d"] {
                let replaced = try await client.send(.get, "/healthz", headers: [RequestLog.header: unsafe])
                let id = try #require(replaced.headers[RequestLog.header])
                #expect(id != unsafe && id.count == 16, "\(unsafe)")
            }
        }
    }

    @Test(
        "each request writes one info line with method, route pattern, status and duration, and its request id is on every line it writes"
    )
    func oneLinePerRequest() async throws {
        let environment = try await TestEnvironment.make()
        let logs = CapturedLogs()
        try await withLoggedRouter(environment, logs) { client in
            _ = try await client.send(
                .get, "/v1/cafes/testcafe", token: environment.kiosk, headers: [RequestLog.header: "req-one"])
            _ = try await client.send(.get, "/v1/nowhere", headers: [RequestLog.header: "req-two"])
            _ = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?wait=2", token: environment.kitchen,
                headers: [RequestLog.header: "req-three"])
        }
        let requests = logs.lines.filter { $0.message == "request" }
        #expect(requests.count == 3)
        let one = try #require(requests.first { $0.metadata["request_id"] == "req-one" })
        #expect(one.level == .info)
        #expect(one.metadata["method"] == "GET")
        #expect(one.metadata["route"] == "/v1/cafes/{cafeId}", "the route is the pattern, never the raw path")
        #expect(one.metadata["status"] == "200")
        #expect(Double(one.metadata["duration_ms"] ?? "") != nil)
        let two = try #require(requests.first { $0.metadata["request_id"] == "req-two" })
        #expect(two.metadata["status"] == "404")
        // Every line written while a request was handled names it, by one id: Hummingbird's own is not kept.
        for line in logs.lines where line.message == "request" || line.message == "request failed" {
            #expect(line.metadata["request_id"] != nil, "\(line.text)")
        }
        #expect(!logs.lines.isEmpty && !logs.text.contains("hb.request.id"), "\(logs.text.prefix(2000))")
    }

    @Test("an internal error is logged with the request id, and the client learns only that it failed")
    func internalErrorsCarryTheRequestID() async throws {
        let environment = try await TestEnvironment.make()
        // A stored token row whose role this version does not know: authenticating with it fails in the store.
        try await environment.stores.sqliteDatabase!.writer.write { db in
            try db.execute(sql: "UPDATE accessToken SET role = 'wizard' WHERE name = 'ops'")
        }
        let logs = CapturedLogs()
        let response = try await withLoggedRouter(environment, logs) { client in
            try await client.send(
                .get, "/v1/tokens", token: environment.ops, headers: [RequestLog.header: "req-broken"])
        }
        #expect(response.status == .internalServerError)
        #expect(response.errorCode == "internal_error")
        #expect(!String(buffer: response.body).contains("wizard"))
        let lines = logs.lines.filter { $0.metadata["request_id"] == "req-broken" }
        #expect(lines.contains { $0.message == "request failed" && $0.level == .error && $0.text.contains("wizard") })
        #expect(lines.contains { $0.message == "request" && $0.metadata["status"] == "500" })
    }

    @Test("no token, secret or Authorization value reaches a log line or an error body, at trace level")
    func noSecretsInLogs() async throws {
        let environment = try await TestEnvironment.make()
        let revoked = try await environment.stores.tokens.createToken(TokenSpec(role: .kiosk))
        try await environment.stores.tokens.revokeToken(id: revoked.token.id)
        let unknown = "cnt_neverIssuedNeverIssuedNeverIssued0"
        let logs = CapturedLogs()
        let (created, bodies) = try await withLoggedRouter(environment, logs) { client in
            var bodies: [String] = []
            for authorization in [
                "Bearer \(environment.ops)", "Token \(environment.kiosk)", "Bearer \(unknown)",
                "Bearer \(revoked.secret)", "Bearer \(environment.kiosk) extra", "bearer  \(environment.kitchen)",
            ] {
                for (method, path) in [
                    (HTTPRequest.Method.get, "/v1/cafes"), (.get, "/v1/tokens"), (.get, "/metrics"),
                    (.post, "/v1/orders"), (.get, "/v1/cafes/testcafe/tickets?wait=99"),
                ] {
                    let response = try await client.send(method, path, headers: [.authorization: authorization])
                    bodies.append(String(buffer: response.body))
                }
            }
            let made = try await client.send(.post, "/v1/tokens", token: environment.ops, json: ["role": "kiosk"])
            let secret = try made.json["secret"]?.stringValue ?? ""
            bodies.append(
                String(
                    buffer: try await client.send(
                        .post, "/v1/tokens", token: environment.ops,
                        rawBody: #"{"role": "\#(secret)"}"#
                    ).body))
            return (secret, bodies)
        }
        let secrets = [
            environment.ops, environment.kiosk, environment.kitchen, environment.boundKiosk, unknown,
            revoked.secret, created,
        ]
        #expect(created.hasPrefix("cnt_"))
        for secret in secrets {
            #expect(!logs.text.contains(secret), "a secret in the logs")
            #expect(!logs.text.contains(String(secret.dropFirst(4).prefix(12))), "part of a secret in the logs")
        }
        for body in bodies where body.contains("\"error\"") {
            for secret in secrets { #expect(!body.contains(secret), "a secret in an error body: \(body.prefix(200))") }
        }
        #expect(logs.lines.count >= 30)
    }

    @Test(
        "metrics: per-route HTTP counts and latency by route pattern, orders placed, replayed and refused by reason, open tickets, waiters"
    )
    func metrics() async throws {
        let environment = try await TestEnvironment.make()
        let text = try await withRouter(environment) { client in
            let order: JSONValue = [
                "cafeId": "testcafe", "lines": [["itemId": "latte", "quantity": 1, "options": ["small"]]],
                "customer": ["name": "Ana"],
            ]
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "m-1"]
            #expect(
                try await client.send(.post, "/v1/orders", token: environment.kiosk, json: order, headers: key).status
                    == .created)
            #expect(
                try await client.send(.post, "/v1/orders", token: environment.kiosk, json: order, headers: key).status
                    == .created)
            let bad: JSONValue = [
                "cafeId": "testcafe", "lines": [["itemId": "nope", "quantity": 1]], "customer": ["name": "A"],
            ]
            _ = try await client.send(
                .post, "/v1/orders", token: environment.kiosk, json: bad,
                headers: [HTTPField.Name("Idempotency-Key")!: "m-2"])
            _ = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            _ = try await client.send(
                .post, "/v1/locate", token: environment.kiosk,
                json: [
                    "sightings": [
                        [
                            "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 900, "minor": 1,
                            "rssi": -60,
                        ],
                        [
                            "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                            "major": 1, "minor": 1, "rssi": -70,
                        ],
                    ]
                ])
            let scrape = try await client.send(.get, "/metrics", token: environment.ops)
            #expect(scrape.status == .ok)
            #expect(scrape.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            return String(buffer: scrape.body)
        }
        let lines = text.split(separator: "\n").map(String.init)
        func value(_ prefix: String) -> Double? {
            lines.first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(value(#"canteen_orders_placed_total{cafe="testcafe"}"#) == 1)
        #expect(value("canteen_order_replays_total") == 1)
        #expect(value(#"canteen_orders_refused_total{reason="unknown_item"}"#) == 1)
        #expect(value(#"canteen_open_tickets{cafe="testcafe"}"#) == 1)
        #expect(value(#"canteen_open_tickets{cafe="othercafe"}"#) == 0)
        #expect(value("canteen_feed_waiters") == 0)
        #expect(value("canteen_beacon_reports_parsed_total") == 2)
        #expect(value(#"canteen_beacon_sightings_total{known="true"}"#) == 1)
        #expect(value(#"canteen_beacon_sightings_total{known="false"}"#) == 1)
        #expect(
            lines.contains { $0.hasPrefix("hb_requests{") && $0.contains(#"http_route="/v1/cafes/{cafeId}/menu""#) },
            "\(text.prefix(6000))")
        #expect(
            lines.contains {
                $0.hasPrefix("http_server_request_duration_bucket{") && $0.contains(#"http_route="/v1/orders""#)
            })
        #expect(!text.contains("testcafe/menu"), "a raw path in a label")
    }

    @Test(
        "HTTP metrics: every answer counted once by route and status, its duration recorded, and no request left active"
    )
    func httpMetricsBalance() async throws {
        let environment = try await TestEnvironment.make()
        let text = try await withRouter(environment) { client in
            for _ in 0..<3 { _ = try await client.send(.get, "/v1/cafes/testcafe", token: environment.kiosk) }
            _ = try await client.send(.get, "/v1/cafes/nowhere", token: environment.kiosk)
            _ = try await client.send(.get, "/v1/cafes/testcafe/tickets?wait=1", token: environment.kitchen)
            return String(buffer: try await client.send(.get, "/metrics", token: environment.ops).body)
        }
        let lines = text.split(separator: "\n").map(String.init)
        func value(_ name: String, _ labels: [String]) -> Double? {
            lines.first { $0.hasPrefix(name + "{") && labels.allSatisfy($0.contains) }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let cafe = [#"http_route="/v1/cafes/{cafeId}""#, #"http_request_method="GET""#]
        #expect(value("hb_requests", cafe + [#"http_response_status_code="200""#]) == 3, "\(text.prefix(4000))")
        #expect(value("hb_requests", cafe + [#"http_response_status_code="404""#]) == 1)
        #expect(value("http_server_request_duration_count", cafe + [#"http_response_status_code="200""#]) == 3)
        let feed = [#"http_route="/v1/cafes/{cafeId}/tickets""#, #"http_response_status_code="200""#]
        #expect(value("http_server_request_duration_count", feed) == 1)
        // The scrape itself is the one request still being answered.
        #expect(value("http_server_active_requests", [#"http_request_method="GET""#]) == 1)
    }

    @Test("a display woken by a new order records one feed wake-up delay; a parked one counts as a waiter")
    func wakeupDelay() async throws {
        let environment = try await TestEnvironment.make()
        let text = try await withRouter(environment) { client async throws -> String in
            let start = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let cursor = try #require(try start.json["cursor"]?.stringValue)
            return try await withThrowingTaskGroup(of: TestResponse.self) { group in
                group.addTask {
                    try await client.send(
                        .get, "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=30", token: environment.kitchen)
                }
                while environment.services.feed.waitingDisplays == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let parked = String(buffer: try await client.send(.get, "/metrics", token: environment.ops).body)
                #expect(parked.contains("canteen_feed_waiters 1"), "\(parked.prefix(2000))")
                let order: JSONValue = [
                    "cafeId": "testcafe", "lines": [["itemId": "latte", "quantity": 1, "options": ["small"]]],
                    "customer": ["name": "Ana"],
                ]
                _ = try await client.send(
                    .post, "/v1/orders", token: environment.kiosk, json: order,
                    headers: [HTTPField.Name("Idempotency-Key")!: "w-1"])
                #expect(try await group.next()?.status == .ok)
                return String(buffer: try await client.send(.get, "/metrics", token: environment.ops).body)
            }
        }
        #expect(text.contains("canteen_feed_wakeup_delay_seconds_count 1"), "\(text.prefix(4000))")
        #expect(text.contains("canteen_feed_waiters 0"))
    }

    @Test("another application's metrics are its own: two environments never share counters")
    func metricsAreScopedToTheApplication() async throws {
        let first = try await TestEnvironment.make()
        let second = try await TestEnvironment.make()
        _ = try await withRouter(first) { client in try await client.send(.get, "/v1/cafes", token: first.kiosk) }
        let text = try await withRouter(second) { client in
            String(buffer: try await client.send(.get, "/metrics", token: second.ops).body)
        }
        #expect(!text.contains(#"http_route="/v1/cafes""#), "\(text.prefix(2000))")
    }

    @Test(
        "metrics need an ops or metrics token unless they are public; any other role is 403",
        arguments: [
            (nil, false, 401), (Role.ops, false, 200), (.metrics, false, 200), (.kiosk, false, 403),
            (.kitchen, false, 403),
            (.user, false, 403), (nil, true, 200), (.kiosk, true, 200),
        ] as [(Role?, Bool, Int)])
    func metricsAccess(role: Role?, metricsArePublic: Bool, status: Int) {
        let token = role.map {
            AccessToken(id: "tok_x", name: nil, role: $0, cafeID: nil, createdAt: Date(), revokedAt: nil)
        }
        do {
            try MetricsAccess.authorize(token: token, metricsArePublic: metricsArePublic)
            #expect(status == 200)
        } catch {
            #expect(Int(ErrorResponse.status(for: error).code) == status)
        }
    }

    @Test("a new request id is 16 URL-safe characters, accepted as a client's would be, and ids do not repeat")
    func newRequestIDs() {
        let ids = (0..<2_000).map { _ in RequestLog.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && RequestLog.accepted($0) == $0 })
        // Every position takes many values (no constant or stuck character).
        for position in 0..<16 {
            let values = Set(ids.map { Array($0.utf8)[position] })
            #expect(values.count > 32, "position \(position) took only \(values.count) values")
        }
    }
}
