import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

@testable import CanteenAPI

/// `ProtocolGuard`'s handling of answers on a channel of its own: which answers close the
/// connection (after a lingering close), and the graceful shutdown it relays.
@Suite("ProtocolGuard: answers that close, and quiescing")
struct ProtocolGuardAnswerTests {
    /// A channel with only the guard, one HTTP/1.1 request read through it.
    func channel(
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = ["Host": "x"],
        onQuiesce: @escaping @Sendable () -> Void = {}
    ) throws -> EmbeddedChannel {
        let guardHandler = ProtocolGuard(
            lingerTimeout: .seconds(2), logger: Logger(label: "guard-test"), onQuiesce: onQuiesce)
        let channel = EmbeddedChannel(handler: guardHandler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        #expect(channel.isActive)
        try channel.writeInbound(
            HTTPServerRequestPart.head(HTTPRequestHead(version: version, method: .POST, uri: "/v1/x", headers: headers))
        )
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        return channel
    }

    /// Writes an answer's head and end; returns the head as it left the guard.
    func answer(_ channel: EmbeddedChannel, _ status: HTTPResponseStatus, headers: HTTPHeaders = [:]) throws
        -> HTTPResponseHead
    {
        channel.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)),
            promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
        guard case .head(let head) = try #require(try channel.readOutbound(as: HTTPServerResponsePart.self)) else {
            Issue.record("the first part out is not a head")
            return HTTPResponseHead(version: .http1_1, status: .internalServerError)
        }
        return head
    }

    @Test(
        "413 and 431 answers, and error answers saying Connection: close, close the connection after a linger",
        arguments: [
            (HTTPResponseStatus.payloadTooLarge, HTTPHeaders()),
            (.requestHeaderFieldsTooLarge, HTTPHeaders()),
            (.badRequest, HTTPHeaders([("Connection", "close")])),
        ])
    func closingAnswers(status: HTTPResponseStatus, headers: HTTPHeaders) throws {
        let channel = try channel()
        let head = try answer(channel, status, headers: headers)
        #expect(head.headers["connection"] == ["close"])
        // The sending side is shut at once (half-closure, which EmbeddedChannel refuses), and the
        // connection closed for good after the linger.
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(!channel.isActive, "\(status) left the connection open")
        // Nothing more is written on a closing connection.
        let late = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        #expect(throws: (any Error).self) { try late.wait() }
    }

    @Test("other answers, errors included, leave an HTTP/1.1 connection open and their heads as they were")
    func answersThatKeepTheConnection() throws {
        for status in [HTTPResponseStatus.ok, .notFound, .badRequest, .unprocessableEntity] {
            let channel = try channel()
            let head = try answer(channel, status)
            #expect(head.headers["connection"].isEmpty, "\(status)")
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            #expect(channel.isActive, "\(status) closed the connection")
            _ = try channel.finish()
        }
    }

    @Test("HTTP/1.0: kept alive only when asked and the answer has a length")
    func http10() throws {
        let asked = try channel(version: .http1_0, headers: ["Connection": "keep-alive"])
        let kept = try answer(asked, .ok, headers: ["Content-Length": "2"])
        #expect(kept.headers["connection"] == ["keep-alive"])
        asked.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(asked.isActive)

        let notAsked = try channel(version: .http1_0, headers: [:])
        let closed = try answer(notAsked, .ok, headers: ["Content-Length": "2"])
        #expect(closed.headers["connection"] == ["close"])
        notAsked.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(!notAsked.isActive)

        let noLength = try channel(version: .http1_0, headers: ["Connection": "keep-alive"])
        let streamed = try answer(noLength, .ok)
        #expect(streamed.headers["connection"] == ["close"])
        #expect(streamed.version == .http1_0)
    }

    @Test("a graceful shutdown's quiesce event reaches onQuiesce, once per connection, and goes on down the pipeline")
    func quiesce() throws {
        let calls = Atomic<Int>(0)
        let channel = try channel(onQuiesce: { calls.add(1, ordering: .relaxed) })
        let seen = EventRecorder()
        try channel.pipeline.syncOperations.addHandler(seen)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(seen.quiesced)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(calls.load(ordering: .relaxed) == 1, "only the quiesce event calls it")
    }

    final class EventRecorder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var quiesced = false
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { quiesced = true }
        }
    }
}
