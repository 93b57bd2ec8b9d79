/// Why a request got no HTTP answer, or lost it mid-body, as a transport tells it.
///
/// ``code`` is what a caller decides on (``RetryPolicy`` retries by it); ``detail`` adds what
/// the layer below said, when it helps a person: the TLS library's reason, the proxy that
/// failed. A detail never holds a secret (a proxy is named by host and port only).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Hashable, CaseIterable {
        /// No connection opened, or no byte arrived, in the transport's time; or the answer,
        /// head and body, was not complete by the request's deadline (``shortfall`` says how far
        /// it got).
        case timedOut
        /// The body arrived slower than the request's ``MinimumRate`` (``shortfall`` says how
        /// slow).
        case tooSlow
        /// The host answered the connection attempt with a refusal (nothing listens there).
        case connectionRefused
        /// The host name did not resolve.
        case hostNotFound
        /// No connection could be opened for another reason: no route to the host, the network
        /// down.
        case cannotConnect
        /// An open connection closed or failed before the answer was complete.
        case connectionLost
        /// The TLS handshake failed: an untrusted or expired certificate, a name that does not
        /// match, no common protocol, or the peer breaking the TLS stream.
        case tlsFailed
        /// The proxy could not be reached, refused the tunnel, or asked for credentials.
        case proxyFailed
        /// The peer answered something that is not HTTP.
        case invalidResponse
        /// The URL cannot be sent: no host, or a scheme the transport does not speak.
        case unsupportedURL
        /// The calling task was cancelled.
        case cancelled
        /// A failure the transport has no better word for.
        case other
    }

    public var code: Code
    public var detail: String?
    /// For ``Code/timedOut`` past a deadline and ``Code/tooSlow``: how much arrived, in how long.
    public var shortfall: Shortfall?

    public init(_ code: Code, detail: String? = nil, shortfall: Shortfall? = nil) {
        self.code = code
        self.detail = detail
        self.shortfall = shortfall
    }

    public var description: String {
        let summary =
            switch code {
            case .timedOut: "the request timed out"
            case .tooSlow: "the answer came too slowly"
            case .connectionRefused: "the connection was refused"
            case .hostNotFound: "the host name could not be resolved"
            case .cannotConnect: "no connection could be opened"
            case .connectionLost: "the connection was lost"
            case .tlsFailed: "the TLS connection failed"
            case .proxyFailed: "the proxy failed"
            case .invalidResponse: "the answer was not valid HTTP"
            case .unsupportedURL: "the URL cannot be sent"
            case .cancelled: "the request was cancelled"
            case .other: "the transport failed"
            }
        let details = [detail, shortfall?.description].compactMap { $0 }
        return details.isEmpty ? summary : "\(summary) (\(details.joined(separator: "; ")))"
    }
}
