import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// HTTP/1.1 as a client expects it, over a real socket: malformed requests get the JSON error the
/// docs/operating.md promises and a closed connection, framing the server does not implement is 501, HTTP/1.0
/// closes unless kept alive, `Expect: 100-continue` is honoured, and an oversized body is refused
/// as soon as it is declared.
@Suite("protocol errors over a real socket", .serialized)
struct ProtocolErrorTests {
    /// A live server without cafés (none of these requests needs one; importing the sample
    /// menus for each would only load the machine), an ops token, the idle timeout at 60 s.
    func withServer(_ body: @escaping @Sendable (_ port: Int, _ token: String) async throws -> Void) async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let locales = Fixtures.repositoryRoot.appendingPathComponent("Locales")
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory,
            localesDirectory: locales, headerTimeout: .seconds(10),
            idleTimeout: .seconds(60))
        let app = try await buildApplication(configuration)
        let token = try await CanteenStores.open(dataDirectory: directory).tokens
            .createToken(role: .ops, cafeID: nil, name: nil).secret
        try await app.test(.live) { client in
            try await body(try #require(client.port), token)
        }
    }

    /// A malformed request, as bytes.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }

        init(_ name: String, _ text: String) {
            self.name = name
            bytes = Array(text.utf8)
        }

        init(_ name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    static let malformed: [Malformed] = [
        Malformed(
            "invalid UTF-8 in the path",
            bytes: Array("GET /v1/caf".utf8) + [0xFF, 0xFE, 0x80]
                + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8)),
        Malformed(
            "a duplicate Content-Length",
            "POST /v1/locate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
        Malformed("a negative Content-Length", "POST /v1/locate HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
        Malformed(
            "both Content-Length and Transfer-Encoding",
            "POST /v1/locate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\n"),
        Malformed("bare LF line ends", "GET /healthz HTTP/1.1\nHost: x\n\n"),
        Malformed("a bare CR", "GET /healthz HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n"),
        Malformed("obsolete line folding", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n"),
        Malformed("an unknown method", "BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        Malformed("HTTP/1.1 without Host", "GET /healthz HTTP/1.1\r\n\r\n"),
        Malformed("two Host headers", "GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"),
    ]

    /// Checks a refusal: its status, the JSON error body, `Connection: close`, then the close.
    static func expectRefusal(
        _ response: RawHTTP.Response, status: Int, code: String, on connection: RawHTTP,
        _ label: String
    ) {
        #expect(response.status == status, "\(label): \(response.statusLine) \(response.text)")
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true, "\(label)")
        #expect(response.errorCode == code, "\(label): \(response.text)")
        let error = (response.json as? [String: Any])?["error"] as? [String: Any]
        #expect((error?["message"] as? String)?.isEmpty == false, "\(label): \(response.text)")
        #expect(error?.keys.contains("field") == true, "\(label): \(response.text)")
        #expect(response.headers["connection"] == "close", "\(label)")
        #expect(connection.waitForClose(), "\(label): the connection stayed open")
    }

    @Test(
        "a malformed request is answered 400 with the JSON error body, then the connection closes",
        arguments: malformed)
    func malformedRequest(_ request: Malformed) async throws {
        try await withServer { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(request.bytes)
                let response = try connection.readResponse()
                Self.expectRefusal(response, status: 400, code: "bad_request", on: connection, request.name)
                #expect(try RawHTTP(port: port).exchange("GET", "/healthz").status == 200)
            }
        }
    }

    @Test("a malformed request pipelined after a good one: the good one is answered, then the 400, then the close")
    func malformedAfterGood() async throws {
        try await withServer { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                #expect(try connection.readResponse().status == 200)
                let refusal = try connection.readResponse()
                Self.expectRefusal(refusal, status: 400, code: "bad_request", on: connection, "pipelined")
            }
        }
    }

    @Test("a transfer coding other than chunked (gzip, chunked) is 501 unsupported_transfer_coding, then closed")
    func unsupportedTransferCoding() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                        + "2\r\n{}\r\n0\r\n\r\n")
                let response = try connection.readResponse()
                Self.expectRefusal(response, status: 501, code: "unsupported_transfer_coding", on: connection, "gzip")
            }
        }
    }

    @Test("HTTP/1.0 without keep-alive is closed after its answer; with keep-alive the connection stays")
    func http10() async throws {
        try await withServer { port, _ in
            try await blocking {
                let plain = try RawHTTP(port: port, timeout: 20)
                plain.send("GET /healthz HTTP/1.0\r\n\r\n")
                let answer = try plain.readResponse()
                #expect(answer.status == 200)
                #expect(answer.headers["connection"] == "close")
                #expect(plain.waitForClose(), "an HTTP/1.0 connection stayed open after its answer")

                let kept = try RawHTTP(port: port, timeout: 20)
                for _ in 0..<2 {
                    kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                    let response = try kept.readResponse()
                    #expect(response.status == 200)
                    #expect(response.headers["connection"]?.lowercased() == "keep-alive")
                }
            }
        }
    }

    @Test("Expect: 100-continue is answered 100 Continue before the body is sent, then the answer")
    func expectContinue() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nExpect: 100-continue\r\n"
                        + "Content-Length: 16\r\n\r\n")
                let interim = try connection.readResponse()
                #expect(interim.status == 100, "\(interim.statusLine)")
                connection.send("{\"sightings\":[]}")
                let answer = try connection.readResponse()
                #expect(answer.status == 200, "\(answer.statusLine) \(answer.text)")
                // The connection goes on.
                #expect(try connection.exchange("GET", "/healthz").status == 200)
            }
        }
    }

    @Test("Expect: 100-continue with a length over the limit is 413 at once, the body never sent")
    func expectContinueTooLarge() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nExpect: 100-continue\r\n"
                        + "Content-Length: \(2 << 20)\r\n\r\n")
                let response = try connection.readResponse()
                Self.expectRefusal(response, status: 413, code: "body_too_large", on: connection, "expect")
            }
        }
    }

    @Test("a chunk declaring 0x7fffffff bytes is 413 at once, not a close at the idle timeout")
    func hugeChunk() async throws {
        try await withServer { port, token in
            try await blocking {
                // The read gives up after 20 s; the server's idle timeout is 60 s.
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "7fffffff\r\n{\"sight")
                let response = try connection.readResponse()
                Self.expectRefusal(response, status: 413, code: "body_too_large", on: connection, "chunk")
            }
        }
    }

    @Test("the same chunk after a head in odd case, sent in pieces split inside its CR LF CR LF: 413 at once")
    func hugeChunkAfterSplitHead() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                let pieces = [
                    "POST /v1/locate HTTP/1.1\r\nhOST: x\r\nAuthorization: Bearer \(token)\r\n",
                    "Content-Type: application/json\r\nTRANSFER-encoding: Chunked\r", "\n\r", "\n7fff",
                    "ffff\r\n{\"sight",
                ]
                for piece in pieces {
                    connection.send(piece)
                    Thread.sleep(forTimeInterval: 0.1)
                }
                let response = try connection.readResponse()
                Self.expectRefusal(response, status: 413, code: "body_too_large", on: connection, "chunk")
            }
        }
    }

    @Test("a chunk too large for a request already answered (401 before its body) closes the connection, nothing else")
    func hugeChunkAfterAnswer() async throws {
        try await withServer { port, _ in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                connection.send(
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n")
                #expect(try connection.readResponse().status == 401)
                connection.send("7fffffff\r\n{\"sight")
                #expect(connection.waitForClose())
                #expect(try RawHTTP(port: port).exchange("GET", "/healthz").status == 200)
            }
        }
    }

    @Test("chunked bodies within the limit, with extensions and trailers, are read as before, request after request")
    func chunkedWithinLimit() async throws {
        try await withServer { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                let head =
                    "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                // Two requests in one write: sizes with an extension, a trailer, then a length-framed one.
                connection.send(
                    head + "1;name=value\r\n{\r\nf\r\n\"sightings\":[]}\r\n0\r\nX-Trailer: t\r\n\r\n" + head
                        + "10\r\n{\"sightings\":[]}\r\n0\r\n\r\n"
                        + "POST /v1/locate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"sightings\":[]}")
                for index in 0..<3 {
                    let response = try connection.readResponse()
                    #expect(response.status == 200, "\(index): \(response.statusLine) \(response.text)")
                }
            }
        }
    }
}
