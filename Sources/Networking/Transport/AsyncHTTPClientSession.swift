import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The production transport: AsyncHTTPClient (SwiftNIO) behind ``URLSessionable``.
///
/// Why not `URLSession` there: FoundationNetworking's can deadlock when a task is cancelled as
/// an answer completes (swift-corelibs-foundation #5412), follows redirects with the original
/// headers, cannot stream a body, and costs several times the CPU. This transport:
/// - streams every body chunk by chunk, and is cancelled promptly at any point by cancelling the
///   calling task;
/// - never follows a redirect itself (``Provider`` does, checking every hop);
/// - fails a connection that does not open within ``Configuration/connectTimeout``, and an
///   answer that sends nothing for ``Configuration/readTimeout``, so a stalled server cannot
///   stall the caller; a connection refused, or a TLS handshake that fails, fails at once;
/// - bounds every request in time, however slowly a host sends (see ``RequestBounds``): a
///   request's ``TransportRequest/timeout`` is a deadline for its whole answer, head and body;
///   without one, the head must come within the connect and read timeouts together, and the body
///   must keep the request's ``TransportRequest/minimumRate`` (by default
///   ``Configuration/minimumRate``);
/// - says what failed with a ``TransportError``, told by the error's type (never its name);
/// - goes through the proxies of ``ProxySettings``.
///
/// One instance serves the whole process. Call ``shutdown()`` before it ends.
public final class AsyncHTTPClientSession: URLSessionable {
    public struct Configuration: Sendable {
        public var connectTimeout: Duration
        /// The longest silence while waiting for the head or for the next body bytes.
        public var readTimeout: Duration
        /// Connections kept open to one host.
        public var maxConnectionsPerHost: Int
        /// Sent as `User-Agent` unless a request sets its own.
        public var userAgent: String?
        public var proxies: ProxySettings
        /// The slowest a body may arrive, for a request that sets neither a timeout nor a
        /// minimum rate of its own.
        public var minimumRate: MinimumRate

