import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// The production transport on Linux: AsyncHTTPClient (SwiftNIO) behind ``URLSessionable``.
///
/// Why not `URLSession` there: FoundationNetworking's can deadlock when a task is cancelled as
/// an answer completes (swift-corelibs-foundation #5412), follows redirects with the original
/// headers, cannot stream a body, and costs several times the CPU. This transport:
/// - streams every body chunk by chunk, and is cancelled promptly at any point by cancelling the
///   calling task;
/// - never follows a redirect itself (``Provider`` does, checking every hop);
/// - fails a connection that does not open within ``Configuration/connectTimeout``, and an
///   answer that sends nothing for ``Configuration/readTimeout``, so a stalled server cannot
///   stall the caller;
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

        public init(
            connectTimeout: Duration = .seconds(10),
            readTimeout: Duration = .seconds(30),
            maxConnectionsPerHost: Int = 8,
            userAgent: String? = nil,
            proxies: ProxySettings = ProxySettings()
        ) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
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

    public func stream(for request: URLRequest) async throws -> (ResponseHead, ResponseBody) {
        guard let url = request.url else { throw URLError(.badURL) }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = .init(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            outgoing.headers.add(name: name, value: value)
        }
        if let userAgent = configuration.userAgent, !outgoing.headers.contains(name: "User-Agent") {
            outgoing.headers.add(name: "User-Agent", value: userAgent)
        }
        if let body = request.httpBody {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let client = configuration.proxies.proxy(for: url).flatMap { proxied[$0] } ?? direct

        let response: HTTPClientResponse
        do {
            // The deadline covers only the wait for the head; the read timeout bounds silences.
            response = try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            throw Self.urlError(for: error)
        }
        var headers = Networking.HTTPHeaders()
        for (name, value) in response.headers {
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let body = ResponseBody(response.body, chunk: { buffer in
            buffer.withUnsafeReadableBytes { Data($0) }
        }, mapError: Self.urlError(for:))
        return (ResponseHead(statusCode: Int(response.status.code), headers: headers, url: url), body)
    }

    private static func makeClient(_ configuration: Configuration, proxy: ProxySettings.Proxy?) -> HTTPClient {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(configuration.connectTimeout), read: .init(configuration.readTimeout)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maxConnectionsPerHost),
            proxy: proxy.map(Self.proxy),
            decompression: .disabled)
        settings.httpVersion = .automatic
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
            let authorization = proxy.credentials.map { HTTPClient.Authorization.basic(credentials: Data($0.utf8).base64EncodedString()) }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        }
    }

    /// AsyncHTTPClient's and SwiftNIO's errors in the `URLError` terms ``NetworkError`` and
    /// ``RetryPolicy`` speak. Cancellation stays `CancellationError`.
    static func urlError(for error: any Error) -> any Error {
        switch error {
        case is CancellationError, is URLError, is NetworkError:
            return error
        case let error as HTTPClientError:
            switch error {
            case .cancelled, .requestStreamCancelled: return CancellationError()
            case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return URLError(.timedOut)
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return URLError(.networkConnectionLost)
            case .invalidURL, .emptyHost, .emptyScheme:
                return URLError(.badURL)
            case .proxyAuthenticationRequired, .invalidProxyResponse:
                return URLError(.cannotConnectToHost)
            default:
                return URLError(.badServerResponse)
            }
        case let error as NIOConnectionError:
            return URLError(error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
                ? .cannotFindHost : .cannotConnectToHost)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return URLError(.timedOut)
            default: return URLError(.networkConnectionLost)
            }
        case is IOError:
            return URLError(.networkConnectionLost)
        case let error as HTTPParserError:
            // The connection closing before the body's Content-Length is the common case.
            return URLError(error == .invalidEOFState ? .networkConnectionLost : .badServerResponse)
        default:
            if String(reflecting: type(of: error)).contains("NIOSSL") { return URLError(.secureConnectionFailed) }
            return URLError(.unknown)
        }
    }
}
