import Foundation
import Gallery
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

/// `/unsplash/topics` and `/unsplash/collections`: the topics and collections the mirror holds,
/// listed as Unsplash lists its own, each element the object `/topics/:slug` or
/// `/collections/:id` answers.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorObjectListTests {
    /// The recorded topic, and a second one made from it: another id and slug, not featured,
    /// published later.
    static func topics() throws -> (recorded: Data, other: Data) {
        let recorded = try Fixture.topic.data
        guard case .object(var other) = try JSONShape.parse(recorded) else { throw Failure("topic.json is an object") }
        other["id"] = .string("xHxYTMHLgOc")
        other["slug"] = .string("street-photography")
        other["title"] = .string("Street Photography")
        other["featured"] = .bool(false)
        other["published_at"] = .string("2021-05-01T10:00:00Z")
        other["links"] = .object([
            "self": .string("https://api.unsplash.com/topics/street-photography"),
            "html": .string("https://unsplash.com/t/street-photography"),
            "photos": .string("https://api.unsplash.com/topics/street-photography/photos"),
        ])
        return (recorded, JSONShape.object(other).data)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func topicsListsTheStoredTopicsFieldByFieldWithUnsplashsHeaders() async throws {
        // GIVEN the recorded topic and another one, stored as the sync stores them, and a topic
        // source whose object was never fetched
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(recording: .topicsPhotos, source: "topic:wallpapers")
        try await fixture.commit([Sample.photo("street", day: 2)], source: "topic:street-photography")
        try await fixture.commit([Sample.photo("never", day: 3)], source: "topic:never-fetched")
        let (recorded, other) = try Self.topics()
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        try await fixture.writer.ledger.storeSourceObject(recorded, sources: ["topic:wallpapers"], at: fetched)
        try await fixture.writer.ledger.storeSourceObject(other, sources: ["topic:street-photography"], at: fetched)
        let recordedTopic = try JSONShape.parse(recorded)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client lists the topics
            let response = try await client.get("/unsplash/topics")

            // THEN it is an array of the two stored topics, featured first (as `position`, the
            // default), never one the mirror would make up
            #expect(response.status == .ok)
            #expect(response.header("Content-Type") == "application/json")
            let topics = response.json.elements
            #expect(topics.map { $0["slug"]?.text } == ["wallpapers", "street-photography"])
            // AND the first is the recording field by field, but its API links, which are the mirror's
            let topic = try #require(topics.first)
            #expect(
                JSONShape.differences(
                    expected: recordedTopic, actual: topic, rewritten: UnsplashMirrorContractTests.rewritten) == [])
            let origin = try #require(mirrorOrigin(of: topic["links"]?["self"]?.text ?? ""))
            #expect(topic["links"]?["self"]?.text == origin + "/unsplash/topics/wallpapers")
            #expect(topic["links"]?["photos"]?.text == origin + "/unsplash/topics/wallpapers/photos")
            #expect(topic["links"]?["html"] == recordedTopic["links"]?["html"])
            #expect(topic["owners"]?.elements == recordedTopic["owners"]?.elements.map { $0.mirroredUser(on: origin) })
            #expect(topic["cover_photo"]?["id"] == recordedTopic["cover_photo"]?["id"])
            #expect(topic == (try await client.get("/unsplash/topics/wallpapers")).json, "what /topics/:slug answers")
            // AND it has the headers of Unsplash's lists
            #expect(response.header("X-Total") == "2")
            #expect(response.header("X-Per-Page") == "10")
            #expect(response.header("X-Ratelimit-Limit") != nil && response.header("X-Ratelimit-Remaining") != nil)

            // AND it pages, orders and narrows as Unsplash's does
            let page = try await client.get("/unsplash/topics?per_page=1&page=2")
            #expect(page.json.elements.map { $0["slug"]?.text } == ["street-photography"])
            #expect(page.links["first"] == "/unsplash/topics?page=1&per_page=1")
            #expect(page.links["next"] == nil)
            #expect(
                try await client.get("/unsplash/topics?per_page=1").links["next"]
                    == "/unsplash/topics?page=2&per_page=1")
            let latest = try await client.get("/unsplash/topics?order_by=latest").json.elements
            #expect(latest.map { $0["slug"]?.text } == ["street-photography", "wallpapers"])
            let oldest = try await client.get("/unsplash/topics?order_by=oldest").json.elements
            #expect(oldest.map { $0["slug"]?.text } == ["wallpapers", "street-photography"])
            let chosen = try await client.get("/unsplash/topics?ids=xHxYTMHLgOc,nope").json.elements
            #expect(chosen.map { $0["slug"]?.text } == ["street-photography"], "by id")
            let bySlug = try await client.get("/unsplash/topics?ids=wallpapers").json.elements
            #expect(bySlug.map { $0["slug"]?.text } == ["wallpapers"], "by slug")
            #expect(try await client.get("/unsplash/topics?order_by=size").status == .badRequest)
        }
    }

    @Test func collectionsListsTheStoredCollectionsNewestFirst() async throws {
        // GIVEN the recorded collection (published 2019) and the 2019 one with a numeric id
        // (published 2017), stored
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.storeRecordedCollections()

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let response = try await client.get("/unsplash/collections")

            #expect(response.status == .ok)
            let collections = response.json.elements
            #expect(collections.map { $0["id"] } == [.string("3773378"), .number(201)], "newest published first")
            #expect(response.header("X-Total") == "2")
            let recorded = try JSONShape.parse(try Fixture.collection.data)
            let first = try #require(collections.first)
            #expect(
                JSONShape.differences(
                    expected: recorded, actual: first, rewritten: UnsplashMirrorContractTests.rewritten) == [])
            #expect(first == (try await client.get("/unsplash/collections/3773378")).json)
        }
    }

    @Test func aMirrorWithoutTopicsOrCollectionsListsNone() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            for uri in ["/unsplash/topics", "/unsplash/collections"] {
                let response = try await client.get(uri)
                #expect(response.status == .ok, "\(uri)")
                #expect(response.json == .array([]), "\(uri)")
                #expect(response.header("X-Total") == "0", "\(uri)")
            }
        }
    }
}
