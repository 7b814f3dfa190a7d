@testable import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

/// Kitchen displays woken by a change are answered straight from their connection's event loop,
/// ahead of their handlers (`ParkedDisplayAnswers`, `ConnectionGuard`, `AnswerAheadWriter`).
@Suite("Answering woken displays ahead of their handlers")
struct ParkedDisplayAnswersTests {
    // MARK: - The real server

    /// `canteen serve`'s application on a free port, over `environment`'s data dir and clock.
    func withServer(_ environment: TestEnvironment, directory: URL,
                    _ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        let configuration = AppConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, menusDirectory: nil,
                                             localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
                                             logLevel: .warning)
        let app = try await buildApplication(configuration, clock: environment.clock.closure)
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }

    /// A metric's value in `GET /metrics` (0 when absent), read with `token` (ops).
    func metric(_ name: String, port: Int, token: String) throws -> Double {
        let text = try RawHTTP(port: port, timeout: 20).exchange("GET", "/metrics",
                                                                 headers: [("Authorization", "Bearer \(token)")]).text
        let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
    }

    @Test("a woken display gets, ahead of its handler, the answer Hummingbird would write, byte for byte; its connection then answers each request once; a display of another station keeps waiting")
    func answeredAheadAsThroughHummingbird() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        try await withServer(environment, directory: directory) { port in
            try await blocking {
                let kitchen = [("Authorization", "Bearer \(environment.kitchen)")]
                let start = try RawHTTP(port: port, timeout: 20).exchange("GET", "/v1/cafes/testcafe/tickets", headers: kitchen)
                let cursor = try #require((start.json as? [String: Any])?["cursor"] as? String)
                // Given a display of every station and one of the cold station, both parked
                let display = try RawHTTP(port: port, timeout: 20)
                let french = kitchen + [("Accept-Language", "fr")]
                #expect(display.send(RawHTTP.request("GET", "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=30",
                                                     headers: french + [("X-Request-ID", "parked-1")])))
                let cold = try RawHTTP(port: port, timeout: 20)
                #expect(cold.send(RawHTTP.request("GET", "/v1/cafes/testcafe/tickets?after=\(cursor)&station=cold&wait=30",
                                                  headers: kitchen)))
                let deadline = Date().addingTimeInterval(20)
                while try metric("canteen_feed_waiters", port: port, token: environment.ops) < 2, Date() < deadline {
                    usleep(10_000)
                }
                #expect(try metric("canteen_feed_waiters", port: port, token: environment.ops) == 2)

                // When a latte (the bar's) is ordered
                let kiosk = try RawHTTP(port: port, timeout: 20)
                let order = { (key: String, lines: JSONValue) throws -> Int in
                    try kiosk.exchange("POST", "/v1/orders",
                                       headers: [("Authorization", "Bearer \(environment.kiosk)"),
                                                 ("Content-Type", "application/json"), ("Idempotency-Key", key)],
                                       body: String(decoding: orderBody(lines: lines).encoded(), as: UTF8.self)).status
                }
                #expect(try order("latte", [["itemId": "latte", "quantity": 1, "options": ["small"]]]) == 201)

                // Then the display is answered ahead of its handler, with the latte's ticket
                let woken = try display.readResponse()
                #expect(woken.status == 200)
                let tickets = (woken.json as? [String: Any])?["tickets"] as? [[String: Any]]
                #expect(tickets?.map { $0["station"] as? String } == ["bar"])
                #expect(try metric("canteen_feed_answered_ahead_total", port: port, token: environment.ops) == 1)
                // and that answer is the one the same page gets through Hummingbird, but for its date
                let fresh = try display.exchange("GET", "/v1/cafes/testcafe/tickets?after=\(cursor)",
                                                 headers: french + [("X-Request-ID", "parked-1")])
                #expect(woken.statusLine == fresh.statusLine)
                let undated = { (response: RawHTTP.Response) in response.fields.filter { $0.name.lowercased() != "date" } }
                #expect(undated(woken) == undated(fresh))
                #expect(woken.fields.map(\.name) == fresh.fields.map(\.name), "the same fields in the same order")
                #expect(woken.body == fresh.body)
                #expect(woken.headers["x-request-id"] == "parked-1")
                #expect(woken.headers["x-content-type-options"] == "nosniff")
                #expect(woken.headers["date"].flatMap(Self.httpDate) != nil, "an HTTP date: \(woken.headers["date"] ?? "none")")
                // and the handler's own answer never reaches the socket: each request gets one answer
                let next = try display.exchange("GET", "/v1/cafes/testcafe/tickets?after=\(cursor)", headers: french + [("X-Request-ID", "next-2")])
                #expect(next.headers["x-request-id"] == "next-2")
                #expect(try display.exchange("GET", "/healthz").status == 200)

                // and the cold display slept through the bar's order (no empty page was written ahead
                // to it): the salad ordered next is its first answer
                #expect(try order("salad", [["itemId": "salad", "quantity": 1]]) == 201)
                let salad = try cold.readResponse()
                #expect(salad.status == 200)
                let coldTickets = (salad.json as? [String: Any])?["tickets"] as? [[String: Any]]
                #expect(coldTickets?.map { $0["station"] as? String } == ["cold"])
                #expect(try metric("canteen_feed_answered_ahead_total", port: port, token: environment.ops) == 2)
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

    @Test("HTTP dates are RFC 9110's IMF-fixdate, in GMT, whatever the machine's locale")
    func httpDates() {
        let dates = HTTPDates()
        #expect(dates.now(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(dates.now(Date(timeIntervalSince1970: 1_798_761_599)) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }

    // MARK: - One connection's pipeline

    /// The pipeline Hummingbird builds for an HTTP/1 connection, with the guard, active.
    func connection() throws -> (EmbeddedChannel, ConnectionGuard) {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        let connectionGuard = ConnectionGuard(headerTimeout: .seconds(60))
        try channel.pipeline.syncOperations.addHandler(connectionGuard)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, connectionGuard)
    }

    /// Everything written to the socket so far.
    func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    /// A handler's answer with `body`. To a `HEAD`, NIO's encoder refuses the body (so it knows
    /// which request it answers): `toHead` expects that.
    func answer(_ channel: EmbeddedChannel, body: String, toHead: Bool = false) throws {
        var fields = HTTPFields()
        fields[.contentLength] = String(body.utf8.count)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: fields)))
        let part = HTTPResponsePart.body(ByteBuffer(string: body))
        if toHead {
            #expect(throws: (any Error).self, "the encoder takes this answer for a HEAD's") { try channel.writeOutbound(part) }
        } else {
            try channel.writeOutbound(part)
        }
        try channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    @Test("a request answered ahead gets those bytes only; the handler's answer is dropped, and the next request is framed by its own method")
    func oneAnswerPerRequest() throws {
        let (channel, connectionGuard) = try connection()
        let ahead = ["HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-request-id: ", "a1\r\n\r\n", "ahead"].map { ByteBuffer(string: $0) }
        #expect(connectionGuard.answer(ahead[0]) == false, "no request in progress: nothing to answer")
        #expect(try written(channel).isEmpty)

        // Given a GET in progress, when it is answered ahead
        try channel.writeInbound(ByteBuffer(string: "GET /feed HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(connectionGuard.answer(ahead[0], ahead[1], ahead[2]))
        #expect(try written(channel) == "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-request-id: a1\r\n\r\nahead")
        #expect(connectionGuard.answer(ahead[2]) == false, "one answer per request")
        // then the handler's own answer to it never reaches the socket
        try answer(channel, body: "later")
        #expect(try written(channel).isEmpty)

        // and so is a streamed one (no length, its body in parts, trailers) to the next request answered ahead
        try channel.writeInbound(ByteBuffer(string: "GET /feed HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(connectionGuard.answer(ByteBuffer(string: "HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nahead2")))
        #expect(try written(channel) == "HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nahead2")
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "stream")))
        try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "ed")))
        try channel.writeOutbound(HTTPResponsePart.end([.init("X-Trailer")!: "t"]))
        #expect(try written(channel).isEmpty)

        // and a HEAD after them is answered without its body: the encoder still pairs answers with requests
        try channel.writeInbound(ByteBuffer(string: "HEAD /feed HTTP/1.1\r\nHost: a\r\n\r\n"))
        try answer(channel, body: "hello", toHead: true)
        #expect(try written(channel) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
        // and a GET after that gets its whole answer
        try channel.writeInbound(ByteBuffer(string: "GET /feed HTTP/1.1\r\nHost: a\r\n\r\n"))
        try answer(channel, body: "plain")
        #expect(try written(channel) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nplain")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("the page's head is encoded by NIO's HTTP/1 encoder, up to the request id's value")
    func encodedHead() throws {
        var fields = HTTPFields()
        fields[.contentLanguage] = "fr-FR"
        fields[.contentLength] = "2"
        let head = try #require(ParkedDisplayAnswers.encodedHead(fields))
        #expect(String(buffer: head) == "HTTP/1.1 200 OK\r\nContent-Language: fr-FR\r\nContent-Length: 2\r\nX-Request-ID: ")
    }
}
