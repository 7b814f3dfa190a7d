import NIOCore

/// The bytes end of a connection's answers written ahead (see `ConnectionGuard`): sits between
/// the socket and NIO's HTTP/1 encoder, writes an answer's bytes straight to the socket, and
/// drops the encoder's bytes while told to (the empty answer the encoder is given in place of
/// the handler's own, for a request that was answered ahead, so that it stays in step with the
/// requests it answers).
final class AnswerAheadWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var context: ChannelHandlerContext?
    /// While set, what the encoder writes is dropped, its promises kept.
    var discarding = false
    /// The connection's guard, which decides whether its request in progress can be answered
    /// ahead. (The feed finds this handler, the first after the socket, at once; the guard is
    /// further up the pipeline.)
    weak var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if discarding {
            promise?.succeed()
            return
        }
        context.write(data, promise: promise)
    }

    /// The connection, while in its pipeline.
    var channel: (any Channel)? { context?.channel }

    /// Writes `buffers`, in order, and flushes; false when not in a pipeline.
    func write(_ buffers: [ByteBuffer]) -> Bool {
        guard let context else { return false }
        for buffer in buffers { context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: nil) }
        context.flush()
        return true
    }
}
