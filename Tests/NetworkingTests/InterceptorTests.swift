import Foundation
import Networking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Adds a header naming itself and records what it saw.
final class RecordingInterceptor: Interceptor {
    let name: String
    let journal: Journal
    let rejectStatus: Int?

    init(_ name: String, journal: Journal = Journal(), rejectStatus: Int? = nil) {
        self.name = name
        self.journal = journal
        self.rejectStatus = rejectStatus
    }

    static let rejection = "rejected by the interceptor"

    func willSend(_ request: TransportRequest) async throws(NetworkError) -> TransportRequest {
        var request = request
        let chain = [request.headers["X-Chain"], name].compactMap { $0 }.joined(separator: ",")
        request.headers["X-Chain"] = chain
        journal.append("send \(name)")
        return request
    }

    func didReceive(_ exchange: Exchange) async throws(NetworkError) {
        journal.append("receive \(name) \(exchange.statusCode) attempt \(exchange.attempt)")
        if exchange.statusCode == rejectStatus { throw .invalidRequest(Self.rejection) }
    }
}

final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}

@Suite struct InterceptorTests {
    @Test func runInOrderAndMayChangeTheRequest() async throws {
        let session = MockURLSession(responses: [.json(itemJSON)])
        let first = RecordingInterceptor("first")
        let second = RecordingInterceptor("second")
        _ = try await makeProvider(session, interceptors: [first, second]).request(items)
        #expect(session.requests.first?.value(forHTTPHeaderField: "X-Chain") == "first,second")
        #expect(first.journal.entries == ["send first", "receive first 200 attempt 1"])
    }

    @Test func seeEveryAttempt() async throws {
        let journal = Journal()
        let session = MockURLSession(responses: [.http(status: 503), .json(itemJSON)])
        _ = try await makeProvider(session, interceptors: [RecordingInterceptor("only", journal: journal)]).request(
            items)
        #expect(
            journal.entries == ["send only", "receive only 503 attempt 1", "send only", "receive only 200 attempt 2"])
    }

    @Test func mayRejectAnAnswerWhichIsThenNotRetried() async {
        let session = MockURLSession(responses: [.http(status: 503), .json(itemJSON)])
        let rejecting = RecordingInterceptor("strict", rejectStatus: 503)
        await #expect {
            try await makeProvider(session, interceptors: [rejecting]).request(items)
        } throws: { error in
            guard case .invalidRequest(let reason) = error as? NetworkError else { return false }
            return reason == RecordingInterceptor.rejection
        }
        #expect(session.requests.count == 1)
    }
}

@Suite struct LoggingInterceptorTests {
    @Test func logsMethodURLStatusBytesAndDurationWithoutSecrets() async throws {
        let capture = LogCapture()
        let session = MockURLSession(responses: [.json(itemJSON)])
        let endpoint = Endpoint<Item>(
            baseURL: api, path: "items", query: [("client_id", "SECRET-KEY")],
            headers: ["Authorization": "Client-ID SECRET-KEY"])
        let logging = LoggingInterceptor(logger: capture.logger(level: .trace))
        _ = try await makeProvider(session, interceptors: [logging]).request(endpoint)

        let text = capture.text
        #expect(text.contains("GET https://api.example.com/items?client_id="))
        #expect(text.contains("status=200"))
        #expect(text.contains("bytes=\(itemJSON.utf8.count)"))
        #expect(text.contains("duration_ms="))
        #expect(text.contains("<redacted>"))
        #expect(!text.contains("SECRET-KEY"))
        // The secret did leave in the request: redaction is for the log only.
        #expect(session.requests.first?.value(forHTTPHeaderField: "Authorization") == "Client-ID SECRET-KEY")
    }

    @Test func logsTransportFailures() async {
        let capture = LogCapture()
        let session = MockURLSession(responses: [.failure(.cannotConnectToHost)])
        let logging = LoggingInterceptor(logger: capture.logger())
        _ = try? await makeProvider(session, policy: { $0.maxAttempts = 1 }, interceptors: [logging]).request(items)
        #expect(
            capture.output.contains {
                $0.hasPrefix("warning GET https://api.example.com/items/a1 failed: the connection was refused")
            })
    }
}
