import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The wire under ``Provider``: sends one request and hands back its head and a stream of its body.
///
/// Conformers:
/// - ``AsyncHTTPClientSession``, the production transport on Linux;
/// - `URLSession`, for platforms and tests that use it (on Linux it buffers the whole body and can
///   deadlock when cancelled: see the README);
/// - `MockURLSession` in the unit tests.
///
/// The contract a conformer keeps:
/// - It sends exactly the request it is given and **does not follow redirects**: a 3xx answer is
///   returned as it is, so that ``Provider`` can check every hop against the request's
///   ``RedirectPolicy`` and ``Credential``.
/// - It returns as soon as the head has arrived; the body is read from the returned
///   ``ResponseBody``, whose iteration throws when the connection fails mid-body.
/// - Cancelling the calling task ends the request promptly, also while the body is being read,
///   with `CancellationError` or `URLError(.cancelled)`.
/// - A failure before the head arrives is thrown as a `URLError` that says what happened
///   (`.timedOut`, `.cannotConnectToHost`, ...).
public protocol URLSessionable: Sendable {
    func stream(for request: URLRequest) async throws -> (ResponseHead, ResponseBody)
}

/// An answer's status line and headers, as they arrived.
///
/// Lighter than `HTTPURLResponse`, whose initializer re-validates every header on Linux: this is
/// built once per request on the hot path.
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

    /// The head of a Foundation response.
    public init(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers["\(name)"] = "\(value)"
        }
        self.init(statusCode: response.statusCode, headers: headers, url: response.url)
    }
}

extension URLSession: URLSessionable {
    /// FoundationNetworking has no streaming API (no `bytes(for:)`), so the body is loaded whole
    /// and handed over as one chunk. A plain URLSession follows redirects itself, before
    /// ``Provider`` can check them: use it only where no answer redirects, such as behind
    /// `MockURLProtocol` in tests; `photosync run` uses ``AsyncHTTPClientSession``.
    public func stream(for request: URLRequest) async throws -> (ResponseHead, ResponseBody) {
        let (data, response) = try await data(for: request, delegate: nil)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (ResponseHead(http), ResponseBody(data))
    }
}
