import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Runs blocking socket work on a thread of its own, off the cooperative pool (the server's
/// handlers need it). Not `DispatchQueue.global()`: on Linux, Swift's global executor runs its
/// jobs on those same dispatch threads, so work blocked there would still hold the pool.
func blocking<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// What a real socket sees: half requests, slow clients, oversized and cut-short bodies,
/// oversized heads, metrics over a real socket.
@Suite("the real server's connections: timeouts, closing answers, oversized heads")
struct ConnectionLimitsTests {
    /// A real server (port 0) with short timeouts, a kiosk token and its data dir.
    /// The idle timeout is long unless a test is about it: on a busy machine a sending client
    /// may stall for seconds, and a short one would close its connection for another reason.
    func withServer(
        headerTimeout: Duration = .seconds(1), idleTimeout: Duration = .seconds(60),
        _ body: @escaping @Sendable (_ port: Int, _ token: String) async throws -> Void
    ) async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory,
            menusDirectory: Fixtures.menusDirectory,
            localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
            headerTimeout: headerTimeout, idleTimeout: idleTimeout)
        let app = try await buildApplication(configuration)
        let token = try await CanteenStores.open(dataDirectory: directory).tokens.createToken(
            role: .ops, cafeID: nil, name: nil
        ).secret
        try await app.test(.live) { client in
            try await body(try #require(client.port), token)
        }
    }

    @Test("a connection that sends half a request line, or nothing, is closed after the header timeout")
    func slowloris() async throws {
        try await withServer { port, _ in
            try await blocking {
                let half = try RawHTTP(port: port, timeout: 20)
                let silent = try RawHTTP(port: port, timeout: 20)
                half.send("GET /hea")
                let start = Date()
                #expect(half.waitForClose(), "half a request line kept the connection open")
                #expect(silent.waitForClose(), "a silent connection stayed open")
                // The header timeout is 1 s; the reads would give up at 20 s.
                #expect(Date().timeIntervalSince(start) < 15)
            }
        }
    }

    @Test("a keep-alive connection gets its answers, then is closed by the idle timeout when it goes quiet")
    func keepAliveThenIdle() async throws {
        try await withServer(headerTimeout: .seconds(30), idleTimeout: .seconds(2)) { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                for _ in 0..<3 { #expect(try connection.exchange("GET", "/healthz").status == 200) }
                #expect(connection.waitForClose())
            }
        }
    }

    @Test("the header timeout bounds only the first request: a keep-alive connection may pause longer between requests")
    func headerTimeoutOnlyFirst() async throws {
        try await withServer(headerTimeout: .seconds(1), idleTimeout: .seconds(60)) { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                #expect(try connection.exchange("GET", "/healthz").status == 200)
                Thread.sleep(forTimeInterval: 2.5)
                #expect(try connection.exchange("GET", "/healthz").status == 200)
                // A half request line after the pause is bounded by the idle timeout, not the header timeout.
                connection.send("GET /hea")
                Thread.sleep(forTimeInterval: 1.5)
                connection.send("lthz HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse().status == 200)
            }
        }
    }

    @Test("an oversized chunked body is answered 413 body_too_large and the connection is closed")
    func oversizedChunkedBody() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = String(repeating: "x", count: 64 << 10)
                var sent = 0
                // 4 MiB offered; the server stops reading after 1 MiB, so sending may fail.
                while sent < 4 << 20, connection.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n") {
                    sent += chunk.utf8.count
                }
                let response = try connection.readResponse()
                #expect(response.status == 413)
                #expect(response.errorCode == "body_too_large")
                #expect(response.headers["connection"] == "close")
                #expect(connection.waitForClose(), "the connection stayed open after 413")
            }
        }
    }

    @Test("an oversized Content-Length body is answered 413 and closed without reading it")
    func oversizedContentLength() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                let start = Date()
                let sent = connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(64 << 20)\r\n\r\n"
                        + String(repeating: "x", count: 2 << 20))
                let sending = Date().timeIntervalSince(start)
                let response = try #require(
                    try? connection.readResponse(),
                    "sent: \(sent) in \(sending) s, then \(Date().timeIntervalSince(start)) s")
                #expect(response.status == 413)
                #expect(connection.waitForClose())
            }
        }
    }

    @Test("a body that ends before its Content-Length (the client closed its side) is 400, never 500")
    func shortBody() async throws {
        try await withServer { port, token in
            try await blocking {
                for path in ["/v1/locate", "/v1/orders", "/v1/tokens"] {
                    let connection = try RawHTTP(port: port, timeout: 20)
                    connection.send(
                        "POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                            + "Content-Type: application/json\r\nIdempotency-Key: short-1\r\nContent-Length: 100\r\n\r\n{\"sight"
                    )
                    connection.finishSending()
                    // A 400, or the connection closed without an answer; never a 500.
                    if let response = try? connection.readResponse() {
                        #expect(response.status == 400, "\(path): \(response.status) \(response.text)")
                        #expect(
                            response.errorCode == "request_body_incomplete" || response.text.isEmpty,
                            "\(path): \(response.text)")
                    }
                }
                // The server still answers.
                #expect(try RawHTTP(port: port).exchange("GET", "/healthz").status == 200)
            }
        }
    }

    @Test(
        "request heads over the limits are 431 headers_too_large with the error body, then closed",
        arguments: [
            [("X-Big", String(repeating: "b", count: 20 << 10))],
            (0..<40).map { ("X-Part-\($0)", String(repeating: "p", count: 1000)) },
            (0..<120).map { ("X-Many-\($0)", "1") },
        ])
    func oversizedHeads(headers: [(String, String)]) async throws {
        try await withServer { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                let response = try connection.exchange("GET", "/healthz", headers: headers)
                #expect(response.status == 431)
                #expect(response.errorCode == "headers_too_large", "\(response.text)")
                #expect(connection.waitForClose())
            }
        }
    }

    @Test("GET /metrics with an ops token is Prometheus text; the request id comes back; an unknown token is 401")
    func metricsOverASocket() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                #expect(
                    try connection.exchange(
                        "GET", "/v1/cafes/tokyo/menu", headers: [("Authorization", "Bearer \(token)")]
                    ).status == 200)
                let response = try connection.exchange(
                    "GET", "/metrics", headers: [("X-Request-ID", "scrape-1"), ("Authorization", "Bearer \(token)")])
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
                #expect(response.headers["x-request-id"] == "scrape-1")
                #expect(
                    response.text.contains(#"http_route="/v1/cafes/{cafeId}/menu""#), "\(response.text.prefix(3000))")
                #expect(response.text.contains(#"canteen_open_tickets{cafe="tokyo"} 0"#))
                let kiosk = try connection.exchange(
                    "GET", "/metrics", headers: [("Authorization", "Bearer cnt_unknownunknownunknown")])
                #expect(kiosk.status == 401)
            }
        }
    }

    @Test(
        "requests far larger than a connection's first read (512 bytes) are answered whole, sent at once or a few bytes at a time, and the small ones after them too"
    )
    func readsLargerThanTheFirstBuffer() async throws {
        try await withServer(headerTimeout: .seconds(30)) { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                // A browser's head: long cookies and a long user agent, 6 KB in all.
                let cookie = (0..<40).map { "c\($0)=\(String(repeating: "v", count: 120))" }.joined(separator: "; ")
                let browser: [(String, String)] = [
                    ("Authorization", "Bearer \(token)"), ("Cookie", cookie),
                    ("User-Agent", String(repeating: "Mozilla/5.0 ", count: 20)),
                ]
                let menu = try connection.exchange("GET", "/v1/cafes/tokyo/menu", headers: browser)
                #expect(menu.status == 200, "\(menu.text.prefix(300))")
                #expect(menu.text.contains("\"items\""))
                // A 20 KB body, in 700-byte pieces.
                let note = String(repeating: "n", count: 20_000)
                let request = RawHTTP.request(
                    "POST", "/v1/orders",
                    headers: [
                        ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                        ("Idempotency-Key", "large-body-1"),
                    ],
                    body: "{\"cafeId\":\"tokyo\",\"note\":\"\(note)\"}")
                let bytes = Array(request.utf8)
                for start in stride(from: 0, to: bytes.count, by: 700) {
                    #expect(connection.send(Array(bytes[start..<min(start + 700, bytes.count)])))
                }
                let order = try connection.readResponse()
                // The whole body arrived: it is judged on its fields (no lines), not cut short.
                #expect(order.errorCode == "missing_field", "\(order.text.prefix(300))")
                #expect(order.text.contains("lines"), "\(order.text.prefix(300))")
                #expect(try connection.exchange("GET", "/healthz").status == 200)
            }
        }
    }
}
