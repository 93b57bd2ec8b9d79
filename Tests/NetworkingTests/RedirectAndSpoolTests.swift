import Crypto
import Foundation
import Networking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects and credentials in ``Provider``, and ``BodySpool``, without a network.
@Suite struct RedirectTests {
    let credential = Credential(origin: Origin(api)!, headerValue: "Client-ID SECRET")

    @Test func theCredentialIsAttachedOnlyOnItsOrigin() async throws {
        let session = MockURLSession(responses: [.json(itemJSON)])
        let endpoint = Endpoint<Item>(baseURL: api, path: "items/a1", credential: credential)
        _ = try await makeProvider(session).request(endpoint)
        #expect(session.requests.first?.value(forHTTPHeaderField: "Authorization") == "Client-ID SECRET")
    }

    @Test func anAbsoluteURLOnAnotherOriginIsRefusedBeforeAnythingIsSent() async throws {
        let session = MockURLSession(responses: [.json(itemJSON)])
        let endpoint = Endpoint<Item>(url: URL(string: "https://evil.example.com/items/a1")!, credential: credential)
        let error = await #expect(throws: NetworkError.self) { try await makeProvider(session).request(endpoint) }
        #expect(error?.errorDescription?.contains("evil.example.com") == true)
        #expect(session.requests.isEmpty)
    }

    @Test func aPortOrSchemeChangeIsAnotherOrigin() {
        let base = Origin(URL(string: "https://api.example.com/photos")!)
        #expect(base == Origin(URL(string: "https://API.example.com:443/x")!))
        #expect(base != Origin(URL(string: "https://api.example.com:8443/x")!))
        #expect(base != Origin(URL(string: "http://api.example.com/x")!))
    }

    @Test func aCrossOriginHopDropsSecretHeaders() async throws {
        let session = MockURLSession { request in
            if request.url?.host == "images.example.com" {
                return try MockResponse.http(status: 302, headers: ["Location": "https://cdn.example.net/p.jpg"])
                    .answer(request)
            }
            return try MockResponse.http(status: 200, body: Data([0xFF, 0xD8, 0xFF])).answer(request)
        }
        let spool = try TemporarySpool()
        _ = try await makeProvider(session).download(
            URL(string: "https://images.example.com/p.jpg")!, headers: ["Cookie": "session=1", "Accept": "image/*"],
            redirects: RedirectPolicy { _ in nil }, into: spool.spool)
        let hop = try #require(session.requests.last)
        #expect(hop.url?.host == "cdn.example.net")
        #expect(hop.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(hop.value(forHTTPHeaderField: "Accept") == "image/*")
        spool.remove()
    }

