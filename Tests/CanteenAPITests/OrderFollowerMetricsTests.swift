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

/// `canteen_order_followers`: clients following an order right now (a long-poll on
/// `GET /v1/orders/{id}?wait=` or an event stream), unlabelled like `canteen_feed_waiters`.
@Suite("Metrics of order followers")
struct OrderFollowerMetricsTests {
    static let order: JSONValue = [
        "cafeId": "testcafe", "lines": [["itemId": "latte", "quantity": 1, "options": ["small"]]],
        "customer": ["name": "Ana"],
    ]

    /// The gauge's value in a scrape (nil when the metric is missing).
    static func followers(_ client: any TestClientProtocol, _ environment: TestEnvironment) async throws -> Double? {
        let text = String(buffer: try await client.send(.get, "/metrics", token: environment.ops).body)
        return text.split(separator: "\n").first { $0.hasPrefix("canteen_order_followers ") }
            .flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// Waits (up to 20 s) until the feed counts `count` followers.
    static func waitForFollowers(_ count: Int, _ environment: TestEnvironment) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while environment.services.feed.orderFollowers != count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("the gauge rises while a long-poll waits on an order and falls when it is answered")
    func longPoll() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given an order
            let placed = try await client.send(
                .post, "/v1/orders", token: environment.kiosk, json: Self.order,
                headers: [HTTPField.Name("Idempotency-Key")!: "f-1"])
            let id = try #require(try placed.json["id"]?.stringValue)
            let tag = try #require(
                try await client.send(.get, "/v1/orders/\(id)", token: environment.kiosk).headers[.eTag])
            #expect(try await Self.followers(client, environment) == 0)
            try await withThrowingTaskGroup(of: TestResponse.self) { group in
                // When a client long-polls it
                group.addTask {
                    try await client.send(
                        .get, "/v1/orders/\(id)?wait=30", token: environment.kiosk,
                        headers: [.ifNoneMatch: tag])
                }
                try await Self.waitForFollowers(1, environment)
                // Then the gauge counts it while it waits
                #expect(try await Self.followers(client, environment) == 1)
                // And not once it is answered
                #expect(try await client.send(.post, "/v1/orders/\(id)/cancel", token: environment.kiosk).status == .ok)
                #expect(try await group.next()?.status == .ok)
            }
            try await Self.waitForFollowers(0, environment)
            #expect(try await Self.followers(client, environment) == 0)
        }
    }

    @Test("the gauge counts an open event stream, and falls when the stream ends")
    func eventStream() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let placed = try await client.send(
                .post, "/v1/orders", token: environment.kiosk, json: Self.order,
                headers: [HTTPField.Name("Idempotency-Key")!: "f-2"])
            let id = try #require(try placed.json["id"]?.stringValue)
            try await withThrowingTaskGroup(of: TestResponse.self) { group in
                group.addTask { try await client.send(.get, "/v1/orders/\(id)/events", token: environment.kiosk) }
                try await Self.waitForFollowers(1, environment)
                #expect(try await Self.followers(client, environment) == 1)
                _ = try await client.send(.post, "/v1/orders/\(id)/cancel", token: environment.kiosk)
                let stream = try #require(try await group.next())
                #expect(String(buffer: stream.body).contains("event: order.cancelled"))
            }
            try await Self.waitForFollowers(0, environment)
            #expect(try await Self.followers(client, environment) == 0)
        }
    }

    @Test("an event stream closed by its client stops counting")
    func streamClosedByClient() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, menusDirectory: nil,
            localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
            logLevel: .warning, eventStreamHeartbeat: .milliseconds(200))
        let app = try await buildApplication(configuration, clock: environment.clock.closure)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let kiosk = [("Authorization", "Bearer \(environment.kiosk)")]
            let id = try await blocking {
                let placed = try RawHTTP(port: port, timeout: 20).exchange(
                    "POST", "/v1/orders",
                    headers: kiosk + [("Content-Type", "application/json"), ("Idempotency-Key", "f-3")],
                    body: String(decoding: Self.order.encoded(), as: UTF8.self))
                return (placed.json as? [String: Any])?["id"] as? String ?? "none"
            }
            // Whether the gauge reads `value` within 20 s.
            let eventually = { (value: Double) async throws -> Bool in
                try await blocking {
                    let deadline = Date().addingTimeInterval(20)
                    while Date() < deadline {
                        let text = try RawHTTP(port: port, timeout: 20).exchange(
                            "GET", "/metrics", headers: [("Authorization", "Bearer \(environment.ops)")]
                        ).text
                        let line = text.split(separator: "\n").first { $0.hasPrefix("canteen_order_followers ") }
                        if line.flatMap({ Double($0.split(separator: " ")[1]) }) == value { return true }
                        usleep(20_000)
                    }
                    return false
                }
            }
            // Given an open stream
            var stream: RawHTTP? = try await blocking { try RawHTTP(port: port, timeout: 20) }
            #expect(stream?.send(RawHTTP.request("GET", "/v1/orders/\(id)/events", headers: kiosk)) == true)
            #expect(try await eventually(1), "the open stream is not counted")
            // When its client goes away, then it stops counting (at the latest at the next heartbeat)
            stream = nil  // its socket is closed
            #expect(try await eventually(0), "the closed stream is still counted")
        }
    }
}
