import Foundation
import Networking
import TestSupport
import Testing

@testable import UnsplashAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each source's endpoint against what Unsplash really answered (the 2025 recordings, with
/// their headers), through `MockURLSession`.
@Suite struct SourceRepositoryTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let source: PhotoSource
        let fixture: Fixture
        let path: String
        let query: String
        let next: String
        let total: Int
        var testDescription: String { source.description }
    }

    static let cases: [Case] = [
        Case(
            source: .user("lucreative"), fixture: .usersPhotos, path: "/users/lucreative/photos",
            query: "order_by=latest&page=1&per_page=30",
            next: "https://api.unsplash.com/users/lucreative/photos?page=2", total: 170),
        Case(
            source: .likes("lucreative"), fixture: .usersLikes, path: "/users/lucreative/likes",
            query: "order_by=latest&page=1&per_page=30", next: "https://api.unsplash.com/users/lucreative/likes?page=2",
            total: 898),
        Case(
            source: .collection("3773378"), fixture: .collectionsPhotos, path: "/collections/3773378/photos",
            query: "page=1&per_page=30", next: "https://api.unsplash.com/collections/3773378/photos?page=2", total: 40),
        Case(
            source: .topic("wallpapers"), fixture: .topicsPhotos, path: "/topics/wallpapers/photos",
            query: "order_by=latest&page=1&per_page=30",
            next: "https://api.unsplash.com/topics/wallpapers/photos?page=2", total: 15532),
        Case(
            source: .search("test"), fixture: .searchPhotos, path: "/search/photos",
            query: "query=test&order_by=latest&page=1&per_page=30",
            next: "https://api.unsplash.com/search/photos?page=2&query=test", total: 1452),
    ]

    @Test(arguments: cases)
    func readsTheFirstPageOfEachSource(_ expected: Case) async throws {
        // GIVEN the API answering with what it really sent for this source
        let session = MockURLSession(responses: [
            .json(try expected.fixture.text, headers: try expected.fixture.headers)
        ])
        // WHEN the source's first page is fetched
        let page = try await makeRepository(session).firstPage(of: expected.source, perPage: 30)
        // THEN every photo decodes, with the page's links, total and budget
        #expect(page.photos.count == 10)
        #expect(page.rejected.isEmpty)
        #expect(page.next?.absoluteString == expected.next)
        #expect(page.total == expected.total)
        #expect(page.rateLimit?.limit == 50)
        // AND the request went to the source's endpoint, newest first where it can be asked
        let request = try #require(session.requests.first)
        #expect(request.url?.path == expected.path)
        #expect(request.url?.query == expected.query)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Client-ID ACCESS-KEY")
    }

    @Test func followsASearchCursor() async throws {
        let session = MockURLSession(responses: [.json(try Fixture.searchPhotos2023.text)])
        let page = try await makeRepository(session).page(
            of: .search("dog"), atCursor: "/search/photos?page=2&query=dog")
        #expect(
            session.requests.first?.url?.absoluteString == "https://api.unsplash.com/search/photos?page=2&query=dog")
        #expect(page.photos.count == 10)
        #expect(page.total == 10001, "without an X-Total header, the body's total")
    }

    @Test func unsplashPlusPhotosAreRecognisedByTheirURLs() async throws {
        let session = MockURLSession(responses: [
            .json(try Fixture.usersLikes.text, headers: try Fixture.usersLikes.headers)
        ])
        let page = try await makeRepository(session).firstPage(of: .likes("lucreative"), perPage: 30)
        let plus = page.photos.filter(\.isPlus)
        #expect(plus.count == 1)
        #expect(plus.first?.urls?.regular?.contains("plus.unsplash.com/premium_photo-") == true)
        let feed = try JSONDecoder().decode(PhotoList.self, from: try Fixture.page1.data)
        #expect(!feed.photos.contains { $0.isPlus })
    }

    @Test(arguments: [(Fixture.user404, "Couldn't find User"), (Fixture.collection404, "Couldn't find Collection")])
    func anUnknownSourceIsA404WithItsMessage(_ fixture: Fixture, _ message: String) async throws {
        let session = MockURLSession(responses: [.json(try fixture.text, status: 404)])
        let error = await #expect(throws: UnsplashError.self) {
            try await makeRepository(session).firstPage(of: .user("nobody-here"), perPage: 30)
        }
        guard case .api(let status, let messages, _)? = error else {
            Issue.record("expected an API error, got \(String(describing: error))")
            return
        }
        #expect(status == 404 && messages == [message])
    }

    @Test(arguments: [
        (PhotoSource.user("../../me"), "/users/..%2F..%2Fme/photos"),
        (PhotoSource.user(".."), "/users/%2E%2E/photos"),
        (PhotoSource.likes("a/b?c#d"), "/users/a%2Fb%3Fc%23d/likes"),
        (PhotoSource.collection("."), "/collections/%2E/photos"),
    ])
    func valuesNeverChangeThePath(_ source: PhotoSource, _ encodedPath: String) throws {
        let url = try UnsplashAPI(accessKey: "K").firstPage(of: source, perPage: 30, as: PhotoList.self).url()
        #expect(url.absoluteString.hasPrefix("https://api.unsplash.com" + encodedPath + "?"), "\(url)")
        #expect(URLComponents(url: url.standardized, resolvingAgainstBaseURL: false)?.percentEncodedPath == encodedPath)
    }

    @Test func searchQueriesAreEncodedWhole() throws {
        let url = try UnsplashAPI(accessKey: "K").firstPage(
            of: .search("red fox & cat=1+2, ü"), perPage: 30, as: SearchResults.self
        ).url()
        #expect(url.query == "query=red%20fox%20%26%20cat%3D1%2B2%2C%20%C3%BC&order_by=latest&page=1&per_page=30")
    }
}

