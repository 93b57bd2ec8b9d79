import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("The image queue's jobs, on every store")
struct ImageJobsContractTests {
    let variant = Sample.variant

    @Test("a committed photo's image is due at once, and once stored is never due again", arguments: Backend.allCases)
    func pendingThenStored(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 10) == [
                    ImageJob(photoID: "a", variant: variant, sourceURL: Sample.imageURL("a"), attempts: 0),
                    ImageJob(photoID: "b", variant: variant, sourceURL: Sample.imageURL("b"), attempts: 0),
                ])
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 1).map(\.photoID)
                    == ["a"])
            #expect(try await store.imageQueue.nextImageRetry(variants: [variant]) == .distantPast)

            #expect(try await store.archive.storeSample("a", data: Data("first".utf8)))

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10).map(
                    \.photoID) == ["b"])
            #expect(try await store.archive.storeSample("a", data: Data("second".utf8)) == false)
            #expect(try await store.archive.imageData(photoID: "a", variant: variant) == Data("first".utf8))
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesStored == 1 && statistics.imagesPending == 1 && statistics.imagesFailed == 0)
            #expect(statistics.bytesStored == Int64("first".utf8.count))
        }
    }

    @Test(
        "photos are listed in the order first stored, optionally only those with a stored image",
        arguments: Backend.allCases)
    func listsPhotoIDs(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("b"), Sample.photo("a"), Sample.photo("c")])
            #expect(try await store.archive.storeSample("a", data: Data("bytes".utf8)))
            #expect(try await store.catalog.photoIDs() == ["b", "a", "c"])
            #expect(try await store.catalog.photoIDs(withStoredImage: true) == ["a"])
        }
    }

    @Test(
        "a recommitted photo refreshes a pending job's URL but never reopens a stored one", arguments: Backend.allCases)
    func recommitRefreshesPendingURL(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a")

            try await store.ledger.commit([Sample.photo("a", revision: 1), Sample.photo("b", revision: 1)], next: 3)

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10) == [
                    ImageJob(photoID: "b", variant: variant, sourceURL: Sample.imageURL("b", revision: 1), attempts: 0)
                ])
            #expect(try await store.catalog.photo(id: "a")?.image?.variant == variant)
        }
    }

    @Test("a photo without a URL for the variant gets no job", arguments: Backend.allCases)
    func noURLNoJob(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", variants: [.raw])])

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10).isEmpty)
            #expect(try await store.imageQueue.nextImageRetry(variants: [variant]) == nil)
        }
    }

    @Test("a failure with a retry time keeps the job pending but not due before that time", arguments: Backend.allCases)
    func failureWithRetry(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])

            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 503", retryAt: Instant.t(60))

            #expect(try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t(59), limit: 10).isEmpty)
            #expect(try await store.imageQueue.nextImageRetry(variants: [variant]) == Instant.t(60))
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t(60), limit: 10) == [
                    ImageJob(photoID: "a", variant: variant, sourceURL: Sample.imageURL("a"), attempts: 1)
                ])
            #expect(try await store.catalog.statistics().imagesPending == 1)
            #expect(try await store.imageQueue.failedImages(limit: 10).isEmpty)
        }
    }

    @Test("a failure without a retry time fails the job: never due, counted and listed", arguments: Backend.allCases)
    func failureGivesUp(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "timeout", retryAt: Instant.t(1))

            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10).map(
                    \.photoID) == ["a"])
            #expect(
                try await store.imageQueue.failedImages(limit: 10) == [
                    ImageFailure(photoID: "b", variant: variant, attempts: 2, lastError: "HTTP 404")
                ])
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesFailed == 1 && statistics.imagesPending == 1 && statistics.imagesStored == 0)
        }
    }

    @Test("failures and stores for a job that does not exist are refused", arguments: Backend.allCases)
    func unknownJob(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            let path = store.path

            await #expect(throws: StoreError.unknownImageJob(path: path, photoID: "a", variant: .small)) {
                try await store.imageQueue.recordImageFailure(photoID: "a", variant: .small, error: "x", retryAt: nil)
            }
            await #expect(throws: StoreError.unknownImageJob(path: path, photoID: "zz", variant: variant)) {
                try await store.archive.storeSample("zz")
            }
        }
    }

    @Test(
        "switching variant queues the new variant for stored photos, from their JSON, once",
        arguments: Backend.allCases)
    func enqueueMissingVariant(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([
                Sample.photo("a"), Sample.photo("b"), Sample.photo("c", variants: [.raw, .regular]),
            ])
            try await store.archive.storeSample("a")

            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 2)

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [.small], now: Instant.t0, limit: 10) == [
                    ImageJob(
                        photoID: "a", variant: .small, sourceURL: Sample.imageURL("a", variant: .small), attempts: 0),
                    ImageJob(
                        photoID: "b", variant: .small, sourceURL: Sample.imageURL("b", variant: .small), attempts: 0),
                ])
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 0)
            #expect(try await store.imageQueue.enqueueMissingImages(variant: variant) == 0)
            #expect(try await store.catalog.statistics().imagesPending == 4)
        }
    }

    @Test(
        "downloads are tracked once per photo with a stored image and a download location",
        arguments: Backend.allCases)
    func downloadTracking(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([
                Sample.photo("a"), Sample.photo("b"), Sample.photo("c", downloadLocation: false),
            ])
            try await store.archive.storeSample("a")
            try await store.archive.storeSample("c")

            #expect(
                try await store.ledger.pendingDownloadTracking(limit: 10) == [
                    DownloadTrackingJob(photoID: "a", downloadLocation: "https://api.example.com/photos/a/download")
                ])

            try await store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(30))
            try await store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(40))

            #expect(try await store.ledger.pendingDownloadTracking(limit: 10).isEmpty)
            #expect(
                try await store.catalog.photo(id: "a")?.downloadTrackedAt == Instant.t(30), "the first time is kept")
            await #expect(throws: StoreError.unknownPhoto(path: store.path, photoID: "zz")) {
                try await store.ledger.markDownloadsTracked(photoIDs: ["b", "zz"], at: Instant.t(30))
            }
            #expect(
                try await store.catalog.photo(id: "b")?.downloadTrackedAt == nil,
                "a batch with an unknown photo marks none")
        }
    }

    @Test("a walk reads no photo an earlier walk took: it starts after the last one", arguments: Backend.allCases)
    func walkStartsAfterTheLastOne(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 2)
            // A job the walk would queue again, were it to read the photos it took already.
            try await behind.execute("DELETE FROM image WHERE photo_id = 'a' AND variant = 'small'")

            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 0)
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small, after: 0, photos: 10).queued == 1)
        }
    }
}
