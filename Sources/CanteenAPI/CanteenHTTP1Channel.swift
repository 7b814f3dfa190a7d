import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel, with Canteen's protocol checks where only HTTP/1 itself is seen:
/// `ChunkSizeWatch` in front of NIO's request decoder, `ProtocolGuard` between the decoder and
/// Hummingbird's HTTP types (which also calls `onQuiesce` when the server begins a graceful
/// shutdown). Everything else (the codec, `additionalChannelHandlers`, the idle
/// timeout, the request loop) is Hummingbird's `HTTP1Channel`, unchanged.
public struct CanteenHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    public typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let lingerTimeout: Duration
    let onQuiesce: @Sendable () -> Void

    public var responder: HTTPChannelHandler.Responder { base.responder }

    /// How each connection sizes its reads: NIO's adaptive allocator, starting at 512 bytes
    /// instead of NIO's 2,048. A connection holds its receive buffer (and the decoder a second one
    /// of the same size) while it sits idle, so an idle keep-alive connection or event stream
    /// keeps 1 KB of them instead of 4 KB; a connection whose reads fill the buffer gets larger
    /// ones (up to 64 KB), as with NIO's defaults. A request head (about 300 bytes from a kiosk,
    /// up to a kilobyte from a browser) takes one read, or two the first time.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let protocolGuard = ProtocolGuard(lingerTimeout: lingerTimeout, logger: logger, onQuiesce: onQuiesce)
            try pipeline.addHandler(protocolGuard, position: .before(codec))
            try pipeline.addHandler(protocolGuard.watch, position: .before(decoder))
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 as Hummingbird serves it (`http1(configuration:)`), with `CanteenHTTP1Channel`'s
    /// protocol checks; `onQuiesce` is called on each connection when a graceful shutdown begins.
    public static func canteenHTTP1(
        configuration: HTTP1Channel.Configuration,
        lingerTimeout: Duration = .seconds(2),
        onQuiesce: @escaping @Sendable () -> Void = {}
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            CanteenHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: configuration),
                lingerTimeout: lingerTimeout, onQuiesce: onQuiesce)
        }
    }
}
