import Foundation
import PhotoStore
import TestSupport
import Testing

/// What the sync owes Unsplash for each download (``SyncLedger/pendingDownloadTracking(limit:)``),
/// on every store.
@Suite("Download tracking, on every store")
struct DownloadTrackingContractTests {
    @Test(
        "downloads are due in the order the photos were first stored, at most as many as asked",
        arguments: Backend.allCases)
    func dueInThePhotosOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b", "c", "d"].map { Sample.photo($0) })
            try await store.imageQueue.enqueueMissingImages(variant: .small)
            for id in ["d", "b", "a"] { try await store.archive.storeSample(id) }
            // Any variant will do: c's small image.
            try await store.archive.storeSample("c", variant: .small)
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a", "b", "c", "d"])
            #expect(try await store.ledger.pendingDownloadTracking(limit: 2).map(\.photoID) == ["a", "b"])
            #expect(try await store.ledger.pendingDownloadTracking(limit: 0).isEmpty)
            // A photo with two stored images is due once.
            try await store.archive.storeSample("a", variant: .small)
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a", "b", "c", "d"])
        }
    }

    @Test("a photo whose later listing gives it a download location is due from then on", arguments: Backend.allCases)
    func aLaterDownloadLocation(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", downloadLocation: false)])
            try await store.archive.storeSample("a")
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).isEmpty)
            try await store.ledger.commit([Sample.photo("a")], next: 3)
            #expect(
                try await store.ledger.pendingDownloadTracking(limit: 10) == [
                    DownloadTrackingJob(photoID: "a", downloadLocation: "https://api.example.com/photos/a/download")
                ])
        }
    }

    @Test("an image pruned before its download was told is no longer due", arguments: Backend.allCases)
    func aPrunedImageIsNotDue(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a", fetchedAt: Instant.t(1))
            try await store.archive.storeSample("b", fetchedAt: Instant.t(2))
            #expect(try await store.archive.prune(toFit: 4).map(\.photoID) == ["a"])
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["b"])
        }
    }

    @Test(
        "a photo marked before its image is stored, or asked for after, is never due again, and keeps its first mark",
        arguments: Backend.allCases)
    func aMarkBeforeTheImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.ledger.markDownloadsTracked(photoIDs: ["a", "a"], at: Instant.t(5))
            try await store.ledger.markDownloadsTracked(photoIDs: [], at: Instant.t(6))
            try await store.archive.storeSample("a")
            try await store.archive.storeSample("b")
            try await store.ledger.markDownloadsTracked(photoIDs: ["b"], at: Instant.t(7))
            let requests = try store.storage.openDownloadRequests()
            defer { try? requests.close() }
            #expect(try await requests.record(photoID: "b", at: Instant.t(8)))
            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).isEmpty)
            #expect(try await store.catalog.photo(id: "a")?.downloadTrackedAt == Instant.t(5))
            #expect(try await store.catalog.photo(id: "b")?.downloadTrackedAt == Instant.t(7))
        }
    }
}

/// Photos' full objects stored again and asked for (``PhotoDetailsStore``), on every store.
@Suite("Photos' full objects again, on every store")
struct PhotoDetailsAgainContractTests {
    func ids(_ store: PhotoStore, _ text: String) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id)
    }

    @Test(
        "details stored again replace the first: their text, their time, the words search finds",
        arguments: Backend.allCases)
    func detailsAreReplaced(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let first = Data(#"{"id":"a","tags":[{"title":"glacier"}]}"#.utf8)
            let second = Data(
                #"{ "id" : "a", "tags": [ {"title": "volcano"} ], "location": {"city": "Akureyri \u00e9"} }"#.utf8)
            #expect(try await store.photoDetails.store(first, photoID: "a", at: Instant.t(5)))
            #expect(try await ids(store, "glacier") == ["a"])
            #expect(try await store.photoDetails.store(second, photoID: "a", at: Instant.t(9)))
            #expect(
                try await store.photoDetails.details(photoID: "a")
                    == StoredPhotoDetails(json: second, fetchedAt: Instant.t(9)))
            #expect(try await ids(store, "glacier").isEmpty, "the first object's words are gone")
            #expect(try await ids(store, "volcano") == ["a"])
            #expect(try await ids(store, "akureyri") == ["a"])
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["b"])
        }
    }

    @Test("requested details are pending oldest request first, before every other photo", arguments: Backend.allCases)
    func requestsOldestFirst(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b", "c", "d"].map { Sample.photo($0) })
            let requests = try store.storage.openPhotoDetailsRequests()
            defer { try? requests.close() }
            #expect(try await requests.record(photoID: "b", at: Instant.t(9)))
            #expect(try await requests.record(photoID: "c", at: Instant.t(3)))
            #expect(try await requests.record(photoID: "b", at: Instant.t(1)), "asked again: the first request stays")
            #expect(try await store.photoDetails.pending(.requested, limit: 10) == ["c", "b"])
            #expect(try await store.photoDetails.pending(.requested, limit: 1) == ["c"])
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["c", "b", "d", "a"])
            #expect(try await store.photoDetails.pending(.all, limit: 0).isEmpty)
        }
    }

    @Test("a request for details already stored leaves them stored and nothing pending", arguments: Backend.allCases)
    func aRequestForStoredDetails(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            let object = Data(#"{"id":"a"}"#.utf8)
            try await store.photoDetails.store(object, photoID: "a", at: Instant.t(5))
            let requests = try store.storage.openPhotoDetailsRequests()
            defer { try? requests.close() }
            #expect(try await requests.record(photoID: "a", at: Instant.t(6)))
            #expect(try await !store.photoDetails.isRequested(photoID: "a"))
            #expect(try await store.photoDetails.pending(.requested, limit: 10).isEmpty)
            #expect(try await store.photoDetails.pending(.all, limit: 10).isEmpty)
            #expect(
                try await store.photoDetails.details(photoID: "a")
                    == StoredPhotoDetails(json: object, fetchedAt: Instant.t(5)))
            #expect(try await !store.photoDetails.isRequested(photoID: "zz"))
        }
    }
}
