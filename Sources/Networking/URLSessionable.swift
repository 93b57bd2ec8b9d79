import Foundation

/// The wire under ``Provider``: sends one request and hands back its head and a stream of its body.
///
/// Conformers:
/// - ``AsyncHTTPClientSession``, the production transport;
/// - `URLSession`, through a conformance in the tests' `TestSupport` (so that the shipped binary
///   does not link FoundationNetworking), exercised with `MockURLProtocol`;
/// - `MockURLSession` in the unit tests.
///
/// The contract a conformer keeps:
/// - It sends exactly the request it is given and **does not follow redirects**: a 3xx answer is
///   returned as it is, so that ``Provider`` can check every hop against the request's
///   ``RedirectPolicy`` and ``Credential``.
/// - It returns as soon as the head has arrived; the body is read from the returned
///   ``ResponseBody``, whose iteration throws a ``TransportError`` when the connection fails
///   mid-body.
/// - Cancelling the calling task ends the request promptly, also while the body is being read,
///   with ``TransportError/Code/cancelled`` (or `CancellationError` from the body).
/// - A failure before the head arrives is a ``TransportError`` whose code says what happened.
public protocol URLSessionable: Sendable {
    func stream(for request: TransportRequest) async throws(TransportError) -> (ResponseHead, ResponseBody)
}

/// An answer's status line and headers, as they arrived.
public struct ResponseHead: Sendable, Equatable {
    public var statusCode: Int
    public var headers: HTTPHeaders
    /// The URL that answered: the request's, since conformers do not follow redirects.
    public var url: URL?

    public init(statusCode: Int, headers: HTTPHeaders, url: URL?) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }
}
