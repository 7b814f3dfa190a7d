import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import CanteenAPI

/// Kitchen displays long-polling the ticket feed on a real socket: a woken display is answered
/// by its handler, through Hummingbird, like any other request.
@Suite("Long-polling displays on a live server")
struct LongPollLiveTests {
    // MARK: - The real server

    /// `canteen serve`'s application on a free port, over `environment`'s data dir and clock.
    func withServer(
        _ environment: TestEnvironment, directory: URL,
        _ body: @escaping @Sendable (_ port: Int) async throws -> Void
    ) async throws {
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, menusDirectory: nil,
            localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
            logLevel: .warning)
        let app = try await buildApplication(configuration, clock: environment.clock.closure)
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }

    /// A metric's value in `GET /metrics` (0 when absent), read with `token` (ops).
    func metric(_ name: String, port: Int, token: String) throws -> Double {
        let text = try RawHTTP(port: port, timeout: 20).exchange(
            "GET", "/metrics", headers: [("Authorization", "Bearer \(token)")]
        ).text
        let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
    }

    @Test(
        "a woken display is answered by its handler with the new ticket; its connection then answers each request once; a display of another station keeps waiting"
    )
    func wokenThroughTheHandler() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        try await withServer(environment, directory: directory) { port in
            try await blocking {
                let kitchen = [("Authorization", "Bearer \(environment.kitchen)")]
                let start = try RawHTTP(port: port, timeout: 20).exchange(
                    "GET", "/v1/cafes/testcafe/tickets", headers: kitchen)
                let cursor = try #require((start.json as? [String: Any])?["cursor"] as? String)
                // Given a display of every station and one of the cold station, both parked
                let display = try RawHTTP(port: port, timeout: 20)
                let french = kitchen + [("Accept-Language", "fr")]
                #expect(
                    display.send(
                        RawHTTP.request(
                            "GET", "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=30",
                            headers: french + [("X-Request-ID", "parked-1")])))
                let cold = try RawHTTP(port: port, timeout: 20)
                #expect(
                    cold.send(
                        RawHTTP.request(
                            "GET", "/v1/cafes/testcafe/tickets?after=\(cursor)&station=cold&wait=30",
                            headers: kitchen)))
                let deadline = Date().addingTimeInterval(20)
                while try metric("canteen_feed_waiters", port: port, token: environment.ops) < 2, Date() < deadline {
                    usleep(10_000)
                }
                #expect(try metric("canteen_feed_waiters", port: port, token: environment.ops) == 2)

                // When a latte (the bar's) is ordered
                let kiosk = try RawHTTP(port: port, timeout: 20)
                let order = { (key: String, lines: JSONValue) throws -> Int in
                    try kiosk.exchange(
                        "POST", "/v1/orders",
                        headers: [
                            ("Authorization", "Bearer \(environment.kiosk)"),
                            ("Content-Type", "application/json"), ("Idempotency-Key", key),
                        ],
                        body: String(decoding: orderBody(lines: lines).encoded(), as: UTF8.self)
                    ).status
                }
                #expect(try order("latte", [["itemId": "latte", "quantity": 1, "options": ["small"]]]) == 201)

                // Then the display is answered with the latte's ticket, as Hummingbird writes every answer
                let woken = try display.readResponse()
                #expect(woken.status == 200)
                let tickets = (woken.json as? [String: Any])?["tickets"] as? [[String: Any]]
                #expect(tickets?.map { $0["station"] as? String } == ["bar"])
                #expect(woken.headers["x-request-id"] == "parked-1")
                #expect(woken.headers["content-language"]?.hasPrefix("fr") == true)
                #expect(
                    woken.headers["date"].flatMap(Self.httpDate) != nil,
                    "an HTTP date: \(woken.headers["date"] ?? "none")")
                #expect(woken.headers["server"] == CanteenServer.name)
                // and the connection answers each next request once
                let next = try display.exchange(
                    "GET", "/v1/cafes/testcafe/tickets?after=\(cursor)", headers: french + [("X-Request-ID", "next-2")])
                #expect(next.headers["x-request-id"] == "next-2")
                #expect(next.body == woken.body, "the same page, read again")
                #expect(try display.exchange("GET", "/healthz").status == 200)

                // and the cold display slept through the bar's order (no empty page): the salad
                // ordered next is its first answer
                #expect(try order("salad", [["itemId": "salad", "quantity": 1]]) == 201)
                let salad = try cold.readResponse()
                #expect(salad.status == 200)
                let coldTickets = (salad.json as? [String: Any])?["tickets"] as? [[String: Any]]
                #expect(coldTickets?.map { $0["station"] as? String } == ["cold"])
            }
        }
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