        public init(
            connectTimeout: Duration = .seconds(10),
            readTimeout: Duration = .seconds(30),
            maxConnectionsPerHost: Int = 8,
            userAgent: String? = nil,
            proxies: ProxySettings = ProxySettings(),
            minimumRate: MinimumRate = .standard
        ) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.minimumRate = minimumRate
            self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
            self.userAgent = userAgent
            self.proxies = proxies
        }
    }

    public let configuration: Configuration
    /// One client for direct connections and one per proxy: AsyncHTTPClient binds a proxy to a
    /// client, and `no_proxy` decides per request. They share one event loop group.
    private let direct: HTTPClient
    private let proxied: [ProxySettings.Proxy: HTTPClient]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        direct = Self.makeClient(configuration, proxy: nil)
        let proxies = Set([configuration.proxies.http, configuration.proxies.https].compactMap { $0 })
        proxied = Dictionary(uniqueKeysWithValues: proxies.map { ($0, Self.makeClient(configuration, proxy: $0)) })
    }

    /// Closes every connection. Requests still running fail; the session cannot be used after.
    public func shutdown() async throws {
        for client in [direct] + Array(proxied.values) {
            try await client.shutdown()
        }
    }

    public func stream(for request: TransportRequest) async throws(TransportError) -> (ResponseHead, ResponseBody) {
        let url = request.url
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = .init(rawValue: request.method.rawValue)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let userAgent = configuration.userAgent, !outgoing.headers.contains(name: "User-Agent") {
            outgoing.headers.add(name: "User-Agent", value: userAgent)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let proxy = configuration.proxies.proxy(for: url)
        let client = proxy.flatMap { proxied[$0] } ?? direct

        let bounds = RequestBounds(request, configuration: configuration)
        let sentAt = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            // AsyncHTTPClient's deadline covers only the wait for the head: the body's reads
            // are bounded by `bounds`.
            response = try await client.execute(outgoing, deadline: .now() + .init(bounds.headTimeout))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            // The head's deadline, or its read timeout: AsyncHTTPClient does not reset that for
            // each byte of a head, so a host that trickles one misses it. Either is a head too slow.
            throw bounds.missedHead(sentAt: sentAt)
        } catch {
            throw Self.transportError(for: error, through: proxy)
        }
        var headers = Networking.HTTPHeaders()
        for (name, value) in response.headers {
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let body = bounds.body(response.body, sentAt: sentAt) { Self.transportError(for: $0, through: nil) }
        return (ResponseHead(statusCode: Int(response.status.code), headers: headers, url: url), body)
    }

    private static func makeClient(_ configuration: Configuration, proxy: ProxySettings.Proxy?) -> HTTPClient {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(configuration.connectTimeout), read: .init(configuration.readTimeout)),
            connectionPool: .init(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maxConnectionsPerHost),
            proxy: proxy.map(Self.proxy),
            decompression: .disabled)
        settings.httpVersion = .automatic
        // A connection that cannot be opened (refused, a TLS handshake that fails, a dead proxy)
        // fails its requests at once, with its own error: retried, AsyncHTTPClient would wait
        // out the whole connect timeout and hide that error. Provider's retry policy and the
        // image queue's backoff decide when to try again.
        settings.connectionPool.retryConnectionEstablishment = false
        // No distributed tracing here: with no tracer set, AsyncHTTPClient still made a no-op
        // span and its attributes for every request (about 2 % of a sync's CPU).
        settings.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    private static func proxy(_ proxy: ProxySettings.Proxy) -> HTTPClient.Configuration.Proxy {
        switch proxy.kind {
        case .socks5:
            return .socksServer(host: proxy.host, port: proxy.port)
        case .http:
            let authorization = proxy.credentials.map {
                HTTPClient.Authorization.basic(credentials: Data($0.utf8).base64EncodedString())
            }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        }
    }

    /// What an AsyncHTTPClient, SwiftNIO or NIOSSL error means, told by its type and value.
    ///
    /// A connection that could not be opened through `proxy` is the proxy's failure, and names
    /// it (host and port only: its credentials stay out of every message).
    static func transportError(for error: any Error, through proxy: ProxySettings.Proxy?) -> TransportError {
        let failure = transportError(for: error)
        guard let proxy, failure.isConnecting else { return failure.error }
        return TransportError(.proxyFailed, detail: "proxy \(proxy.host):\(proxy.port): \(failure.error)")
    }

    /// The error, and whether it happened while a connection was being opened.
    private static func transportError(for error: any Error) -> (error: TransportError, isConnecting: Bool) {
        switch error {
        case let error as TransportError:
            return (error, false)
        case is CancellationError:
            return (TransportError(.cancelled), false)
        case let error as HTTPClientError:
            return transportError(for: error)
        case let error as NIOConnectionError:
            // Each address tried failed: the resolver, or every connection attempt.
            if error.connectionErrors.isEmpty {
                let reason = (error.dnsAAAAError ?? error.dnsAError).map { String(describing: $0) }
                return (TransportError(.hostNotFound, detail: reason), true)
            }
            let attempts = error.connectionErrors.map(\.error)
            if attempts.contains(where: { ($0 as? IOError)?.errnoCode == ECONNREFUSED }) {
                return (TransportError(.connectionRefused), true)
            }
            let timedOut = attempts.contains { attempt in
                if case .connectTimeout? = attempt as? ChannelError { return true }
                return false
            }
            if timedOut { return (TransportError(.timedOut), true) }
            return (TransportError(.cannotConnect, detail: attempts.first.map { String(describing: $0) }), true)
        case let error as ChannelError:
            if case .connectTimeout = error { return (TransportError(.timedOut), true) }
            return (TransportError(.connectionLost), false)
        case let error as IOError:
            return transportError(errno: error.errnoCode)
        case let error as HTTPParserError:
            // The connection closing before the body's Content-Length is the common case.
            if error == .invalidEOFState { return (TransportError(.connectionLost), false) }
            return (TransportError(.invalidResponse, detail: String(describing: error)), false)
        case let error as NIOSSLError:
            // The peer closing the TCP connection without TLS's close_notify: the connection
            // was cut, not the handshake refused.
            if case .uncleanShutdown = error { return (TransportError(.connectionLost), false) }
            return (TransportError(.tlsFailed, detail: String(describing: error)), false)
        case let error as BoringSSLError:
            return (TransportError(.tlsFailed, detail: String(describing: error)), false)
        case let error as NIOSSLExtraError:
            return (TransportError(.tlsFailed, detail: String(describing: error)), false)
        case is NIOSSLCloseTimedOutError:
            return (TransportError(.connectionLost), false)
        default:
            return (TransportError(.other, detail: String(reflecting: error)), false)
        }
    }

    private static func transportError(for error: HTTPClientError) -> (error: TransportError, isConnecting: Bool) {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return (TransportError(.cancelled), false)
        case .connectTimeout:
            return (TransportError(.timedOut), true)
        case .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
            return (TransportError(.timedOut), false)
        case .tlsHandshakeTimeout:
            return (TransportError(.timedOut, detail: "during the TLS handshake"), false)
        case .remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown:
            return (TransportError(.connectionLost), false)
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return (TransportError(.unsupportedURL), false)
        case .proxyAuthenticationRequired:
            return (TransportError(.proxyFailed, detail: "the proxy asks for credentials"), false)
        case .invalidProxyResponse, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
            return (TransportError(.proxyFailed, detail: String(describing: error)), true)
        default:
            return (TransportError(.invalidResponse, detail: String(describing: error)), false)
        }
    }

    private static func transportError(errno: Int32) -> (error: TransportError, isConnecting: Bool) {
        switch errno {
        case ECONNREFUSED: (TransportError(.connectionRefused), true)
        case ETIMEDOUT: (TransportError(.timedOut), false)
        case EHOSTUNREACH, ENETUNREACH, ENETDOWN: (TransportError(.cannotConnect), true)
        default: (TransportError(.connectionLost), false)
        }
    }
}