    @Test func eachHopThatCarriesTheCredentialIsAdmittedFirst() async throws {
        // GIVEN an API that redirects twice on its own origin, each answer saying what is left
        let session = MockURLSession(responses: [
            .http(status: 302, headers: ["Location": "/items/b", "X-Left": "9"]),
            .http(status: 307, headers: ["Location": "https://api.example.com/items/c", "X-Left": "8"]),
            .json(itemJSON),
        ])
        let admitted = Mutex<[String]>([])
        var provider = makeProvider(session)
        provider.admitsCredentialedHop = { redirect in
            // Asked before the hop is sent: the requests so far are those already answered
            admitted.withLock { $0.append("\(redirect.statusCode) \(redirect.headers["X-Left"] ?? "-")") }
            #expect(session.requests.count == admitted.withLock { $0.count })
        }

        // WHEN the credentialed request follows them
        _ = try await provider.request(Endpoint<Item>(baseURL: api, path: "items/a", credential: credential))

        // THEN each hop was admitted once, in order, with the answer that asked for it
        #expect(admitted.withLock { $0 } == ["302 9", "307 8"])
        #expect(
            session.requests.map { $0.value(forHTTPHeaderField: "Authorization") }
                == Array(repeating: "Client-ID SECRET", count: 3))
    }

    @Test func aHopThatIsNotAdmittedIsNotSent() async throws {
        let session = MockURLSession(responses: [
            .http(status: 302, headers: ["Location": "/items/b"]), .json(itemJSON),
        ])
        var provider = makeProvider(session)
        provider.admitsCredentialedHop = { _ throws(NetworkError) in throw .cancelled }
        await #expect {
            try await provider.request(Endpoint<Item>(baseURL: api, path: "items/a", credential: credential))
        } throws: { error in
            guard case .cancelled = error as? NetworkError else { return false }
            return true
        }
        #expect(session.requests.count == 1)
    }

    @Test func hopsWithoutACredentialNeedNoAdmission() async throws {
        // GIVEN an image redirected to its CDN, fetched without a credential
        let session = MockURLSession(responses: [
            .http(status: 302, headers: ["Location": "https://cdn.example.net/p.jpg"]),
            .http(status: 200, body: Data([0xFF, 0xD8, 0xFF])),
        ])
        var provider = makeProvider(session)
        provider.admitsCredentialedHop = { _ in Issue.record("an image hop was counted as an API request") }
        let spool = try TemporarySpool()
        defer { spool.remove() }
        _ = try await provider.download(
            URL(string: "https://images.example.com/p.jpg")!, redirects: RedirectPolicy { _ in nil }, into: spool.spool)
        #expect(session.requests.count == 2)
    }

    @Test func aRedirectWithoutAUsableLocationIsRefused() async throws {
        let session = MockURLSession(responses: [.http(status: 302, headers: ["Location": "ftp://example.com/x"])])
        let error = await #expect(throws: NetworkError.self) { try await makeProvider(session).request(items) }
        guard case .redirectRefused? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(session.requests.count == 1)
    }

    @Test func aJSONBodyOverTheLimitIsRefused() async throws {
        let session = MockURLSession(responses: [.json(String(repeating: " ", count: 2048) + itemJSON)])
        var provider = makeProvider(session)
        provider.maxBodyBytes = 1024
        let error = await #expect(throws: NetworkError.self) { try await provider.request(items) }
        guard case .bodyTooLarge? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }
}

/// The URLSession conformance, through MockURLProtocol: a 3xx answer reaches Provider as it is,
/// and Provider refuses to carry the key off its origin.
@Suite(.serialized) struct URLSessionRedirectTests {
    @Test func urlSessionHandsTheRedirectToProviderWhichRefusesTheForeignHop() async throws {
        let seen = Mutex<[String]>([])
        let endpoint = Endpoint<Item>(
            baseURL: api, path: "items/a1",
            credential: Credential(origin: Origin(api)!, headerValue: "Client-ID SECRET"))
        let handler: MockURLProtocol.Handler = { request, _ in
            seen.withLock { $0.append(request.url?.host ?? "") }
            return (
                HTTPURLResponse(
                    url: request.url!, statusCode: 302, httpVersion: "HTTP/1.1",
                    headerFields: ["Location": "https://other.example.org/items/a1"])!, Data()
            )
        }
        let error = try await MockURLProtocol.withHandler(handler) {
            await #expect(throws: NetworkError.self) {
                try await Provider(session: MockURLProtocol.session(), retryPolicy: .none).request(endpoint)
            }
        }
        guard case .redirectRefused(_, let to, _)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(to.contains("other.example.org"))
        #expect(seen.withLock { $0 } == ["api.example.com"])
    }
}

