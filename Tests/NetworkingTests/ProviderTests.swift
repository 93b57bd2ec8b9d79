import Crypto
import Foundation
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Item: Codable, Equatable, Sendable {
    let id: String
    let owner: Owner
    struct Owner: Codable, Equatable, Sendable { let name: String }
}

let itemJSON = #"{"id":"a1","owner":{"name":"Ann"}}"#
let api = URL(string: "https://api.example.com")!
let items = Endpoint<Item>(baseURL: api, path: "items/a1")

/// A provider over `session` whose waits are recorded by `clock` and whose jitter is fixed at `random`.
func makeProvider(
    _ session: MockURLSession, clock: TestClock = TestClock(), random: Double = 0,
    policy: (inout RetryPolicy) -> Void = { _ in }, interceptors: [any Interceptor] = [],
    now: Date = Date(timeIntervalSince1970: 1_700_000_000)
) -> Provider {
    var retryPolicy = RetryPolicy(random: { random })
    policy(&retryPolicy)
    return Provider(session: session, interceptors: interceptors, retryPolicy: retryPolicy, clock: clock, now: { now })
}

@Suite struct ProviderDecodingTests {
    @Test func decodesASuccessfulAnswer() async throws {
        // GIVEN a server that answers with the item
        let session = MockURLSession(responses: [.json(itemJSON)])
        // WHEN it is requested
        let item = try await makeProvider(session).request(items)
        // THEN it decodes, after exactly one request to the endpoint's URL
        #expect(item == Item(id: "a1", owner: .init(name: "Ann")))
        #expect(session.requests.map(\.url?.absoluteString) == ["https://api.example.com/items/a1"])
    }

    @Test func exposesStatusAndHeadersCaseInsensitively() async throws {
        let session = MockURLSession(responses: [
            .json(itemJSON, headers: ["X-Ratelimit-Remaining": "41", "Link": "<x>; rel=\"next\""])
        ])
        let response = try await makeProvider(session).response(items)
        #expect(response.statusCode == 200)
        #expect(response.headers["x-ratelimit-remaining"] == "41")
        #expect(response.headers["LINK"] == "<x>; rel=\"next\"")
    }

    @Test func returnsRawBytesOnTheDataPath() async throws {
        let bytes = Data([0xFF, 0xD8, 0xFF, 0x00, 0x01])
        let session = MockURLSession(responses: [
            .http(status: 200, headers: ["Content-Type": "image/jpeg"], body: bytes)
        ])
        let data = try await makeProvider(session).request(URL(string: "https://images.example.com/p.jpg")!)
        #expect(data == bytes)
    }

    @Test func downloadsIntoTheSpoolWithTheBodysSHA256() async throws {
        let bytes = Data(repeating: 7, count: 100_000)
        let session = MockURLSession(responses: [.http(status: 200, headers: ["Content-Length": "100000"], body: bytes)]
        )
        let spool = try TemporarySpool(memoryLimit: 1000)
        let response = try await makeProvider(session).download(
            URL(string: "https://images.example.com/p.jpg")!, into: spool.spool)
        defer { response.value.remove() }
        guard case .file(let file) = response.value.storage else {
            Issue.record("expected a spool file")
            return
        }
        #expect(try Data(contentsOf: file) == bytes)
        #expect(response.value.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        spool.remove()
    }

    @Test func aFailedDownloadLeavesNoFileAndKeepsTheBodyPrefix() async throws {
        let session = MockURLSession(responses: [.http(status: 404, body: Data("gone".utf8))])
        let spool = try TemporarySpool(memoryLimit: 0)
        await #expect {
            _ = try await makeProvider(session).download(
                URL(string: "https://images.example.com/p.jpg")!, into: spool.spool)
        } throws: { error in
            guard case .unacceptableStatus(let failure) = error as? NetworkError else { return false }
            return failure.statusCode == 404 && failure.bodyText == "gone"
        }
        #expect(spool.files().isEmpty)
        spool.remove()
    }
}

@Suite struct ProviderErrorTests {
    @Test func invalidURL() async {
        let session = MockURLSession(responses: [.json(itemJSON)])
        let endpoint = Endpoint<Item>(baseURL: URL(string: "ftp://example.com")!)
        await #expect {
            _ = try await makeProvider(session).request(endpoint)
        } throws: { error in
            guard case .invalidURL = error as? NetworkError else { return false }
            return true
        }
        #expect(session.requests.isEmpty)
    }

    @Test func transportFailureSaysWhatHappenedAndRedactsTheURL() async {
        let session = MockURLSession(responses: [.failure(.cannotFindHost)])
        let endpoint = Endpoint<Item>(baseURL: api, path: "items", query: [("client_id", "SECRET")])
        await #expect {
            _ = try await makeProvider(session, policy: { $0.maxAttempts = 1 }).request(endpoint)
        } throws: { error in
            guard case .transport(let failure, let url) = error as? NetworkError else { return false }
            let message = (error as? NetworkError)?.errorDescription ?? ""
            return failure.code == .hostNotFound && !url.contains("SECRET") && !message.contains("SECRET")
                && message.contains("api.example.com/items") && message.contains("could not be resolved")
        }
    }

    @Test func nonSuccessStatusCarriesCodeHeadersAndBodyEvenWhenNotJSON() async {
        let session = MockURLSession(responses: [
            .http(
                status: 403, headers: ["Content-Type": "text/plain", "X-Ratelimit-Remaining": "0"],
                body: Data("Rate Limit Exceeded".utf8))
        ])
        await #expect {
            _ = try await makeProvider(session).request(items)
        } throws: { error in
            guard case .unacceptableStatus(let failure) = error as? NetworkError else { return false }
            return failure.statusCode == 403 && failure.headers["x-ratelimit-remaining"] == "0"
                && failure.bodyText == "Rate Limit Exceeded"
                && (error as? NetworkError)?.errorDescription?.contains("403") == true
        }
    }

    @Test func errorBodyIsCutToItsFirstBytes() async {
        let session = MockURLSession(responses: [.http(status: 500, body: Data(repeating: 65, count: 10_000))])
        await #expect {
            _ = try await makeProvider(session, policy: { $0.maxAttempts = 1 }).request(items)
        } throws: { error in
            guard case .unacceptableStatus(let failure) = error as? NetworkError else { return false }
            return failure.bodyPrefix.count == NetworkError.bodyPrefixLimit
        }
    }

    @Test func decodingFailureNamesTheTypeAndCodingPath() async {
        let session = MockURLSession(responses: [.json(#"{"id":"a1","owner":{"name":42}}"#)])
        await #expect {
            _ = try await makeProvider(session).request(items)
        } throws: { error in
            guard case .decoding(let type, let path, _, _) = error as? NetworkError else { return false }
            return type == "Item" && path == "owner.name"
                && (error as? NetworkError)?.errorDescription?.contains("owner.name") == true
        }
    }

    @Test func emptyBody() async {
        let session = MockURLSession(responses: [.http(status: 200)])
        await #expect {
            _ = try await makeProvider(session).request(items)
        } throws: { error in
            guard case .emptyBody = error as? NetworkError else { return false }
            return true
        }
    }
}
