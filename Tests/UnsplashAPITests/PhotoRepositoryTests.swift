import Foundation
import Networking
import TestSupport
import Testing

@testable import UnsplashAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let page2URL = "https://api.unsplash.com/photos?page=2&per_page=30"
let pageHeaders = [
    "Link": #"<https://api.unsplash.com/photos?page=334&per_page=30>; rel="last", <\#(page2URL)>; rel="next""#,
    "X-Total": "10012", "X-Per-Page": "30", "X-Ratelimit-Limit": "50", "X-Ratelimit-Remaining": "48",
]

func makeRepository(_ session: MockURLSession) -> PhotoRepository {
    PhotoRepository(
        provider: Provider(session: session, retryPolicy: RetryPolicy(random: { 0 }), clock: TestClock()),
        api: UnsplashAPI(accessKey: "ACCESS-KEY"))
}

@Suite struct PhotoRepositoryTests {
    @Test func fetchesTheFirstPageWithItsHeaders() async throws {
        // GIVEN the API answering with a real page
        let session = MockURLSession(responses: [.json(try Fixture.page1.text, headers: pageHeaders)])
        // WHEN the first page is fetched
        let page = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        // THEN the photos, the next page, the total and the budget come back
        #expect(page.photos.count == 10)
        #expect(page.next?.absoluteString == page2URL)
        #expect(page.total == 10012 && page.perPage == 30)
        #expect(page.rateLimit == RateLimit(limit: 50, remaining: 48))
        // AND each photo keeps its JSON as the API sent it, a piece of the page's text
        let text = try Fixture.page1.text
        #expect(page.photos.allSatisfy { text.contains(String(decoding: $0.json, as: UTF8.self)) })
        // AND the request was authorized and versioned
        let request = try #require(session.requests.first)
        #expect(request.url?.absoluteString == "https://api.unsplash.com/photos?page=1&per_page=30")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Client-ID ACCESS-KEY")
        #expect(request.value(forHTTPHeaderField: "Accept-Version") == "v1")
    }

    @Test func capsPerPageAtThirty() async throws {
        let session = MockURLSession(responses: [.json("[]")])
        _ = try await makeRepository(session).firstPage(of: .feed, perPage: 100)
        #expect(session.requests.first?.url?.query == "page=1&per_page=30")
    }

    @Test func followsTheNextLinkAsGiven() async throws {
        let session = MockURLSession(responses: [.json(try Fixture.page2.text)])
        let page = try await makeRepository(session).page(of: .feed, atCursor: page2URL)
        #expect(session.requests.first?.url?.absoluteString == page2URL)
        #expect(page.photos.count == 10)
        #expect(page.next == nil)
    }

    @Test func anEmptyPageEndsTheFeed() async throws {
        let session = MockURLSession(responses: [
            .json("[]", headers: ["Link": #"<https://api.unsplash.com/photos?page=1>; rel="first""#])
        ])
        let page = try await makeRepository(session).page(of: .feed, atCursor: page2URL)
        #expect(page.photos.isEmpty && page.next == nil)
    }

    @Test func refusesToSendTheKeyToAnotherOrigin() async {
        let session = MockURLSession(responses: [.json("[]")])
        await #expect {
            _ = try await makeRepository(session).page(of: .feed, atCursor: "https://evil.example.com/photos?page=2")
        } throws: { error in
            guard case .foreignURL = error as? UnsplashError else { return false }
            return true
        }
        #expect(session.requests.isEmpty)
    }

    @Test func aRejectedKeySaysWhichKeyIsNeeded() async {
        let session = MockURLSession(responses: [
            .json(#"{"errors":["OAuth error: The access token is invalid"]}"#, status: 401)
        ])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .accessKeyRejected(let detail) = error as? UnsplashError else { return false }
            let message = (error as? UnsplashError)?.errorDescription ?? ""
            return detail == "OAuth error: The access token is invalid" && message.contains("Access Key")
                && !message.contains("ACCESS-KEY")
        }
    }

    @Test func aPlainText403IsTheRateLimit() async {
        let session = MockURLSession(responses: [
            .http(
                status: 403,
                headers: ["Content-Type": "text/plain", "X-Ratelimit-Limit": "50", "X-Ratelimit-Remaining": "0"],
                body: Data("Rate Limit Exceeded".utf8))
        ])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .rateLimited(let limit, _) = error as? UnsplashError else { return false }
            return limit == RateLimit(limit: 50, remaining: 0)
        }
    }