@Suite struct BodySpoolTests {
    @Test func smallBodiesStayInMemoryAndLargeOnesGoToAPrivateFile() async throws {
        let spool = try TemporarySpool(memoryLimit: 100)
        let small = try await spool.spool.receive(
            ResponseBody(Data(repeating: 1, count: 100)), declaredLength: 100, url: "u")
        let large = try await spool.spool.receive(
            ResponseBody(Data(repeating: 2, count: 101)), declaredLength: 101, url: "u")
        #expect(small.storage == .memory(Data(repeating: 1, count: 100)))
        guard case .file(let file) = large.storage else {
            Issue.record("expected a file")
            return
        }
        #expect(try Data(contentsOf: file) == Data(repeating: 2, count: 101))
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        #expect(
            try FileManager.default.attributesOfItem(atPath: spool.spool.directory.path)[.posixPermissions] as? Int
                == 0o700)
        #expect(
            large.sha256
                == SHA256.hash(data: Data(repeating: 2, count: 101)).map { String(format: "%02x", $0) }.joined())
        #expect(large.prefix == Data(repeating: 2, count: SpooledBody.prefixLength))
        large.remove()
        #expect(spool.files().isEmpty)
        spool.remove()
    }

    @Test func aBodyDeclaredLargerThanTheMemoryLimitGoesToAFileFromItsFirstChunk() async throws {
        let spool = try TemporarySpool(memoryLimit: 100)
        let filesBeforeSecondChunk = Mutex<Int?>(nil)
        let body = ResponseBody {
            var sent = 0
            return {
                if sent == 1 { filesBeforeSecondChunk.withLock { $0 = spool.files().count } }
                guard sent < 20 else { return nil }
                sent += 1
                return Data(repeating: UInt8(sent), count: 10)
            }
        }
        let received = try await spool.spool.receive(body, declaredLength: 200, url: "u")
        #expect(filesBeforeSecondChunk.withLock { $0 } == 1)
        guard case .file(let file) = received.storage else {
            Issue.record("expected a file, got \(received.storage)")
            return
        }
        #expect(try Data(contentsOf: file) == Data((1...20).flatMap { Array(repeating: UInt8($0), count: 10) }))
        received.remove()
        spool.remove()
    }

    @Test(arguments: [[1], [5, 40, 3, 2], [31, 1, 1], [64], [7, 7, 7, 7, 7, 7]])
    func theSuffixIsTheBodysLastBytesHoweverItIsCut(_ sizes: [Int]) async throws {
        let spool = try TemporarySpool(memoryLimit: 1000)
        var whole = Data()
        var chunks: [Data] = []
        for size in sizes {
            let chunk = Data((0..<size).map { UInt8(truncatingIfNeeded: whole.count + $0) })
            chunks.append(chunk)
            whole.append(chunk)
        }
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let received = try await spool.spool.receive(
            ResponseBody(stream, chunk: { $0 }), declaredLength: Int64(whole.count), url: "u")
        #expect(received.suffix == whole.suffix(SpooledBody.suffixLength))
        #expect(received.prefix == whole.prefix(SpooledBody.prefixLength))
        spool.remove()
    }

    @Test func aBodyShorterOrLongerThanItsContentLengthLeavesNothing() async throws {
        let spool = try TemporarySpool(memoryLimit: 10)
        for declared: Int64 in [50, 500] {
            let error = await #expect(throws: NetworkError.self) {
                try await spool.spool.receive(
                    ResponseBody(Data(repeating: 3, count: 100)), declaredLength: declared, url: "u")
            }
            guard case .lengthMismatch(_, let said, let received)? = error else {
                Issue.record("got \(String(describing: error))")
                continue
            }
            #expect(said == declared && received == 100)
            #expect(spool.files().isEmpty)
        }
        spool.remove()
    }

    @Test func aFailingStreamLeavesNoFile() async throws {
        let spool = try TemporarySpool(memoryLimit: 10)
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(repeating: 4, count: 64))
            continuation.finish(throwing: TransportError(.connectionLost))
        }
        await #expect {
            try await spool.spool.receive(ResponseBody(chunks, chunk: { $0 }), declaredLength: nil, url: "u")
        } throws: { error in
            guard case .transport(let failure, "u") = error as? NetworkError else { return false }
            return failure.code == .connectionLost
        }
        #expect(spool.files().isEmpty)
        spool.remove()
    }

    @Test func prepareRemovesWhatAKilledRunLeft() throws {
        let spool = try TemporarySpool()
        let leftover = spool.spool.directory.appendingPathComponent("body-left-by-a-crash")
        try Data("x".utf8).write(to: leftover)
        #expect(try spool.spool.prepare() == 1)
        #expect(spool.files().isEmpty)
        spool.remove()
    }

    @Test func aSpoolDirectoryThatIsASymlinkIsRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent(
            "photosync-spool-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let link = base.appendingPathComponent("downloads")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: base)
        #expect(throws: SpoolError.self) { try BodySpool(directory: link).prepare() }
        try? FileManager.default.removeItem(at: base)
    }
}
