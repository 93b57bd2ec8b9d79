import Foundation
import Networking
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``URLSessionable`` that answers from a handler and records every request it was given.
///
/// Handlers speak Foundation's types, which tests find convenient to build; a `URLError` a
/// handler throws reaches ``Provider`` as the ``TransportError`` it stands for.
public final class MockURLSession: URLSessionable {
    public typealias Handler = @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    private let handler: Handler
    private let recorded = Mutex<[URLRequest]>([])

    public init(handler: @escaping Handler) {
        self.handler = handler
    }

    /// Answers the given responses in order, one per request; the last one repeats.
    public convenience init(responses: [MockResponse]) {
        let queue = Mutex(responses)
        self.init { request in
            let next = queue.withLock { $0.count > 1 ? $0.removeFirst() : $0.first }
            guard let next else { throw URLError(.resourceUnavailable) }
            return try next.answer(request)
        }
    }

    /// Every request received, in order.
    public var requests: [URLRequest] { recorded.withLock { $0 } }

    public func stream(for request: TransportRequest) async throws(TransportError) -> (ResponseHead, ResponseBody) {
        let request = URLRequest(request)
        recorded.withLock { $0.append(request) }
        do {
            let (data, response) = try await handler(request)
            return (ResponseHead(response), ResponseBody(data))
        } catch {
            throw TransportError(error)
        }
    }
}

/// One canned answer of ``MockURLSession``: an HTTP response or a transport error.
public enum MockResponse: Sendable {
    case http(status: Int, headers: [String: String] = [:], body: Data = Data())
    case failure(URLError.Code)

    /// A JSON answer.
    public static func json(_ body: String, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        .http(
            status: status, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: Data(body.utf8)
        )
    }

    public func answer(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        switch self {
        case .http(let status, let headers, let body):
            return (
                body,
                HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            )
        case .failure(let code):
            throw URLError(code)
        }
    }
}
