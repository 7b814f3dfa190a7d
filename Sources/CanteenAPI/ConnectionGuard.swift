import CanteenCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Guards each HTTP/1 connection, between the HTTP codec and Hummingbird:
///
/// - **Header timeout**: a new connection must deliver its first complete request head within
///   `headerTimeout`; otherwise it is closed (a client that sends half a request line, or
///   nothing, no longer holds a connection forever). Afterwards Hummingbird's idle timeout
///   bounds a keep-alive connection that goes quiet, or sends a head or body that never ends
///   (no complete part arrives), so kiosks keep their connections between requests.
/// - **Closing answers**: an answer carrying `Connection: close` (413 `body_too_large`, 400
///   `request_body_incomplete`) closes the connection once written, so a client still sending
///   an oversized body is not left hanging and the rest of that body is never handled. The close
///   lingers: the sending side is shut first and what still arrives is discarded for up to
///   `lingerTimeout`, because closing a socket with unread data resets it, and a reset can
///   destroy the answer before the client reads it.
/// - Malformed requests and oversized heads are answered by `ProtocolGuard`, nearer the socket.
/// - **Shutdown**: when the server begins a graceful shutdown it tells every connection to
///   quiesce; the guard calls `onQuiesce` (the kitchen feed answers its parked displays and
///   ends its event streams at once), so no request waiting for a change has to register for
///   the shutdown itself.
public final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let lingerTimeout: TimeAmount
    private let onQuiesce: (@Sendable () -> Void)?
    private var headerDeadline: Scheduled<Void>?
    private var lingerDeadline: Scheduled<Void>?
    private var requestsInProgress = 0
    private var closeAfterAnswer = false
    private var closing = false
    private var lingering = false

    public init(
        headerTimeout: Duration, lingerTimeout: Duration = .seconds(2), onQuiesce: (@Sendable () -> Void)? = nil
    ) {
        self.headerTimeout = Self.timeAmount(headerTimeout)
        self.lingerTimeout = Self.timeAmount(lingerTimeout)
        self.onQuiesce = onQuiesce
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(
            Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Shuts the sending side now (the client reads the answer, then end of file), discards
    /// what still arrives, and closes for good after `lingerTimeout` or when the client closes.
    private func closeLingering(_ context: ChannelHandlerContext) {
        guard !lingering else { return }
        lingering = true
        cancelHeaderDeadline()
        context.close(mode: .output, promise: nil)
        lingerDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: lingerTimeout) {
            context.close(promise: nil)
        }
        // Read on whatever the handlers behind this one still want: the client must be able to
        // finish sending before it reads the answer.
        context.read()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { onQuiesce?() }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        if lingering {
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    // MARK: - Header timeout

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHeaderDeadline(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        armHeaderDeadline(context)
        context.fireChannelActive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelHeaderDeadline()
        lingerDeadline?.cancel()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancelHeaderDeadline()
        lingerDeadline?.cancel()
        lingerDeadline = nil
        context.fireChannelInactive()
    }

    private func armHeaderDeadline(_ context: ChannelHandlerContext) {
        guard headerDeadline == nil, !closing else { return }
        headerDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: headerTimeout) { [self] in
            headerDeadline = nil
            guard requestsInProgress == 0 else { return }
            closing = true
            context.close(promise: nil)
        }
    }

    private func cancelHeaderDeadline() {
        headerDeadline?.cancel()
        headerDeadline = nil
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a closing answer, the rest of the request is discarded, unseen by anyone.
        guard !lingering else { return }
        if case .head = unwrapInboundIn(data) {
            cancelHeaderDeadline()
            requestsInProgress += 1
        }
        context.fireChannelRead(data)
    }

    // MARK: - Answers

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
            requestsInProgress = max(0, requestsInProgress - 1)
            if closeAfterAnswer {
                closing = true
                context.writeAndFlush(data).assumeIsolated().whenComplete { [self] result in
                    promise?.completeWith(result)
                    closeLingering(context)
                }
                return
            }
            context.write(data, promise: promise)
        }
    }

    /// Answers after which the rest of the request cannot be trusted or is not wanted.
    static func closesConnection(_ status: HTTPResponse.Status) -> Bool {
        status == .contentTooLarge || status == .requestHeaderFieldsTooLarge
    }

    // MARK: - Errors

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // What arrives after a closing answer may not parse: nobody needs to hear of it.
        if lingering { return }
        context.fireErrorCaught(error)
    }
}
