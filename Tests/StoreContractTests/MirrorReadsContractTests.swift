import Foundation
import TestSupport
import Testing

@testable import PhotoStore

/// What `serve`'s Unsplash API reads and writes: a page's original JSON, a listing's count, a
/// source's order, and the download requests the sync forwards.
@Suite("The mirror's reads, on every store") struct MirrorReadsContractTests {
    @Test(arguments: Backend.allCases) func aRequestedDownloadIsTrackedWithoutAStoredImageOnceAndKeepsItsFirstTime(
        _ backend: Backend
    ) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([
                Sample.photo("a"), Sample.photo("b"), Sample.photo("c", downloadLocation: false),
            ])
            let requests = try store.storage.openDownloadRequests()
            defer { try? requests.close() }

            #expect(try await requests.record(photoID: "a", at: Instant.t(1)))
            #expect(try await requests.record(photoID: "a", at: Instant.t(2)))
            #expect(try await requests.record(photoID: "c", at: Instant.t(3)))
            #expect(try await !requests.record(photoID: "zz", at: Instant.t(4)), "no such photo: nothing recorded")

            #expect(try await requests.requested() == ["a": Instant.t(1), "c": Instant.t(3)])
            // c has no download location: nothing to forward.
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a"])
            try await store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(5))
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func aPagesJSONIsReadVerbatimInOneRead(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let photos = [Sample.photo("a"), Sample.photo("b")]
            try await store.ledger.commit(photos)
            let json = try await store.catalog.originalJSON(photoIDs: ["b", "a", "zz", "a"])
            #expect(json == ["a": photos[0].json, "b": photos[1].json])
            #expect(try await store.catalog.originalJSON(photoIDs: []).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func aSourceListsInTheOrderItListedAndCountsAsItLists(_ backend: Backend)
        async throws
    {
        try await backend.withPhotoStore { store in
            // Two pages of a user's photos, newest-created last: the API's order is not the dates'.
            for (page, ids) in [["c", "a"], ["d", "b"]].enumerated() {
                let now = Instant.t(Double(page))
                try await store.ledger.commitPage(
                    ids.map { Sample.photo($0) }, variant: Sample.variant, source: .user("ann"), now: now
                ) { _ in .backfill(next: nil) }
            }
            try await store.ledger.commit([Sample.photo("e")])
            var query = PhotoQuery(source: "user:ann", limit: 3, offset: 1)
            query.inSourceOrder = true

            #expect(try await store.catalog.photos(matching: query).map(\.id) == ["a", "d", "b"])
            #expect(try await store.catalog.count(matching: PhotoQuery(source: "user:ann")) == 4)
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 5)
            #expect(try await store.catalog.count(matching: PhotoQuery(text: "photo")) == 5)
            // A count is kept until the database changes, then counted again.
            try await store.ledger.commit([Sample.photo("f")])
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 6)
            #expect(try await store.catalog.count(matching: PhotoQuery(source: "user:ann")) == 4)
            #expect(try await store.catalog.hasSource(.user("ann")))
            #expect(try await !store.catalog.hasSource(.user("bob")))
            await #expect(throws: StoreError.invalidSearch("\"unterminated")) {
                try await store.catalog.count(matching: PhotoQuery(text: "\"unterminated"))
            }
        }
    }

    @Test(arguments: Backend.allCases) func aJSONPageCountsAndListsWhatTheListingDoesForEveryFilter(_ backend: Backend)
        async throws
    {
        try await backend.withPhotoStore { store in
            // a to f: b and d portrait, a to c also a user's; all mention "photo", e "lake" too.
            var photos = ["a", "b", "c", "d", "e", "f"].map {
                Sample.photo($0, width: ["b", "d"].contains($0) ? 2000 : 4000)
            }
            photos[4].description = "photo e lake"
            photos[0].userUsername = "Ann"
            try await store.ledger.commitPage(
                Array(photos[0..<3]), variant: Sample.variant, source: .user("ann"), now: Instant.t0
            ) {
                _ in .backfill(next: nil)
            }
            try await store.ledger.commit(Array(photos[3...]))
            let queries: [PhotoQuery] = [
                PhotoQuery(), PhotoQuery(text: "photo"), PhotoQuery(text: "lake"), PhotoQuery(source: "user:ann"),
                PhotoQuery(source: "user:bob"), PhotoQuery(username: "ann"), PhotoQuery(orientation: .portrait),
                PhotoQuery(text: "photo", source: "user:ann"), PhotoQuery(text: "photo", orientation: .portrait),
                PhotoQuery(text: "photo", username: "ANN", source: "user:ann"),
                PhotoQuery(source: "user:ann", orientation: .landscape),
            ]
            for query in queries {
                var paged = query
                paged.limit = 2
                paged.offset = 1
                let everything = try await store.catalog.photos(matching: query).map(\.id)
                let page = try await store.catalog.originalJSONPage(matching: paged)

                #expect(page.total == everything.count, "\(query)")
                #expect(page.photos.map(\.id) == Array(everything.dropFirst().prefix(2)), "\(query)")
                #expect(page.photos.allSatisfy { photo in photos.first { $0.id == photo.id }?.json == photo.json })
            }
            var past = PhotoQuery(limit: 2, offset: 6)
            #expect(try await store.catalog.originalJSONPage(matching: past) == OriginalJSONPage(total: 6, photos: []))
            past.text = "\"unterminated"
            await #expect(throws: StoreError.invalidSearch("\"unterminated")) {
                try await store.catalog.originalJSONPage(matching: past)
            }
        }
    }
}

@Suite("Random draws, on every store") struct RandomDrawContractTests {
    @Test(arguments: Backend.allCases) func drawsAreDistinctUntilEveryPhotoIsDrawnThenRepeat(_ backend: Backend)
        async throws
    {
        try await backend.withPhotoStore { store in
            #expect(try await store.catalog.randomOriginalJSON(count: 3).isEmpty, "nothing stored: nothing drawn")
            let photos = (0..<30).map { Sample.photo("p\($0)") }
            try await store.ledger.commit(photos)

            let thirty = try await store.catalog.randomOriginalJSON(count: 30)
            #expect(Set(thirty.map(\.id)) == Set(photos.map(\.id)), "30 draws of 30 photos: each once")
            #expect(thirty.allSatisfy { drawn in photos.first { $0.id == drawn.id }?.json == drawn.json })

            let forty = try await store.catalog.randomOriginalJSON(count: 40)
            #expect(forty.count == 40)
            #expect(Set(forty.map(\.id)).count == 30, "every photo before any repeat")
            #expect(try await store.catalog.randomOriginalJSON(count: 0).isEmpty)
        }
    }
}
