import CanteenCore
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// Answers what is not HTTP/1.1 as a client expects it, between NIO's HTTP/1 codec and
/// Hummingbird (where the request's version and its framing headers are still seen):
///
/// - **Malformed requests** (NIO's parser refuses them: an invalid method or path, a duplicate or
///   negative `Content-Length`, both `Content-Length` and `Transfer-Encoding`, a bare CR or LF,
///   obsolete line folding) are answered 400 with the JSON error body, a head over the decoder's
///   limits 431 `headers_too_large`; then the connection is closed. Such a request never reaches
///   a route.
/// - **Heads that are well formed but refused**: an HTTP/1.1 request without exactly one `Host`,
///   400; a transfer coding other than `chunked` (`gzip, chunked`), 501
///   `unsupported_transfer_coding`; a declared `Content-Length` over the body limit, 413
///   `body_too_large` at once (a client sending `Expect: 100-continue` never sends the body).
/// - **`Expect: 100-continue`** is answered `100 Continue` when the body is within the limit.
/// - **A chunk declaring more than the body limit** (`ChunkSizeWatch` reads the sizes) fails the
///   body of its request at once: its route answers 413, and the connection closes.
/// - **HTTP/1.0**: the connection closes after the answer unless the request asked for
///   keep-alive; a body without a length is sent until the close, never chunked.
///
/// - **Answers that close**: after an error answer that says `Connection: close` (413
///   `body_too_large`, 431, 400 `request_body_incomplete`: the rest of that request is not read),
///   or any 413 or 431, the connection closes, so a client still sending an oversized body is not
///   left hanging and the rest of that body is never handled.
///
/// - **A graceful shutdown**: when the server tells the connection to quiesce, `onQuiesce` is
///   called (the kitchen feed answers its parked displays and ends its event streams at once), so
///   no request waiting for a change has to register for the shutdown itself. (Here rather than in
///   a handler of its own: every handler costs each request a hop per event.)
///
/// The guard's own answers wait for the answers to earlier requests on the connection (each
/// request gets one answer, in order), carry `Connection: close`, and the close lingers: the
/// sending side is shut first and what still arrives is discarded for up to `lingerTimeout`, so a
/// client still sending reads the answer rather than a reset (closing a socket with unread data
/// resets it, and a reset can destroy the answer before the client reads it).
public final class ProtocolGuard: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias InboundOut = HTTPServerRequestPart
    public typealias OutboundIn = HTTPServerResponsePart
    public typealias OutboundOut = HTTPServerResponsePart

    /// A request passed on whose answer has not ended yet.
    private struct Exchange {
        var version: HTTPVersion
        var keepAlive: Bool
        /// The connection closes after its answer: its body failed (a parser error, a chunk too
        /// large), or its answer closes.
        var closes = false
    }

    /// An answer of the guard's own.
    struct Refusal {
        var status: HTTPResponseStatus
        var error: CanteenError
    }

    private enum State {
        /// Requests go through.
        case open
        /// A request's body failed: nothing more reaches Hummingbird, and the connection closes
        /// after that request's answer.
        case failed
        /// A refusal is waiting for the answers before it; nothing more reaches Hummingbird.
        case refusing(Refusal)
        /// The last answer is out: what arrives is discarded, nothing more is written.
        case closing
    }

    let watch: ChunkSizeWatch
    private let maxBodyBytes: Int
    private let lingerTimeout: TimeAmount
    private let logger: Logger
    private let onQuiesce: @Sendable () -> Void
    private var state = State.open
    private var exchanges: [Exchange] = []
    /// The last request passed on is still sending its body.
    private var readingBody = false
    private var lingerDeadline: Scheduled<Void>?

    public init(
        maxBodyBytes: Int = APILimits.maxBodyBytes, lingerTimeout: Duration = .seconds(2), logger: Logger,
        onQuiesce: @escaping @Sendable () -> Void = {}
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.lingerTimeout = TimeAmount(lingerTimeout)
        self.logger = logger
        self.onQuiesce = onQuiesce
        watch = ChunkSizeWatch(maxBodyBytes: maxBodyBytes)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        // Called on this event loop, while the watch reads, after the decoder has read the same bytes.
        watch.onTooLarge = { [weak self] declared in self?.chunkTooLarge(context, declared: declared) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        watch.onTooLarge = nil
    }

    // MARK: - Requests

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .open = state else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            let fields = FramingFields(head.headers)
            watch.expect(ChunkSizeWatch.Framing(fields))
            if let refusal = refusal(of: head, fields) {
                refuse(refusal, context)
                return
            }
            exchanges.append(Exchange(version: head.version, keepAlive: head.isKeepAlive))
            readingBody = true
            if exchanges.count == 1, Self.expectsContinue(head, fields) {
                context.writeAndFlush(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))),
                    promise: nil)
            }
        case .body:
            break
        case .end:
            readingBody = false
        }
        context.fireChannelRead(data)
    }

    /// Why a well-formed head is answered by the guard rather than a route, if it is.
    func refusal(of head: HTTPRequestHead, _ fields: FramingFields) -> Refusal? {
        let hosts = fields.hosts
        if hosts > 1 || (hosts == 0 && Self.isHTTP11(head.version)) {
            return Refusal(
                status: .badRequest,
                error: CanteenError(
                    .malformed, code: .badRequest,
                    message: "an HTTP/1.1 request has exactly one Host header (it had \(hosts))"))
        }
        let codings = fields.codings
        if !codings.isEmpty {
            if let other = codings.first(where: { $0 != "chunked" }) {
                return Refusal(
                    status: .notImplemented,
                    error: CanteenError(
                        .invalid, code: .unsupportedTransferCoding,
                        message: "the transfer coding '\(other)' is not supported; send the body plain or chunked"))
            }
            if codings.count > 1 || !Self.isHTTP11(head.version) {
                return Refusal(
                    status: .badRequest,
                    error: CanteenError(
                        .malformed, code: .badRequest, message: "Transfer-Encoding must be chunked, once, in HTTP/1.1"))
            }
        }
        // The decoder took the value as a whole number; one too long for Int is over the limit too.
        if let length = fields.contentLength,
            length.utf8.count > 18 || (Int(length) ?? 0) > maxBodyBytes
        {
            return Refusal(
                status: .payloadTooLarge,
                error: CanteenError(
                    .invalid, code: .bodyTooLarge, message: "the request body is larger than \(maxBodyBytes) bytes"))
        }
        return nil
    }

    /// HTTP/1.1 or a later 1.x.
    static func isHTTP11(_ version: HTTPVersion) -> Bool {
        version.major > 1 || (version.major == 1 && version.minor >= 1)
    }

    /// Whether the client waits for `100 Continue` before sending a body it has.
    static func expectsContinue(_ head: HTTPRequestHead, _ fields: FramingFields) -> Bool {
        guard isHTTP11(head.version), fields.expectations.contains("100-continue") else { return false }
        let chunked = fields.transferEncodings > 0
        let length = fields.contentLength.flatMap { Int($0) } ?? 0
        return chunked || length > 0
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard case .open = state else { return }  // what follows a refusal does not matter
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if readingBody {
            // The route reading this body learns of it and answers; the connection closes after.
            failBody(context, error)
        } else if parserError == .headerOverflow {
            let message =
                "the request head is larger than \(APILimits.maxHeaderBytes) bytes, or one header line "
                + "larger than \(APILimits.maxHeaderFieldBytes), or more than \(APILimits.maxHeaderFields) lines"
            refuse(
                Refusal(
                    status: .requestHeaderFieldsTooLarge,
                    error: CanteenError(.invalid, code: .headersTooLarge, message: message)), context)
        } else {
            let message = "the request is not valid HTTP/1.1 (\(Self.describe(parserError)))"
            refuse(
                Refusal(status: .badRequest, error: CanteenError(.malformed, code: .badRequest, message: message)),
                context)
        }
    }

    private func chunkTooLarge(_ context: ChannelHandlerContext, declared: Int) {
        guard case .open = state, readingBody else { return }
        let message = "the request body's chunks declare \(declared) bytes; the limit is \(maxBodyBytes)"
        failBody(context, CanteenError(.invalid, code: .bodyTooLarge, message: message))
    }

    private func failBody(_ context: ChannelHandlerContext, _ error: any Error) {
        readingBody = false
        watch.stop()
        guard !exchanges.isEmpty else {
            // Its answer is out already (a route answered before reading the body): close now.
            state = .closing
            context.fireErrorCaught(error)
            closeLingering(context)
            return
        }
        exchanges[exchanges.count - 1].closes = true
        state = .failed
        context.fireErrorCaught(error)
    }

    private func refuse(_ refusal: Refusal, _ context: ChannelHandlerContext) {
        watch.stop()
        logger.debug(
            "request refused before routing",
            metadata: ["status": "\(refusal.status.code)", "error": "\(refusal.error.message)"])
        state = .refusing(refusal)
        if exchanges.isEmpty { answer(refusal, context) }
    }

    // MARK: - Answers

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .closing = state {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard let exchange = exchanges.first else {
            context.write(data, promise: promise)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            let http11 = Self.isHTTP11(exchange.version)
            let closes = head.status.code >= 400 && Self.closesConnection(head)
            guard closes || !http11 else {
                context.write(data, promise: promise)  // most answers: passed on as they are
                return
            }
            context.write(wrapOutboundOut(.head(begin(head, closing: closes))), promise: promise)
        case .head, .body:
            context.write(data, promise: promise)
        case .end:
            exchanges.removeFirst()
            if exchange.closes || (!Self.isHTTP11(exchange.version) && !exchange.keepAlive) {
                state = .closing
                context.writeAndFlush(data).assumeIsolated().whenComplete { [self] result in
                    promise?.completeWith(result)
                    closeLingering(context)
                }
            } else if exchanges.isEmpty, case .refusing(let refusal) = state {
                context.write(data, promise: promise)
                answer(refusal, context)
            } else {
                context.write(data, promise: promise)
            }
        }
    }

    /// The head of the first exchange's answer, saying whether the connection stays open after it:
    /// not after an answer that closes; in HTTP/1.0 only if the request asked for keep-alive and
    /// the body has a length (one without ends with the connection, never chunked).
    private func begin(_ head: HTTPResponseHead, closing: Bool) -> HTTPResponseHead {
        var head = head
        var keepAlive = exchanges[0].keepAlive && !closing
        if !Self.isHTTP11(exchanges[0].version),
            head.headers["Content-Length"].isEmpty && head.status.mayHaveResponseBody
        {
            head.version = exchanges[0].version
            keepAlive = false
        }
        exchanges[0].keepAlive = keepAlive
        if closing { exchanges[0].closes = true }
        head.headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        return head
    }

    /// An error answer after which the rest of the request cannot be trusted or is not wanted:
    /// its route said `Connection: close`, or it refuses a body or a head as too large.
    static func closesConnection(_ head: HTTPResponseHead) -> Bool {
        head.status == .payloadTooLarge || head.status == .requestHeaderFieldsTooLarge
            || head.headers["Connection"].contains { $0.lowercased() == "close" }
    }

    /// Writes the guard's own answer, then closes.
    private func answer(_ refusal: Refusal, _ context: ChannelHandlerContext) {
        state = .closing
        let body = ErrorResponse.body(for: refusal.error)
        let headers = HTTPHeaders([
            ("Content-Type", JSONResponse.contentType), ("Content-Length", String(body.count)),
            ("Connection", "close"), ("X-Content-Type-Options", "nosniff"),
            (RequestLog.header.rawName, RequestLog.make()),
        ])
        let head = HTTPResponseHead(version: .http1_1, status: refusal.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] _ in
            closeLingering(context)
        }
    }

    // MARK: - Closing

    /// Shuts the sending side (the client reads the answer, then end of file), discards what still
    /// arrives, and closes for good after `lingerTimeout` or when the client closes.
    private func closeLingering(_ context: ChannelHandlerContext) {
        guard lingerDeadline == nil else { return }
        context.close(mode: .output, promise: nil)
        lingerDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: lingerTimeout) {
            context.close(promise: nil)
        }
        context.read()
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        if case .closing = state, lingerDeadline != nil {
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { onQuiesce() }
        if case .closing = state, lingerDeadline != nil, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        context.fireChannelInactive()
    }

    /// NIO's parser error in words a client can act on.
    static func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidMethod: "unknown method"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment: "invalid request target"
        case .unexpectedContentLength: "Content-Length given twice, or with Transfer-Encoding"
        case .invalidContentLength: "invalid Content-Length"
        case .lfExpected, .strictModeAssertion: "a line not ended by CRLF"
        case .invalidHeaderToken: "invalid header line (a bare CR or LF, or obsolete line folding)"
        case .invalidVersion: "invalid HTTP version"
        case .invalidChunkSize: "invalid chunk size"
        case .invalidEOFState: "the connection closed in the middle of the request"
        default: "\(error)"
        }
    }
}
