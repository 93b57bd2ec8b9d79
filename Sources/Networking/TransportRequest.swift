import Foundation

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
    public var method: HTTPMethod
    /// Field names compare case-insensitively; setting a field replaces it.
    public var headers: HTTPHeaders
    public var body: Data?
    /// How long the request may wait for data before it fails; nil leaves it to the transport.
    public var timeout: Duration?

    public init(
        url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil,
        timeout: Duration? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
