import NIOCore

/// When the server begins a graceful shutdown it tells every connection to quiesce; this handler
/// calls `onQuiesce` then (the kitchen feed answers its parked displays and ends its event
/// streams at once), so no request waiting for a change has to register for the shutdown itself.
public final class QuiesceRelay: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let onQuiesce: @Sendable () -> Void

    public init(onQuiesce: @escaping @Sendable () -> Void) {
        self.onQuiesce = onQuiesce
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { onQuiesce() }
        context.fireUserInboundEventTriggered(event)
    }
}
