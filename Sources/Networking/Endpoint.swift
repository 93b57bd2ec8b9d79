import Foundation
import HTTPTypes

/// One request, described as a value, and the type its response body decodes to.
///
/// ```swift
/// let photos = Endpoint<[Photo]>(baseURL: api, path: "photos", query: [("page", "2")])
/// let page = try await provider.request(photos)
/// ```
/// The request is built with `URLComponents` by ``request(encoder:)``: query values are
/// percent-encoded (including `+`, `&`, `=` and non-ASCII text), paths are joined with exactly one
/// slash, and a URL that cannot be built is a thrown ``NetworkError/invalidURL(_:)``.
public struct Endpoint<Response>: Sendable {
    public var baseURL: URL
    /// Appended to `baseURL`'s path; leading and trailing slashes do not matter.
    public var path: String
    /// Appended after ``path``, each as exactly one segment: a `/` in one is encoded, and so
    /// is a segment of dots, so that a value such as `../../me` can never change the path.
    public var segments: [String] = []
    public var method: HTTPRequest.Method
    /// Appended, in order, after any query `baseURL` already carries.
    public var query: [(name: String, value: String)]
    public var headers: [String: String]
    /// Encoded as JSON into the request body, with `Content-Type: application/json`.
    public var body: (any Encodable & Sendable)?
    /// The total deadline of each attempt: its whole answer, head and body, must have arrived
    /// this long after it was sent (``TransportRequest/timeout``), or it fails with
    /// ``TransportError/Code/timedOut``. nil leaves it to ``minimumRate``, or to the transport's
    /// default.
    public var timeout: Duration?
    /// For a body of any size: the slowest it may arrive (``TransportRequest/minimumRate``).
    public var minimumRate: MinimumRate?
    /// A secret header for one origin, attached by ``Provider`` to this request and its redirect
    /// hops only while they stay on that origin (see ``Credential``).
    public var credential: Credential?
    /// Which redirects to follow; nil follows up to 5 hops on the request's own origin.
    public var redirects: RedirectPolicy?

    public init(
        baseURL: URL,
        path: String = "",
        method: HTTPRequest.Method = .get,
        query: [(name: String, value: String)] = [],
        headers: [String: String] = [:],
        body: (any Encodable & Sendable)? = nil,
        timeout: Duration? = nil,
        minimumRate: MinimumRate? = nil,
        credential: Credential? = nil,
        redirects: RedirectPolicy? = nil
    ) {
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.query = query
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.minimumRate = minimumRate
        self.credential = credential
        self.redirects = redirects
    }

    /// The full URL: base, joined path and encoded query.
    public func url() throws(NetworkError) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty
        else {
            throw .invalidURL("\(Redaction.string(for: baseURL)) is not an absolute http(s) URL")
        }
        let extraPath = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) + segments
        if !extraPath.isEmpty {
            var encodedSegments = components.percentEncodedPath.split(separator: "/").map(String.init)
            for segment in extraPath {
                guard var encoded = segment.addingPercentEncoding(withAllowedCharacters: .urlPathSegmentAllowed)
                else { throw .invalidURL("path segment \(segment) cannot be encoded") }
                // "." and ".." are dot-segments a URL resolver or a server would apply.
                if encoded.allSatisfy({ $0 == "." }) { encoded = String(repeating: "%2E", count: encoded.count) }
                encodedSegments.append(encoded)
            }
            components.percentEncodedPath = "/" + encodedSegments.joined(separator: "/")
        }
        if !query.isEmpty {
            var items = components.percentEncodedQueryItems ?? []
            for (name, value) in query {
                guard let encodedName = name.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed),
                    let encodedValue = value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed)
                else { throw .invalidURL("query parameter \(name) cannot be encoded") }
                items.append(URLQueryItem(name: encodedName, value: encodedValue))
            }
            components.percentEncodedQueryItems = items
        }
        guard let url = components.url else {
            throw .invalidURL("\(Redaction.string(for: baseURL)) with path \(path) does not form a URL")
        }
        return url
    }

    /// The request this endpoint describes.
    public func request(encoder: JSONEncoder = JSONEncoder()) throws(NetworkError) -> TransportRequest {
        let url = try url()
        var request = TransportRequest(url: url, method: method, timeout: timeout, minimumRate: minimumRate)
        request.headers["Accept"] = "application/json"
        if let body {
            do {
                request.body = try encoder.encode(body)
            } catch {
                throw .invalidRequest("the body of \(method) \(Redaction.string(for: url)) cannot be encoded: \(error)")
            }
            request.headers["Content-Type"] = "application/json"
        }
        for (name, value) in headers {
            request.headers[name] = value
        }
        return request
    }
}

extension Endpoint {
    /// An endpoint for an absolute URL as given, such as a `Link: rel="next"` target.
    public init(
        url: URL, method: HTTPRequest.Method = .get, headers: [String: String] = [:], timeout: Duration? = nil,
        minimumRate: MinimumRate? = nil, credential: Credential? = nil, redirects: RedirectPolicy? = nil
    ) {
        self.init(
            baseURL: url, method: method, headers: headers, timeout: timeout, minimumRate: minimumRate,
            credential: credential, redirects: redirects)
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: everything else in a query name or value is percent-encoded,
    /// notably `+` (which servers read as a space), `&`, `=` and `/`.
    static let urlQueryValueAllowed = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Unreserved characters plus the sub-delimiters a path segment may carry unencoded.
    static let urlPathSegmentAllowed = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,;=:@")
}
