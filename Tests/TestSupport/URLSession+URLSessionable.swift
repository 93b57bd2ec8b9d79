import Foundation
import Networking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession as a ``URLSessionable``, for tests through ``MockURLProtocol`` and platforms that
/// want it. It lives here, not in Networking, so that the shipped binary never links
/// FoundationNetworking (and libcurl with it): photosync's transport is AsyncHTTPClient.
///
/// FoundationNetworking has no streaming API (no `bytes(for:)`), so the body is loaded whole and
/// handed over as one chunk. A plain URLSession follows redirects itself, before ``Provider``
/// can check them: use it only where no answer redirects, such as behind `MockURLProtocol`.
extension URLSession: URLSessionable {
    public func stream(for request: TransportRequest) async throws(TransportError) -> (ResponseHead, ResponseBody) {
        let answer: (Data, URLResponse)
        do {
            answer = try await data(for: URLRequest(request), delegate: nil)
        } catch {
            throw TransportError(error)
        }
        guard let http = answer.1 as? HTTPURLResponse else { throw TransportError(.invalidResponse) }
        return (ResponseHead(http), ResponseBody(answer.0))
    }
}

extension URLRequest {
    /// The Foundation request that sends what `request` describes.
    public init(_ request: TransportRequest) {
        self.init(url: request.url)
        httpMethod = request.method.rawValue
        for (name, value) in request.headers {
            setValue(value, forHTTPHeaderField: name)
        }
        httpBody = request.body
        if let timeout = request.timeout {
            timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
    }
}

extension ResponseHead {
    /// The head of a Foundation response.
    public init(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers["\(name)"] = "\(value)"
        }
        self.init(statusCode: response.statusCode, headers: headers, url: response.url)
    }
}

extension TransportError {
    /// What a Foundation or test error means as a transport failure: a `URLError` by its code,
    /// cancellation as ``TransportError/Code/cancelled``.
    public init(_ error: any Error) {
        switch error {
        case let error as TransportError:
            self = error
        case is CancellationError:
            self.init(.cancelled)
        case let error as URLError:
            self.init(Self.code(for: error.code), detail: "URL error \(error.code.rawValue)")
        default:
            self.init(.other, detail: String(describing: error))
        }
    }

    private static func code(for code: URLError.Code) -> Code {
        switch code {
        case .timedOut: .timedOut
        case .cannotConnectToHost: .connectionRefused
        case .cannotFindHost, .dnsLookupFailed: .hostNotFound
        case .notConnectedToInternet: .cannotConnect
        case .networkConnectionLost: .connectionLost
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            .tlsFailed
        case .badServerResponse: .invalidResponse
        case .badURL, .unsupportedURL: .unsupportedURL
        case .cancelled: .cancelled
        default: .other
        }
    }
}
