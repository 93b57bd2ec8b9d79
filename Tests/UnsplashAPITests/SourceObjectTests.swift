import Foundation
import Networking
import TestSupport
import Testing

@testable import UnsplashAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /collections/:id`, `/topics/:slug` and `/users/:username`: the object a source lists the
/// photos of, against what Unsplash really answered.
@Suite struct SourceObjectTests {
    @Test(arguments: [
        (PhotoSource.collection("3773378"), Fixture.collection, "/collections/3773378", "3773378"),
        (PhotoSource.topic("wallpapers"), Fixture.topic, "/topics/wallpapers", "bo8jQKTaE0Y"),
    ])
    func readsTheRecordedObjectAndKeepsItsTextExactly(
        _ source: PhotoSource, _ fixture: Fixture, _ path: String, _ id: String
    ) async throws {
        // GIVEN the API answering with what it really sent
        let session = MockURLSession(responses: [.json(try fixture.text, headers: try fixture.headers)])
        // WHEN the source's object is fetched
        let answer = try #require(try await makeRepository(session).object(of: source))
        // THEN it is the recording, byte for byte, with its id and the budget it reported
        #expect(answer.object.id == id)
        #expect(answer.object.json == (try fixture.data))
        #expect(answer.rateLimit?.limit == 50)
        let request = try #require(session.requests.first)
        #expect(request.url?.path == path)
        #expect(request.url?.query == nil)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Client-ID ACCESS-KEY")
        #expect(request.value(forHTTPHeaderField: "Accept-Version") == "v1")
    }

    @Test func aUserAndALikesSourceShareTheProfileAndTheFeedAndASearchHaveNone() throws {
        #expect(PhotoSource.user("ann").objectSegments == ["users", "ann"])
        #expect(PhotoSource.likes("ann").objectSegments == PhotoSource.user("ann").objectSegments)
        #expect(PhotoSource.feed.objectSegments == nil)
        #expect(PhotoSource.search("fox").objectSegments == nil)
        let url = try #require(UnsplashAPI(accessKey: "K").object(of: .user("../me"))).url()
        #expect(url.absoluteString == "https://api.unsplash.com/users/..%2Fme")
    }

    @Test func aCollectionOf2019WithANumericIDIsReadAndKeptAsSent() async throws {
        // GIVEN the API answering as it did in 2019, "id": 201 a number
        let session = MockURLSession(responses: [.json(try Fixture.collection2019.text)])
        // WHEN the collection's object is fetched
        let answer = try #require(try await makeRepository(session).object(of: .collection("201")))
        // THEN it is read, its id as text, its body kept byte for byte
        #expect(answer.object.id == "201")
        #expect(answer.object.json == (try Fixture.collection2019.data))
        // AND decoded as part of a larger body, too
        let decoded = try JSONDecoder().decode(SourceObject.self, from: try Fixture.collection2019.data)
        #expect(decoded.id == "201")
    }

    @Test(arguments: [
        "[]", #"{"title":"no id"}"#, #"{"id":4.2}"#, #"{"id":true}"#, #"{"id":null}"#, #"{"id":[1]}"#, "not json",
    ])
    func anythingButAnObjectWithAnIDIsRefused(_ body: String) async throws {
        let session = MockURLSession(responses: [.json(body)])
        await #expect(throws: UnsplashError.self) {
            try await makeRepository(session).object(of: .collection("1"))
        }
    }

    @Test func anObjectOverTheCapIsRefused() async throws {
        let padding = String(repeating: "x", count: SourceObject.maxBytes)
        let session = MockURLSession(responses: [.json(#"{"id":"big","pad":""# + padding + #""}"#)])
        await #expect(throws: UnsplashError.self) {
            try await makeRepository(session).object(of: .collection("1"))
        }
        let fits = #"{"id":"big","pad":""# + String(padding.dropFirst(64)) + #""}"#
        let answer = try await makeRepository(MockURLSession(responses: [.json(fits)])).object(of: .collection("1"))
        #expect(answer?.object.id == "big")
    }

    @Test func anUnknownCollectionIsA404WithItsMessage() async throws {
        let session = MockURLSession(responses: [.json(try Fixture.collection404.text, status: 404)])
        let error = await #expect(throws: UnsplashError.self) {
            try await makeRepository(session).object(of: .collection("1"))
        }
        guard case .api(404, let messages, _)? = error else {
            Issue.record("expected a 404, got \(String(describing: error))")
            return
        }
        #expect(messages == ["Couldn't find Collection"])
    }
}