    @Test func a429IsTheRateLimitToo() async {
        let session = MockURLSession(responses: [.http(status: 429, headers: ["Retry-After": "3600"])])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .rateLimited(_, let retryAfter) = error as? UnsplashError else { return false }
            return retryAfter == .seconds(3600)
        }
    }

    @Test func anotherForbiddenIsAnAPIError() async {
        let session = MockURLSession(responses: [.json(#"{"errors":["Missing permissions"]}"#, status: 403)])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .api(403, let messages, _) = error as? UnsplashError else { return false }
            return messages == ["Missing permissions"]
        }
    }

    @Test func anAnswerThatIsNotAPageIsADecodingError() async {
        let session = MockURLSession(responses: [.json(#"{"photos": []}"#)])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .network(.decoding(let type, _, _, _)) = error as? UnsplashError else { return false }
            return type == "PhotoList"
        }
    }

    @Test func aServerErrorThatReportsNoRequestLeftIsNotRetried() async {
        let session = MockURLSession(responses: [
            .http(status: 503, headers: ["X-Ratelimit-Limit": "50", "X-Ratelimit-Remaining": "0"]),
            .json("[]"),
        ])
        await #expect(throws: UnsplashError.self) {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        }
        #expect(session.requests.count == 1, "a retry would be over the rate limit")
    }

    @Test func aServerErrorWithRequestsLeftIsRetried() async throws {
        let session = MockURLSession(responses: [
            .http(status: 503, headers: ["X-Ratelimit-Limit": "50", "X-Ratelimit-Remaining": "7"]),
            .json("[]"),
        ])
        _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        #expect(session.requests.count == 2)
    }

    @Test func transportFailuresAreNetworkErrors() async {
        let session = MockURLSession(responses: [.failure(.cannotConnectToHost)])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .network(.transport) = error as? UnsplashError else { return false }
            return true
        }
        #expect(session.requests.count == 4)
    }

    @Test func aCancelledRequestIsCancellationNotAnOutage() async {
        let session = MockURLSession(responses: [.failure(.cancelled)])
        await #expect {
            _ = try await makeRepository(session).firstPage(of: .feed, perPage: 30)
        } throws: { error in
            guard case .cancelled = error as? UnsplashError else { return false }
            return true
        }
    }

    @Test func tracksADownloadKeepingItsQuery() async throws {
        let session = MockURLSession(responses: [
            .json(
                #"{"url":"https://images.unsplash.com/x"}"#,
                headers: ["X-Ratelimit-Remaining": "47", "X-Ratelimit-Limit": "50"])
        ])
        let location = URL(string: "https://api.unsplash.com/photos/RySPDa0FdcQ/download?ixid=M3w1NDk1MDR8MXwx")!
        let limit = try await makeRepository(session).trackDownload(location)
        #expect(limit == RateLimit(limit: 50, remaining: 47))
        let request = try #require(session.requests.first)
        #expect(request.url == location)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Client-ID ACCESS-KEY")
    }

    @Test func fetchesAnImageWithoutTheKey() async throws {
        let bytes = Data([0xFF, 0xD8, 0xFF, 1, 2, 3])
        let session = MockURLSession(responses: [
            .http(status: 200, headers: ["Content-Length": "6", "Content-Type": "image/jpeg"], body: bytes)
        ])
        let spool = BodySpool(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent(
                "photosync-repo-\(UUID().uuidString)"))
        try spool.prepare()
        defer { try? FileManager.default.removeItem(at: spool.directory) }
        let image = try await makeRepository(session).image(
            at: URL(string: "https://images.unsplash.com/photo-1?w=1080")!, redirects: .never, into: spool)
        #expect(image.body.storage == .memory(bytes))
        #expect(image.body.byteCount == 6 && image.contentType == "image/jpeg")
        #expect(session.requests.first?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func aLinkOnAnotherHostIsRefusedWithoutSendingTheKey() async throws {
        let session = MockURLSession(responses: [.json("[]")])
        await #expect {
            _ = try await makeRepository(session).page(of: .feed, atCursor: "https://api.evil.example/photos?page=2")
        } throws: { error in
            guard case .foreignURL(let url, _) = error as? UnsplashError else { return false }
            return url.contains("api.evil.example")
        }
        #expect(session.requests.isEmpty)
    }
}
