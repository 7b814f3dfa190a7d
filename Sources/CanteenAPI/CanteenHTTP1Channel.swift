import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel, with Canteen's protocol checks where only HTTP/1 itself is seen:
/// `ChunkSizeWatch` in front of NIO's request decoder, `ProtocolGuard` between the decoder and
/// Hummingbird's HTTP types. Everything else (the codec, `additionalChannelHandlers`, the idle
/// timeout, the request loop) is Hummingbird's `HTTP1Channel`, unchanged.
public struct CanteenHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    public typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let lingerTimeout: Duration

    public var responder: HTTPChannelHandler.Responder { base.responder }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let protocolGuard = ProtocolGuard(lingerTimeout: lingerTimeout, logger: logger)
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
    /// protocol checks.
    public static func canteenHTTP1(
        configuration: HTTP1Channel.Configuration,
        lingerTimeout: Duration = .seconds(2)
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            CanteenHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: configuration),
                lingerTimeout: lingerTimeout)
        }
    }
}
