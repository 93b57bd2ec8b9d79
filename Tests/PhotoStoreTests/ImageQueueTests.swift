import Foundation
import GRDB
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("The image queue")
struct ImageQueueTests {
    let variant = Sample.variant

    @Test("a committed photo's image is due at once, and once stored is never due again")
    func pendingThenStored() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 10) == [
                    ImageJob(photoID: "a", variant: variant, sourceURL: Sample.imageURL("a"), attempts: 0),
                    ImageJob(photoID: "b", variant: variant, sourceURL: Sample.imageURL("b"), attempts: 0),
                ])
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 1).map(\.photoID)
                    == ["a"])
            #expect(try await store.imageQueue.nextImageRetry(variants: [variant]) == .distantPast)

            #expect(try await store.storeSample("a", data: Data("first".utf8)))

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10).map(
                    \.photoID) == ["b"])
            #expect(try await store.storeSample("a", data: Data("second".utf8)) == false)
            #expect(try await store.archive.imageData(photoID: "a", variant: variant) == Data("first".utf8))
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesStored == 1 && statistics.imagesPending == 1 && statistics.imagesFailed == 0)
            #expect(statistics.bytesStored == Int64("first".utf8.count))
        }
    }

    @Test("photos are listed in the order first stored, optionally only those with a stored image")
    func listsPhotoIDs() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("b"), Sample.photo("a"), Sample.photo("c")])
            #expect(try await store.storeSample("a", data: Data("bytes".utf8)))
            #expect(try await store.catalog.photoIDs() == ["b", "a", "c"])
            #expect(try await store.catalog.photoIDs(withStoredImage: true) == ["a"])
        }
    }

    @Test("a recommitted photo refreshes a pending job's URL but never reopens a stored one")
    func recommitRefreshesPendingURL() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.storeSample("a")

            try await store.commit([Sample.photo("a", revision: 1), Sample.photo("b", revision: 1)], next: 3)

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10) == [
                    ImageJob(photoID: "b", variant: variant, sourceURL: Sample.imageURL("b", revision: 1), attempts: 0)
                ])
            #expect(try await store.catalog.photo(id: "a")?.image?.variant == variant)
        }
    }

    @Test("a photo without a URL for the variant gets no job")
    func noURLNoJob() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a", variants: [.raw])])

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: .distantFuture, limit: 10).isEmpty)
            #expect(try await store.imageQueue.nextImageRetry(variants: [variant]) == nil)
        }
    }

    @Test("a failure with a retry time keeps the job pending but not due before that time")
    func failureWithRetry() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a")])

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

    @Test("a failure without a retry time fails the job: never due, counted and listed")
    func failureGivesUp() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
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

    @Test("failures and stores for a job that does not exist are refused")
    func unknownJob() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a")])
            let path = store.path

            await #expect(throws: StoreError.unknownImageJob(path: path, photoID: "a", variant: .small)) {
                try await store.imageQueue.recordImageFailure(photoID: "a", variant: .small, error: "x", retryAt: nil)
            }
            await #expect(throws: StoreError.unknownImageJob(path: path, photoID: "zz", variant: variant)) {
                try await store.storeSample("zz")
            }
        }
    }

    @Test("switching variant queues the new variant for stored photos, from their JSON, once")
    func enqueueMissingVariant() async throws {
        try await withStore { store, _ in
            try await store.commit([
                Sample.photo("a"), Sample.photo("b"), Sample.photo("c", variants: [.raw, .regular]),
            ])
            try await store.storeSample("a")

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

    @Test("a walk reads no photo an earlier walk took: it starts after the last one")
    func walkStartsAfterTheLastOne() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 2)
            // A job the walk would queue again, were it to read the photos it took already.
            try await store.pool.write { db in
                try db.execute(sql: "DELETE FROM image WHERE photo_id = 'a' AND variant = 'small'")
            }

            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 0)
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small, after: 0, photos: 10).queued == 1)
        }
    }

    @Test("downloads are tracked once per photo with a stored image and a download location")
    func downloadTracking() async throws {
        try await withStore { store, _ in
            try await store.commit([
                Sample.photo("a"), Sample.photo("b"), Sample.photo("c", downloadLocation: false),
            ])
            try await store.storeSample("a")
            try await store.storeSample("c")

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

    @Test("the tracking queue finds each photo's images by its id, not by scanning stored images")
    func trackingQueuePlan() async throws {
        try await withStore { store, _ in
            let plan = try await store.pool.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + SQLiteSyncLedger.pendingDownloadTrackingSQL, arguments: [64]
                ).map { $0["detail"] as String }
            }
            #expect(
                plan.contains { $0.contains("SEARCH image USING INDEX sqlite_autoindex_image_1 (photo_id=?)") },
                "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("marking a download tracked leaves the photo's search entry alone")
    func trackingDoesNotReindex() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.storeSample("a")
            try await store.storeSample("b")
            let changes = try await store.totalChanges {
                try await store.ledger.markDownloadsTracked(photoIDs: ["a", "b"], at: Instant.t(30))
            }
            // Two rows updated; under v4's trigger the search index was rewritten too (22).
            #expect(changes == 2)
        }
    }
}
