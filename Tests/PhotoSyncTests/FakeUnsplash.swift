import Crypto
import Foundation
import Networking
import Synchronization
import TestSupport
import UnsplashAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Unsplash in memory, behind a MockURLSession: a newest-first feed built from a real photo
/// object, paginated with real `Link` headers, with images, download tracking, a rate-limit
/// budget and faults on demand.
final class FakeUnsplash: Sendable {
    struct State {
        var feed: [String] = []  // newest first
        var sponsored: String?  // injected at position 0 of every page
        var remaining = 5000
        var apiRequests: [URL] = []
        var imageRequests: [String: Int] = [:]
        var tracked: [String: Int] = [:]
        var rateLimitedAnswers = 0  // the next N API requests answer 403 Rate Limit Exceeded
        var failingImages: [String: (status: Int, times: Int)] = [:]
        var shortImages: Set<String> = []
        var failingPages: [Int: Int] = [:]  // page number -> answer 500 N more times
        var emptyPages: [Int: Int] = [:]  // page number -> answer `200 []`, Link intact, N more times
        var brokenPhotos: [String: Breakage] = [:]
        var linkOrigin: String?  // Link targets on this origin instead of the request's
        var notImages: Set<String> = []  // answer 200 with an HTML page instead of the image
        var redirectedImages: [String: String] = [:]  // photo id -> a Location to redirect to
        var foreignRequests: [URL] = []  // requests to any host but the API's and the CDN's
        var overdrawn = 0  // API requests that arrived with no budget left
        var missing: [String: String] = [:]  // path -> the message of its 404, as for an unknown user
        var gone: [String: String] = [:]  // path -> the message of its 410, as for a flagged search
        var failingTrackings = 0  // the next N download-tracking requests answer 503

        var pageRequests: [URL] { apiRequests.filter { $0.path == "/photos" } }
    }

    /// How a photo's object is spoiled in every page that lists it.
    enum Breakage {
        case noID, emptyID, wrongType
    }

    let state = Mutex(State())
    let limit = 5000
    /// Tests waiting for a state, each by a number of its own, woken after every answer.
    private let waiters = Mutex<[Int: Waiter]>([:])
    private let waiterNumbers = Atomic<Int>(0)
    private let template: JSONValue
    private let serial = Atomic<Int>(0)

    init(photos count: Int) throws {
        template = try JSONDecoder().decode(JSONValue.self, from: Fixture.photo2025.data)
        addPhotos(count)
    }

    var session: MockURLSession {
        MockURLSession { [self] request in try self.answer(request) }
    }

    // MARK: - Controls

    /// Adds `count` photos at the head of the feed, as new uploads do.
    @discardableResult
    func addPhotos(_ count: Int) -> [String] {
        let ids = (0..<count).map { _ in String(format: "photo%06d", serial.add(1, ordering: .relaxed).newValue) }
        state.withLock { $0.feed.insert(contentsOf: ids.reversed(), at: 0) }
        return ids
    }

    func addSponsoredPhoto() {
        let id = String(format: "sponsor%05d", serial.add(1, ordering: .relaxed).newValue)
        state.withLock { $0.sponsored = id }
    }

    var ids: [String] { state.withLock { $0.feed } }
    /// A second name the API answers on, as a changed `--api-base` would be.
    static let mirrorHost = "mirror.example.com"

