import Foundation
import PhotoStore
import TestSupport
import Testing

/// The catalog's edges (``PhotoCatalog``): cursors with offsets and each other, what a count
/// reads, several pages at once, sources' names, pruned images and topics, on every store.
@Suite("The catalog's edges, on every store")
struct CatalogEdgeContractTests {
    static func ids(_ store: PhotoStore, _ query: PhotoQuery) async throws -> [String] {
        try await store.catalog.photos(matching: query).map(\.id)
    }

    @Test("sources are named in the order of their bytes, in every place that lists them", arguments: Backend.allCases)
    func sourcesInByteOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let sources: [PhotoSource] = [
                .user("ann"), .search("Äpfel"), .collection("9"), .user("Ann"), .feed, .search("zebra"),
                .collection("10"),
            ]
            for source in sources { try await store.ledger.commit([Sample.photo("a")], source: source) }
            let expected = [
                "collection:10", "collection:9", "feed", "search:zebra", "search:Äpfel", "user:Ann", "user:ann",
            ]
            #expect(try await store.catalog.sourceNames() == expected)
            #expect(try await store.catalog.sourceStatistics().map(\.name) == expected)
            #expect(try await store.catalog.sources(ofPhoto: "a") == expected)
            #expect(try await store.catalog.photos(matching: PhotoQuery()).first?.sources == expected)
            #expect(try await store.catalog.sources(ofPhoto: "zz").isEmpty)
            #expect(try await Self.ids(store, PhotoQuery(source: "search:Äpfel")) == ["a"])
            #expect(try await Self.ids(store, PhotoQuery(source: "user:ANN")).isEmpty, "a source's name is exact")
        }
    }

    @Test("a count reads no dates: since and until count every photo", arguments: Backend.allCases)
    func aCountReadsNoDates(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([
                Sample.photo("a", created: 100), Sample.photo("b", created: 200), Sample.photo("c", created: 300),
            ])
            #expect(try await Self.ids(store, PhotoQuery(since: Instant.t(200))) == ["c", "b"])
            #expect(try await store.catalog.count(matching: PhotoQuery(since: Instant.t(200))) == 3)
            #expect(try await store.catalog.count(matching: PhotoQuery(until: Instant.t(150))) == 3)
            #expect(try await store.catalog.count(matching: PhotoQuery(username: "user-a", since: Instant.t(200))) == 1)
        }
    }

    @Test("a source no one listed counts and lists nothing, alone or with other filters", arguments: Backend.allCases)
    func anUnknownSourceCountsNothing(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", created: 100), Sample.photo("b", created: 200)])
            var byColour = PhotoQuery(source: "user:nobody")
            byColour.color = .black
            let queries = [
                PhotoQuery(source: "user:nobody"), PhotoQuery(text: "user", source: "user:nobody"),
                PhotoQuery(username: "user-a", source: "user:nobody"),
                PhotoQuery(source: "user:nobody", orientation: .landscape), byColour,
            ]
            for query in queries {
                #expect(try await store.catalog.count(matching: query) == 0, "\(query)")
                #expect(try await Self.ids(store, query).isEmpty, "\(query)")
                #expect(
                    try await store.catalog.originalJSONPage(matching: query) == OriginalJSONPage(total: 0, photos: []))
            }
        }
    }

    @Test("with both cursors, the one after a photo is the one followed", arguments: Backend.allCases)
    func afterWinsOverBefore(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(CatalogContractTests.five)
            // Newest first: b, d, c, a, u.
            for sort in [PhotoQuery.Sort.newest, .oldest, .likes] {
                let after = try await Self.ids(store, PhotoQuery(sort: sort, limit: 2, after: "c"))
                #expect(try await Self.ids(store, PhotoQuery(sort: sort, limit: 2, after: "c", before: "c")) == after)
            }
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, after: "d", before: "b")) == ["c", "a", "u"])
        }
    }

    @Test("an offset skips from the cursor, not from the start", arguments: Backend.allCases)
    func anOffsetAfterACursor(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(CatalogContractTests.five)
            #expect(
                try await Self.ids(store, PhotoQuery(sort: .newest, limit: 2, offset: 1, after: "b")) == ["c", "a"])
            #expect(
                try await Self.ids(store, PhotoQuery(sort: .oldest, limit: 5, offset: 2, after: "u")) == ["d", "b"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, offset: 9, after: "b")).isEmpty)
        }
    }

    @Test("a search ranked by relevance goes by its ranking whatever cursor it is given", arguments: Backend.allCases)
    func aRankedSearchIgnoresCursors(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Sample.rankedSearchPhotos())
            let ranked = try await Self.ids(store, PhotoQuery(text: "mountain", sort: .relevance, limit: 3))
            #expect(ranked.count == 3)
            #expect(
                try await Self.ids(store, PhotoQuery(text: "mountain", sort: .relevance, limit: 3, after: "p1"))
                    == ranked)
            #expect(
                try await Self.ids(store, PhotoQuery(text: "mountain", sort: .relevance, limit: 3, before: "p4"))
                    == ranked)
            // Sorted otherwise, a search follows its cursor.
            let newest = try await Self.ids(store, PhotoQuery(text: "mountain", sort: .newest))
            #expect(newest.count == 6)
            #expect(
                try await Self.ids(store, PhotoQuery(text: "mountain", sort: .newest, after: newest[2]))
                    == Array(newest.dropFirst(3)))
        }
    }

    @Test(
        "several JSON pages at once are each query's own page and total, in the order asked",
        arguments: Backend.allCases)
    func severalPagesAtOnce(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(
                try await store.catalog.originalJSONPages(matching: [PhotoQuery(limit: 3)]) == [
                    OriginalJSONPage(total: 0, photos: [])
                ])
            #expect(try await store.catalog.originalJSONPages(matching: []).isEmpty)
            try await store.ledger.commit(Sample.searchPhotos())
            try await store.ledger.commit([Sample.searchPhotos()[1]], source: .user("bob"))
            let queries = [
                PhotoQuery(limit: 1), PhotoQuery(source: "user:bob"), PhotoQuery(text: "mountains", sort: .relevance),
                PhotoQuery(limit: 1, offset: 1), PhotoQuery(limit: 1, offset: 3),
            ]
            let pages = try await store.catalog.originalJSONPages(matching: queries)
            var oneByOne: [OriginalJSONPage] = []
            for query in queries { oneByOne.append(try await store.catalog.originalJSONPage(matching: query)) }
            #expect(pages == oneByOne)
            #expect(pages.map(\.total) == [3, 1, 2, 3, 3])
            #expect(pages.map { $0.photos.map(\.id) } == [["forest"], ["city"], ["forest", "lake"], ["city"], []])
        }
    }

    @Test(
        "a pruned image is no stored image: not listed with its photo, nor counted as one", arguments: Backend.allCases)
    func aPrunedImageIsNotListed(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a", fetchedAt: Instant.t(1))
            try await store.archive.storeSample("b", fetchedAt: Instant.t(2))
            #expect(try await store.archive.prune(toFit: 4).map(\.photoID) == ["a"])
            #expect(try await store.catalog.photoIDs(withStoredImage: true) == ["b"])
            #expect(try await store.catalog.photo(id: "a")?.image == nil)
            var query = PhotoQuery()
            query.withSmallestImage = true
            let listed = try await store.catalog.photos(matching: query)
            #expect(listed.first { $0.id == "a" }.map { $0.image == nil && $0.smallestImage == nil } == true)
            #expect(listed.first { $0.id == "b" }?.image?.fetchedAt == Instant.t(2))
        }
    }

    @Test("a topic synced under two names is the one whose object was fetched last", arguments: Backend.allCases)
    func theNewestTopicWins(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let object = Data(#"{"id": "bo8jQKTaE0Y", "slug": "wallpapers"}"#.utf8)
            try await store.ledger.storeSourceObject(object, sources: [.topic("wallpapers")], at: Instant.t(5))
            try await store.ledger.storeSourceObject(object, sources: [.topic("bo8jQKTaE0Y")], at: Instant.t(9))
            try await store.ledger.activateSources([.topic("nature")])
            #expect(try await store.catalog.topic(objectIDOrSlug: "wallpapers") == .topic("bo8jQKTaE0Y"))
            try await store.ledger.storeSourceObject(object, sources: [.topic("wallpapers")], at: Instant.t(20))
            #expect(try await store.catalog.topic(objectIDOrSlug: "bo8jQKTaE0Y") == .topic("wallpapers"))
            #expect(try await store.catalog.topic(objectIDOrSlug: "nature") == nil, "a topic without an object")
            #expect(try await store.catalog.topic(objectIDOrSlug: "") == nil)
        }
    }

    @Test(
        "status counts the retries of every variant, the earliest next, and pruned images apart",
        arguments: Backend.allCases)
    func statusOverEveryVariant(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.imageQueue.enqueueMissingImages(variant: .small)
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: .regular, error: "503", retryAt: Instant.t(50))
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: .small, error: "503", retryAt: Instant.t(20))
            try await store.imageQueue.recordImageFailure(photoID: "b", variant: .small, error: "404", retryAt: nil)
            try await store.archive.storeSample("b", data: Data("12345".utf8), fetchedAt: Instant.t(1))
            #expect(try await store.archive.prune(toFit: 0).count == 1)
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesRetrying == 2 && statistics.nextImageRetryAt == Instant.t(20))
            #expect(statistics.imagesPending == 2 && statistics.imagesFailed == 1 && statistics.imagesStored == 0)
            #expect(statistics.imagesPruned == 1 && statistics.bytesPruned == 5 && statistics.bytesStored == 0)
            #expect(statistics.photos == 2 && statistics.rejectedPhotos == 0 && statistics.plusPhotos == 0)
        }
    }
}
