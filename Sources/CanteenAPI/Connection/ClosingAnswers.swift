import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// An answer carrying `Connection: close` (413 `body_too_large`, 431, 400
/// `request_body_incomplete`) closes the connection once written, so a client still sending an
/// oversized body is not left hanging and the rest of that body is never handled.
///
/// The close lingers: the sending side is shut first and what still arrives is discarded for up
/// to `lingerTimeout`, because closing a socket with unread data resets it, and a reset can
/// destroy the answer before the client reads it. Malformed requests and oversized heads are
/// answered by `ProtocolGuard`, nearer the socket. Sits between the HTTP codec and Hummingbird.
public final class ClosingAnswers: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private let lingerTimeout: TimeAmount
    private var lingerDeadline: Scheduled<Void>?
    private var closeAfterAnswer = false
    private var closing = false
    private var lingering = false

    public init(lingerTimeout: Duration = .seconds(2)) {
        self.lingerTimeout = TimeAmount(lingerTimeout)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Once a closing answer is out, nothing more is written (not a second answer to a broken request).
        guard !closing else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head):
            // Only error answers close (most answers skip the header lookup).
            if head.status.code >= 400,
                Self.closesConnection(head.status) || head.headerFields.value(of: .connection)?.lowercased() == "close"
            {
                closeAfterAnswer = true
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterAnswer else {
                context.write(data, promise: promise)
                return
            }
            closing = true
            context.writeAndFlush(data).assumeIsolated().whenComplete { [self] result in
                promise?.completeWith(result)
                closeLingering(context)
            }
        }
    }

    /// Answers after which the rest of the request cannot be trusted or is not wanted.
    static func closesConnection(_ status: HTTPResponse.Status) -> Bool {
        status == .contentTooLarge || status == .requestHeaderFieldsTooLarge
    }

    /// Shuts the sending side now (the client reads the answer, then end of file), discards
    /// what still arrives, and closes for good after `lingerTimeout` or when the client closes.
    private func closeLingering(_ context: ChannelHandlerContext) {
        guard !lingering else { return }
        lingering = true
        context.close(mode: .output, promise: nil)
        lingerDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: lingerTimeout) {
            context.close(promise: nil)
        }
        // Read on whatever the handlers behind this one still want: the client must be able to
        // finish sending before it reads the answer.
        context.read()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a closing answer, the rest of the request is discarded, unseen by anyone.
        guard !lingering else { return }
        context.fireChannelRead(data)
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        if lingering {
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // What arrives after a closing answer may not parse: nobody needs to hear of it.
        if lingering { return }
        context.fireErrorCaught(error)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        lingerDeadline = nil
        context.fireChannelInactive()
    }
}
