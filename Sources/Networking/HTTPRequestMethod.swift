import HTTPTypes

/// The request method is swift-http-types' `HTTPRequest.Method`, the Swift server world's one
/// type for it (Hummingbird's and AsyncHTTPClient's requests speak it too); photosync adds only
/// what ``Provider`` asks of it.
extension HTTPRequest.Method {
    /// Whether repeating the request has the same effect as sending it once (RFC 9110, 9.2.2).
    /// Only idempotent requests are retried by ``Provider``.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        default: false
        }
    }
}
