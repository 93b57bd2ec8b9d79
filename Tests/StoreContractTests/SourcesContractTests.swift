import Foundation
import PhotoStore
import TestSupport
import Testing

/// What the catalog tells of sources (``PhotoCatalog``): their statistics, their stored
/// objects and a topic by its id or slug, on every store.
@Suite("Sources, on every store")
struct SourcesContractTests {
    @Test(
        "a source's statistics count its photos and Unsplash+ ones, its cursors, whether it is active and its failure",
        arguments: Backend.allCases)
    func sourceStatistics(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.activateSources([.feed, .user("ann")])
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("p", isPlus: true)], next: 2)
            try await store.ledger.commit([Sample.photo("a")], next: nil, source: .user("ann"), now: Instant.t(10))
            try await store.ledger.activateSources([.feed, .collection("9")])
            try await store.ledger.recordSourceFailure(
                .collection("9"), message: "Couldn't find Collection", at: Instant.t(20))

            let statistics = try await store.catalog.sourceStatistics()
            #expect(statistics.map(\.name) == ["collection:9", "feed", "user:ann"])
            let byName = Dictionary(uniqueKeysWithValues: statistics.map { ($0.name, $0) })
            #expect(byName["feed"]?.photos == 2 && byName["feed"]?.plusPhotos == 1 && byName["feed"]?.active == true)
            #expect(byName["feed"]?.state.backfillNext == Sample.pageURL(2))
            #expect(byName["user:ann"]?.photos == 1 && byName["user:ann"]?.active == false)
            #expect(byName["user:ann"]?.state.backfillComplete == true)
            #expect(
                byName["collection:9"]?.failure
                    == SourceFailure(message: "Couldn't find Collection", since: Instant.t(20)))
            #expect(byName["collection:9"]?.photos == 0 && byName["collection:9"]?.active == true)
            #expect(try await store.catalog.statistics().sources == statistics)
        }
    }

    @Test("a source's stored object is read for the first of several sources that has one", arguments: Backend.allCases)
    func sourceObjectOfAny(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await store.catalog.sourceObject(ofAny: [.user("ann")]) == nil)
            let old = Data(#"{"id": "u1", "username": "ann", "bio": "old"}"#.utf8)
            let new = Data(#"{"id": "u1", "username": "ann", "bio": "new"}"#.utf8)
            try await store.ledger.storeSourceObject(old, sources: [.user("ann")], at: Instant.t(5))
            try await store.ledger.storeSourceObject(new, sources: [.likes("ann")], at: Instant.t(50))
            let read = try #require(try await store.catalog.sourceObject(ofAny: [.user("ann"), .likes("ann")]))
            let object = try #require(try JSONSerialization.jsonObject(with: read) as? [String: String])
            #expect(object["bio"] == "new", "the newest fetched of those that have one")
            #expect(try await store.catalog.sourceObject(ofAny: [.feed, .collection("1")]) == nil)
        }
    }

    @Test("a topic is found by its object's id or slug, and no other source is", arguments: Backend.allCases)
    func topicByIDOrSlug(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let topic = Data(#"{"id": "bo8jQKTaE0Y", "slug": "wallpapers", "title": "Wallpapers"}"#.utf8)
            try await store.ledger.storeSourceObject(topic, sources: [.topic("wallpapers")], at: Instant.t(5))
            let user = Data(#"{"id": "u1", "slug": "ann", "username": "ann"}"#.utf8)
            try await store.ledger.storeSourceObject(user, sources: [.user("ann")], at: Instant.t(6))

            #expect(try await store.catalog.topic(objectIDOrSlug: "wallpapers") == .topic("wallpapers"))
            #expect(try await store.catalog.topic(objectIDOrSlug: "bo8jQKTaE0Y") == .topic("wallpapers"))
            #expect(try await store.catalog.topic(objectIDOrSlug: "ann") == nil, "a user is no topic")
            #expect(try await store.catalog.topic(objectIDOrSlug: "nature") == nil)
        }
    }
}
