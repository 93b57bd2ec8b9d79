import Foundation
import Networking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real URLSession path, intercepted by MockURLProtocol. Its handler is process-wide: these
/// tests run one at a time.
@Suite(.serialized) struct URLSessionPathTests {
    struct Captured: Sendable {
        var request: URLRequest
        var body: Data?
    }

    @Test func theRequestThatLeftCarriesURLMethodHeadersAndBody() async throws {
        struct NewItem: Encodable, Sendable { let id: String }
        let captured = Mutex<Captured?>(nil)
        let endpoint = Endpoint<Item>(
            baseURL: api, path: "/items/", method: .put, query: [("note", "a b+c")],
            headers: ["Accept-Version": "v1"], body: NewItem(id: "a1"))
        let handler: MockURLProtocol.Handler = { request, body in
            captured.withLock { $0 = Captured(request: request, body: body) }
            return (
                HTTPURLResponse(
                    url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Type": "application/json"])!,
                Data(itemJSON.utf8)
            )
        }
        let item = try await MockURLProtocol.withHandler(handler) {
            try await Provider(session: MockURLProtocol.session()).request(endpoint)
        }
        #expect(item.id == "a1")
        let sent = try #require(captured.withLock { $0 })
        #expect(sent.request.url?.absoluteString == "https://api.example.com/items?note=a%20b%2Bc")
        #expect(sent.request.httpMethod == "PUT")
        #expect(sent.request.value(forHTTPHeaderField: "Accept-Version") == "v1")
        #expect(sent.request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(sent.body == Data(#"{"id":"a1"}"#.utf8))
    }

    @Test func redactionHoldsInLogsCapturedFromTheRealPath() async throws {
        let capture = LogCapture()
        let provider = Provider(
            session: MockURLProtocol.session(),
            interceptors: [LoggingInterceptor(logger: capture.logger(level: .trace))],
            retryPolicy: .none)
        let endpoint = Endpoint<Item>(
            baseURL: api, path: "items", query: [("client_id", "TOPSECRET")],
            headers: ["Authorization": "Client-ID TOPSECRET"])
        let seenAuthorization = Mutex<String?>(nil)
        await #expect(throws: NetworkError.self) {
            let handler: MockURLProtocol.Handler = { request, _ in
                seenAuthorization.withLock { $0 = request.value(forHTTPHeaderField: "Authorization") }
                return (
                    HTTPURLResponse(url: request.url!, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: nil)!,
                    Data(#"{"errors":["OAuth error: The access token is invalid"]}"#.utf8)
                )
            }
            _ = try await MockURLProtocol.withHandler(handler) {
                try await provider.request(endpoint)
            }
        }
        #expect(seenAuthorization.withLock { $0 } == "Client-ID TOPSECRET")
        #expect(capture.text.contains("401"))
        #expect(!capture.text.contains("TOPSECRET"))
    }
}
