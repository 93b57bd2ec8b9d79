import NIOCore
import NIOHTTP1

/// Closes an HTTP/1.0 connection after its answer unless the request asked to keep it: HTTP/1.0
/// has no persistent connections by default (RFC 9112, 9.3), and a client that reads its answer
/// to the end of the connection (`ab`, a script) would otherwise wait for the idle connection
/// to time out.
///
/// Hummingbird 2 closes a connection after a request only when it says `Connection: close`,
/// and the codec that turns NIO's heads into HTTP types drops the version. So this handler,
/// added with Hummingbird's other handlers after that codec, puts ``VersionReader`` before it,
/// right after NIO's decoder, to write `Connection: close` into such a request's head.
final class HTTP10ConnectionClose: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Never

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else {
            return
        }
        try? pipeline.addHandler(VersionReader(), position: .after(decoder.handler))
    }

    /// Marks an HTTP/1.0 request that does not ask for keep-alive `Connection: close`.
    final class VersionReader: ChannelInboundHandler, RemovableChannelHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(var head) = unwrapInboundIn(data), head.version == .http1_0, !head.isKeepAlive else {
                context.fireChannelRead(data)
                return
            }
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        }
    }
}