@Suite struct PhotoSourceTests {
    @Test(arguments: [
        ("feed", PhotoSource.feed), ("user:ann", .user("ann")), ("likes:Ann_B-2", .likes("Ann_B-2")),
        ("collection:3773378", .collection("3773378")), ("collection:abcDEF12", .collection("abcDEF12")),
        ("topic:wallpapers", .topic("wallpapers")), ("search:red fox, at night", .search("red fox, at night")),
        ("search:a:b", .search("a:b")),
    ])
    func parsesEachForm(_ text: String, _ source: PhotoSource) throws {
        #expect(try PhotoSource(parsing: text) == source)
        #expect(source.description == text)
    }

    @Test(arguments: [
        ("user:", "needs a username after the colon"),
        ("user", "needs a value after the colon"),
        ("album:3", "is not a known kind of source"),
        ("Feed", "is not a known kind of source"),
        ("user:../../me", "needs a username of letters, digits, _ and - only"),
        ("collection:", "needs a collection id after the colon"),
        ("topic:a b", "needs a topic slug or id of letters, digits, _ and - only"),
        ("search:", "has an empty search query"),
        ("search:   ", "has an empty search query"),
        ("search:" + String(repeating: "x", count: 513), "has a search query longer than 512 characters (513)"),
    ])
    func rejectsMalformedSources(_ text: String, _ problem: String) {
        #expect(throws: SourceError.self) { try PhotoSource(parsing: text) }
        do {
            _ = try PhotoSource(parsing: text)
        } catch {
            #expect(error.problem == problem)
            #expect(
                error.description.hasSuffix(
                    "; a source is feed, user:USERNAME, likes:USERNAME, collection:ID, topic:SLUG or search:QUERY"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aQueryOf512CharactersIsAccepted() throws {
        #expect(
            try PhotoSource(parsing: "search:" + String(repeating: "y", count: 512))
                == .search(String(repeating: "y", count: 512)))
    }
}