    var apiRequests: [URL] { state.withLock { $0.apiRequests } }
    var pageRequests: [URL] { state.withLock { $0.pageRequests } }
    /// The paths of the requests for the objects lists belong to (`/collections/42`).
    var objectRequests: [String] {
        apiRequests.map(\.path).filter { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 && ["users", "collections", "topics"].contains(parts[0])
        }
    }
    /// The ids of the photos whose full object was asked for (`GET /photos/:id`), in order.
    var detailsRequests: [String] {
        apiRequests.map(\.path).compactMap { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0] == "photos" ? String(parts[1]) : nil
        }
    }
    var trackingRequests: Int { state.withLock { $0.tracked.values.reduce(0, +) } }
    func imageRequests(_ id: String) -> Int { state.withLock { $0.imageRequests[id] ?? 0 } }
    var totalImageRequests: Int { state.withLock { $0.imageRequests.values.reduce(0, +) } }
    func trackings(_ id: String) -> Int { state.withLock { $0.tracked[id] ?? 0 } }

    // MARK: - Waiting for requests

    private struct Waiter {
        var condition: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Returns once `condition` holds of what the fake has answered (looked at now and after
    /// each answer), or throws `CancellationError` when the test is cancelled first, as by its
    /// time limit.
    func until(_ condition: @escaping @Sendable (State) -> Bool) async throws {
        let number = waiterNumbers.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.withLock { $0[number] = Waiter(condition: condition, continuation: continuation) }
                // Looked at once registered, so that no answer in between is missed.
                wakeWaiters()
                if Task.isCancelled { cancelWaiter(number) }
            }
        } onCancel: {
            cancelWaiter(number)
        }
    }

    private func cancelWaiter(_ number: Int) {
        waiters.withLock { $0.removeValue(forKey: number) }?.continuation.resume(throwing: CancellationError())
    }

    private func wakeWaiters() {
        let snapshot = state.withLock { $0 }
        let satisfied = waiters.withLock { waiters in
            let numbers = waiters.filter { $0.value.condition(snapshot) }.keys
            return numbers.compactMap { waiters.removeValue(forKey: $0) }
        }
        for waiter in satisfied { waiter.continuation.resume() }
    }

    static func imageBytes(_ id: String) -> Data {
        var bytes = Data([0xFF, 0xD8, 0xFF])
        let seed = id.utf8.reduce(UInt32(7)) { $0 &* 31 &+ UInt32($1) }
        bytes.append(
            contentsOf: (0..<(1000 + Int(seed % 3000))).map {
                UInt8(truncatingIfNeeded: seed &+ UInt32($0) &* 2_654_435_761 >> 13)
            })
        // A JPEG ends with its end-of-image marker.
        bytes.append(contentsOf: [0xFF, 0xD9])
        return bytes
    }

    static func sha256(_ id: String) -> String {
        SHA256.hash(data: imageBytes(id)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: - Answers

    func answer(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        defer { wakeWaiters() }
        let url = request.url!
        switch url.host {
        case "api.unsplash.com", Self.mirrorHost: return try apiAnswer(request, url)
        case "images.unsplash.com": return imageAnswer(url)
        default:
            state.withLock { $0.foreignRequests.append(url) }
            throw URLError(.cannotFindHost)
        }
    }

    private func apiAnswer(_ request: URLRequest, _ url: URL) throws -> (Data, HTTPURLResponse) {
        let query = Dictionary(
            uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            })
        return state.withLock { state in
            state.apiRequests.append(url)
            if request.value(forHTTPHeaderField: "Authorization") != "Client-ID KEY" {
                return Self.http(url, 401, [:], #"{"errors":["OAuth error: The access token is invalid"]}"#)
            }
            if state.remaining <= 0 { state.overdrawn += 1 }
            if state.rateLimitedAnswers > 0 || state.remaining <= 0 {
                state.rateLimitedAnswers = max(0, state.rateLimitedAnswers - 1)
                return Self.http(
                    url, 403,
                    ["X-Ratelimit-Limit": "\(limit)", "X-Ratelimit-Remaining": "0", "Content-Type": "text/plain"],
                    "Rate Limit Exceeded")
            }
            state.remaining -= 1
            let budget = ["X-Ratelimit-Limit": "\(limit)", "X-Ratelimit-Remaining": "\(state.remaining)"]
            if let message = state.gone[url.path] {
                return Self.http(
                    url, 410, budget.merging(["Content-Type": "application/json"]) { $1 },
                    #"{"errors":["\#(message)"]}"#)
            }
            if let message = state.missing[url.path] {
                return Self.http(
                    url, 404, budget.merging(["Content-Type": "application/json"]) { $1 },
                    #"{"errors":["\#(message)"]}"#)
            }
            let parts = url.path.split(separator: "/")
            if parts.count == 2, ["users", "collections", "topics"].contains(parts[0]) {
                // The object a list belongs to: a user's profile, a collection, a topic.
                let object: JSONValue = .object(["id": .string(String(parts[1])), "title": .string("\(parts[1])")])
                let body = String(decoding: try! JSONEncoder().encode(object), as: UTF8.self)
                return Self.http(url, 200, budget.merging(["Content-Type": "application/json"]) { $1 }, body)
            }
            if parts.count == 2, parts[0] == "photos" {
                // A photo's full object: its list version with a place, tags and a camera.
                let id = String(parts[1])
                guard state.feed.contains(id), case .object(var object) = photoJSON(id, sponsored: false) else {
                    return Self.http(url, 404, budget, #"{"errors":["Couldn't find Photo"]}"#)
                }
                object["location"] = .object(["city": .string("Göreme \(id)"), "country": .string("Türkei")])
                object["tags"] = .array([.object(["type": .string("search"), "title": .string("balloon")])])
                object["exif"] = .object(["make": .string("Leica"), "model": .string("M6")])
                let body = String(decoding: try! JSONEncoder().encode(JSONValue.object(object)), as: UTF8.self)
                return Self.http(url, 200, budget.merging(["Content-Type": "application/json"]) { $1 }, body)
            }
            if parts.count == 3, parts[2] == "download", state.failingTrackings > 0 {
                state.failingTrackings -= 1
                return Self.http(url, 503, budget, #"{"errors":["Service Unavailable"]}"#)
            }
            if parts.count == 3, parts[2] == "download" {
                state.tracked[String(parts[1]), default: 0] += 1
                return Self.http(url, 200, budget, #"{"url":"https://images.unsplash.com/x"}"#)
            }
            let page = max(1, Int(query["page"] ?? "1") ?? 1)
            let perPage = min(30, max(1, Int(query["per_page"] ?? "10") ?? 10))
            if let failures = state.failingPages[page], failures > 0 {
                state.failingPages[page] = failures - 1
                return Self.http(url, 500, budget, "oops")
            }
            let start = (page - 1) * perPage
            let slice =
                start < state.feed.count ? Array(state.feed[start..<min(start + perPage, state.feed.count)]) : []
            var objects = slice.map { photoJSON($0, sponsored: false, breakage: state.brokenPhotos[$0]) }
            if let empties = state.emptyPages[page], empties > 0 {
                state.emptyPages[page] = empties - 1
                objects = []
            }
            if let sponsored = state.sponsored, !objects.isEmpty {
                objects.insert(photoJSON(sponsored, sponsored: true), at: 0)
            }
            let last = max(1, (state.feed.count + perPage - 1) / perPage)
            let origin = state.linkOrigin ?? "\(url.scheme!)://\(url.host!)"
            // Every list answers with the same photos; its links keep its own path.
            func link(_ page: Int) -> String { "<\(origin)\(url.path)?page=\(page)&per_page=\(perPage)>" }
            var links = ["\(link(last)); rel=\"last\""]
            if page < last { links.append("\(link(page + 1)); rel=\"next\"") }
            if page > 1 { links.insert("\(link(1)); rel=\"first\", \(link(page - 1)); rel=\"prev\"", at: 0) }
            let body = String(decoding: try! JSONEncoder().encode(JSONValue.array(objects)), as: UTF8.self)
            return Self.http(
                url, 200,
                budget.merging([
                    "Link": links.joined(separator: ", "), "X-Total": "\(state.feed.count)", "X-Per-Page": "\(perPage)",
                ]) { $1 }, body)
        }
    }

    private func imageAnswer(_ url: URL) -> (Data, HTTPURLResponse) {
        let id = String(url.lastPathComponent.dropFirst("photo-".count))
        return state.withLock { state in
            state.imageRequests[id, default: 0] += 1
            if let failure = state.failingImages[id], failure.times > 0 {
                state.failingImages[id] = (failure.status, failure.times - 1)
                return Self.http(url, failure.status, [:], "image error")
            }
            if let location = state.redirectedImages[id] {
                return Self.http(url, 302, ["Location": location], "")
            }
            if state.notImages.contains(id) {
                return Self.http(
                    url, 200, ["Content-Type": "text/html"], "<html><body>Service Unavailable</body></html>")
            }
            let bytes = Self.imageBytes(id)
            let declared = state.shortImages.contains(id) ? bytes.count + 10 : bytes.count
            return (
                bytes,
                HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Type": "image/jpeg", "Content-Length": "\(declared)"])!
            )
        }
    }

    private func photoJSON(_ id: String, sponsored: Bool, breakage: Breakage? = nil) -> JSONValue {
        guard case .object(var object) = template else { return template }
        object["id"] = .string(id)
        object["slug"] = .string("slug-\(id)")
        object["sponsorship"] = sponsored ? .object(["tagline": .string("Sponsored")]) : .null
        let image = "https://images.unsplash.com/photo-\(id)"
        object["urls"] = .object([
            "raw": .string(image), "full": .string(image + "?q=85"), "regular": .string(image + "?w=1080"),
            "small": .string(image + "?w=400"), "thumb": .string(image + "?w=200"),
        ])
        if case .object(var links)? = object["links"] {
            links["download_location"] = .string("https://api.unsplash.com/photos/\(id)/download?ixid=M3w")
            object["links"] = .object(links)
        }
        switch breakage {
        case .noID: object["id"] = nil
        case .emptyID: object["id"] = .string("")
        case .wrongType: object["width"] = .string("wide")
        case nil: break
        }
        return .object(object)
    }

    private static func http(_ url: URL, _ status: Int, _ headers: [String: String], _ body: String) -> (
        Data, HTTPURLResponse
    ) {
        (
            Data(body.utf8),
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        )
    }
}
