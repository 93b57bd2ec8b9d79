import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TestSupport
import Testing

@testable import Networking

/// What the production transport says when no answer comes: each failure by its type, never by
/// its type's name, and a dead proxy named as the proxy.
@Suite(.timeLimit(.minutes(5))) struct TransportErrorTests {
    /// A connect timeout past the suite's time limit: a failure that should come at once and
    /// instead waits for it fails the suite, with no timing assertion that a busy machine trips.
    static let unreachedTimeout = Duration.seconds(600)

    /// Runs `body` with a port on 127.0.0.1 that refuses connections: bound, never listening,
    /// and held until `body` returns, so no other test's server can take it meanwhile.
    static func withRefusingPort<T>(_ body: (Int) async throws -> T) async throws -> T {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        try #require(bound)
        return try await body(Int(UInt16(bigEndian: address.sin_port)))
    }

    static func failure(
        _ url: URL, _ configuration: AsyncHTTPClientSession.Configuration
    ) async throws -> NetworkError? {
        let session = AsyncHTTPClientSession(configuration: configuration)
        let provider = Provider(session: session, retryPolicy: .none)
        var failure: NetworkError?
        do {
            _ = try await provider.request(url)
        } catch {
            failure = error
        }
        try await session.shutdown()
        return failure
    }

    @Test func aTLSHandshakeWithAServerThatSpeaksPlainHTTPIsATLSFailure() async throws {
        // GIVEN a server that greets every connection in plain HTTP, asked for https
        let server = try await PlainTextGreeter.start()
        let url = try #require(URL(string: "https://127.0.0.1:\(server.localAddress?.port ?? 0)/photos"))
        // WHEN the transport fetches it
        let error = try await Self.failure(url, .init(connectTimeout: Self.unreachedTimeout))
        try await server.close()
        // THEN the failure is TLS's and says so: had the handshake been retried until the connect
        // timeout, it would be a time-out, and past the suite's time limit
        guard case .transport(let failure, _)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(failure.code == .tlsFailed)
        #expect(error?.errorDescription?.contains("the TLS connection failed") == true)
    }

    @Test func aRefusedConnectionIsReportedAsRefusedAtOnce() async throws {
        // A refusal retried until the connect timeout would end as a time-out, past the time limit.
        let error = try await Self.withRefusingPort { port in
            try await Self.failure(
                URL(string: "http://127.0.0.1:\(port)/photos")!, .init(connectTimeout: Self.unreachedTimeout))
        }
        guard case .transport(let failure, _)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(failure.code == .connectionRefused)
        #expect(error?.errorDescription?.contains("the connection was refused") == true)
    }

    @Test func aDeadProxyIsNamedAsTheProxy() async throws {
        // GIVEN a proxy variable naming a port where nothing listens
        try await Self.withRefusingPort { port in
            let proxies = try ProxySettings(environment: ["http_proxy": "http://user:PASS@127.0.0.1:\(port)"])
            // WHEN a request goes through it
            let error = try await Self.failure(
                URL(string: "http://origin.invalid/photos")!, .init(connectTimeout: .seconds(5), proxies: proxies))
            // THEN the error names the proxy, by host and port only
            guard case .transport(let failure, _)? = error else {
                Issue.record("got \(String(describing: error))")
                return
            }
            #expect(failure.code == .proxyFailed)
            let message = error?.errorDescription ?? ""
            #expect(message.contains("proxy 127.0.0.1:\(port): the connection was refused"))
            #expect(!message.contains("PASS"))
        }
    }

    // MARK: - Each error type, mapped by its type

    @Test func nioSSLErrorsAreTLSFailuresButAnUncleanShutdownIsALostConnection() {
        let handshake = AsyncHTTPClientSession.transportError(
            for: NIOSSLError.handshakeFailed(.sslError([])), through: nil)
        #expect(handshake.code == .tlsFailed)
        #expect(AsyncHTTPClientSession.transportError(for: BoringSSLError.wantRead, through: nil).code == .tlsFailed)
        let unclean = AsyncHTTPClientSession.transportError(for: NIOSSLError.uncleanShutdown, through: nil)
        #expect(unclean.code == .connectionLost)
    }

    @Test func socketErrorsAreMappedByErrno() {
        func code(_ errno: Int32) -> TransportError.Code {
            AsyncHTTPClientSession.transportError(for: IOError(errnoCode: errno, reason: "connect"), through: nil).code
        }
        #expect(code(ECONNREFUSED) == .connectionRefused)
        #expect(code(ECONNRESET) == .connectionLost)
        #expect(code(ETIMEDOUT) == .timedOut)
        #expect(code(EHOSTUNREACH) == .cannotConnect)
    }

    @Test func aConnectionFailureThroughAProxyIsTheProxysButAReadFailureIsNot() {
        let proxy = ProxySettings.Proxy(host: "proxy.example", port: 3128, credentials: "u:SECRET")
        let refused = AsyncHTTPClientSession.transportError(
            for: IOError(errnoCode: ECONNREFUSED, reason: "connect"), through: proxy)
        #expect(refused.code == .proxyFailed)
        #expect(refused.description.contains("proxy.example:3128"))
        #expect(!refused.description.contains("SECRET"))
        let lost = AsyncHTTPClientSession.transportError(for: ChannelError.eof, through: proxy)
        #expect(lost.code == .connectionLost)
    }

    @Test func cancellationStaysCancellation() {
        #expect(AsyncHTTPClientSession.transportError(for: CancellationError(), through: nil).code == .cancelled)
    }
}

/// A server that writes a plain-HTTP answer as soon as a client connects, then closes: what a
/// TLS client meets when it is pointed at a plain port.
private final class PlainTextGreeter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    static func start() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.pipeline.addHandler(PlainTextGreeter()) }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    func channelActive(context: ChannelHandlerContext) {
        let greeting = context.channel.allocator.buffer(string: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        context.writeAndFlush(NIOAny(greeting), promise: nil)
        context.close(promise: nil)
    }
}
