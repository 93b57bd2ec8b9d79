import Foundation
import Logging

/// Logs each request on swift-log: method, URL, status, byte count and duration.
///
/// Secrets never reach the log, at any level: the `Authorization` header (and the other
/// ``Redaction/secretHeaderNames``) and `client_id`-like query values are replaced by
/// ``Redaction/placeholder``.
public struct LoggingInterceptor: Interceptor {
    public var logger: Logger
    /// The level of a successful exchange's line.
    public var level: Logger.Level

    public init(logger: Logger, level: Logger.Level = .debug) {
        self.logger = logger
        self.level = level
    }

    public func willSend(_ request: TransportRequest) async throws(NetworkError) -> TransportRequest {
        logger.trace(
            "sending request",
            metadata: [
                "method": "\(request.method)",
                "url": "\(Self.url(request))",
                "headers": "\(Redaction.headers(request.headers.dictionary).sorted { $0.key < $1.key })",
            ])
        return request
    }

    public func didReceive(_ exchange: Exchange) async throws(NetworkError) {
        // A redirect is an ordinary hop; anything else outside 2xx is worth noticing.
        let isSuccess = (200..<400).contains(exchange.statusCode)
        logger.log(
            level: isSuccess ? level : .notice,
            "\(exchange.request.method) \(Self.url(exchange.request)) \(exchange.statusCode)",
            metadata: [
                "status": "\(exchange.statusCode)",
                "bytes": "\(exchange.byteCount)",
                "duration_ms": "\(Self.milliseconds(exchange.duration))",
                "attempt": "\(exchange.attempt)",
            ])
    }

    public func didFail(_ request: TransportRequest, error: NetworkError, duration: Duration) async {
        let reason: String =
            switch error {
            case .transport(let failure, _): failure.description
            default: error.errorDescription ?? "\(error)"
            }
        logger.warning(
            "\(request.method) \(Self.url(request)) failed: \(reason)",
            metadata: [
                "duration_ms": "\(Self.milliseconds(duration))"
            ])
    }

    private static func url(_ request: TransportRequest) -> String {
        Redaction.string(for: request.url)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
