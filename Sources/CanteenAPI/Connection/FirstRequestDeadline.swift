import NIOCore
import NIOHTTPTypes

/// Closes a new connection that has not delivered its first complete request head within
/// `timeout` (a client that sends half a request line, or nothing, no longer holds a connection
/// forever). Afterwards Hummingbird's idle timeout bounds a keep-alive connection that goes
/// quiet, or sends a head or body that never ends, so kiosks keep their connections between
/// requests. Sits between the HTTP codec and Hummingbird until the first head has passed, then
/// leaves the pipeline.
public final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// A head arrived: the deadline is never armed again on this connection.
    private var met = false

    public init(timeout: Duration) {
        self.timeout = TimeAmount(timeout)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !met, case .head = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        met = true
        cancel()
        context.fireChannelRead(data)
        // Its job is done: the connection's later requests no longer pass through it.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, !met else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            deadline = nil
            context.close(promise: nil)
        }
    }

    private func cancel() {
        deadline?.cancel()
        deadline = nil
    }
}
