import Foundation
import HTTPTypes

/// One request as a ``URLSessionable`` sends it: what ``Endpoint`` describes, resolved to a URL,
/// headers and body.
///
/// photosync's own type rather than Foundation's `URLRequest`, which lives in
/// FoundationNetworking on Linux and would link libcurl into the daemon although its transport
/// never uses it; and rather than swift-http-types' `HTTPRequest`, which splits the URL into
/// scheme, authority and path (everything here, redirects and credentials included, reasons
/// about `URL`s and their ``Origin``) and carries no body.
public struct TransportRequest: Sendable, Equatable {
    public var url: URL
    public var method: HTTPRequest.Method
    /// Field names compare case-insensitively; setting a field replaces it.
    public var headers: HTTPHeaders
    public var body: Data?
    /// The total deadline: the whole answer, head and body, must have arrived this long after
    /// the request was sent, or it fails with ``TransportError/Code/timedOut``.
    public var timeout: Duration?
    /// For a body of any size (an image): the slowest it may arrive once the head is in, or it
    /// fails with ``TransportError/Code/tooSlow``. Its head must still come within the
    /// transport's connect and read timeouts.
    ///
    /// A request with neither ``timeout`` nor a minimum rate gets the transport's default one:
    /// no request waits without a bound.
    public var minimumRate: MinimumRate?

    public init(
        url: URL, method: HTTPRequest.Method = .get, headers: HTTPHeaders = [:], body: Data? = nil,
        timeout: Duration? = nil, minimumRate: MinimumRate? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.minimumRate = minimumRate
    }
}
