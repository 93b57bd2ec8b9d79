import Crypto
import Foundation
import Networking
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Helpers

extension StubServerTests {
    static let fixturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "TestSupport/Fixtures")
}

/// Runs `body` against a started stub, and stops the stub whatever happens.
func withStub(
    photoCount: Int = 45, accessKey: String? = nil, rateLimit: Int = 5_000, imageSize: Int = 20_000,
    sponsoredEvery: Int? = nil,
    _ body: (UnsplashStub, Client) async throws -> Void
) async throws {
    let stub = UnsplashStub(
        configuration: .init(
            photoCount: photoCount, accessKey: accessKey, rateLimit: rateLimit, imageSize: imageSize,
            sponsoredEvery: sponsoredEvery))
    try await stub.start()
    do {
        try await body(stub, Client(defaultKey: accessKey))
    } catch {
        await stub.stop()
        throw error
    }
    await stub.stop()
}

func keys(_ object: [String: Any], at path: String = "") -> Set<String> {
    var current: Any = object
    for component in path.split(separator: ".") {
        current = (current as? [String: Any])?[String(component)] as Any
    }
    return Set((current as? [String: Any])?.keys.map { $0 } ?? [])
}

func sha256(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// A client on photosync's own transport, sending what photosync sends. Not URLSession: on
/// Linux it can hang when a request ends as it is cancelled, which a loaded CI machine hit.
struct Client {
    /// The key sent when a request does not name one.
    var defaultKey: String?

    /// One for the whole test process, which ends it: never shut down, never deinitialised.
    private static let transport = AsyncHTTPClientSession()

    init(defaultKey: String? = nil) {
        self.defaultKey = defaultKey
    }

    private enum Key {
        case useDefault
        case explicit(String?)
    }

    func get(_ stub: UnsplashStub, _ pathAndQuery: String) async throws -> Answer {
        try await send(URL(string: await stub.baseURL.absoluteString + pathAndQuery)!, key: .useDefault)
    }

    func get(_ stub: UnsplashStub, _ pathAndQuery: String, key: String?) async throws -> Answer {
        try await send(URL(string: await stub.baseURL.absoluteString + pathAndQuery)!, key: .explicit(key))
    }

    func get(_ url: URL) async throws -> Answer {
        try await send(url, key: .useDefault)
    }

    func get(_ url: URL, key: String?) async throws -> Answer {
        try await send(url, key: .explicit(key))
    }

    private func send(_ url: URL, key: Key) async throws -> Answer {
        var request = TransportRequest(url: url, headers: ["Accept-Version": "v1"])
        let resolvedKey: String?
        switch key {
        case .useDefault: resolvedKey = defaultKey
        case .explicit(let explicit): resolvedKey = explicit
        }
        if let resolvedKey {
            request.headers["Authorization"] = "Client-ID \(resolvedKey)"
        }
        // Redirects are followed as a naive client follows them, headers and all: these tests
        // check what reaches the target, not a client's policy.
        for _ in 0..<10 {
            let (head, stream) = try await Self.transport.stream(for: request)
            let body = try await stream.collect(upTo: 1 << 30, url: request.url.absoluteString)
            if [301, 302, 303, 307, 308].contains(head.statusCode), let location = head.headers["Location"],
                let target = URL(string: location, relativeTo: request.url)?.absoluteURL
            {
                request.url = target
                continue
            }
            let response = try #require(
                HTTPURLResponse(
                    url: request.url, statusCode: head.statusCode, httpVersion: "HTTP/1.1",
                    headerFields: head.headers.dictionary))
            return Answer(body: body, response: response)
        }
        throw URLError(.httpTooManyRedirects)
    }
}

struct Answer {
    let body: Data
    let response: HTTPURLResponse

    var status: Int { response.statusCode }

    func header(_ name: String) -> String? {
        response.value(forHTTPHeaderField: name)
    }

    /// The `Link` header as rel -> URL.
    var links: [String: String] {
        guard let header = header("Link") else { return [:] }
        var links: [String: String] = [:]
        for link in header.split(separator: ",") {
            let parts = link.split(separator: ";")
            guard parts.count == 2, let rel = parts[1].split(separator: "\"").dropFirst().first else { continue }
            links[String(rel)] = parts[0].trimmingCharacters(in: CharacterSet(charactersIn: " <>"))
        }
        return links
    }

    func photos() throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
    }

    func photoIDs() throws -> [String] {
        try photos().map { try #require($0["id"] as? String) }
    }

    func photoURLs(_ variant: String) throws -> [URL] {
        try photos().map { photo in
            let urls = try #require(photo["urls"] as? [String: Any])
            return try #require((urls[variant] as? String).flatMap(URL.init(string:)))
        }
    }
}
