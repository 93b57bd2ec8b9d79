import Foundation
import GRDB
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Failed images: classified, retried, requeued")
struct ImageRetryTests {
    let variant = Sample.variant

    @Test("a transient failure waits pending for its retry; a permanent one fails; each class is counted")
    func failuresAreClassified() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])

            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 503", retryAt: Instant.t(600))
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)

            let counts = try await store.imageQueue.imageCounts(variants: [variant])
            #expect(
                counts == ImageCounts(stored: 0, pending: 2, failed: 1, retrying: 1, nextRetryAt: Instant.t(600)))
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesRetrying == 1 && statistics.nextImageRetryAt == Instant.t(600))
            #expect(
                try await store.imageQueue.retryingImages(limit: 10) == [
                    ImageFailure(
                        photoID: "a", variant: variant, attempts: 1, lastError: "HTTP 503",
                        nextAttemptAt: Instant.t(600))
                ])
            #expect(
                try await store.imageQueue.failedImages(limit: 10) == [
                    ImageFailure(photoID: "b", variant: variant, attempts: 1, lastError: "HTTP 404")
                ])
        }
    }

    @Test("a run makes every transient failure due now and leaves permanent ones failed")
    func retryTransientFailuresNow() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 503", retryAt: Instant.t(6 * 3600))
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)

            #expect(try await store.imageQueue.retryTransientFailures(now: Instant.t(5)) == 1)

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t(5), limit: 10) == [
                    ImageJob(photoID: "a", variant: variant, sourceURL: Sample.imageURL("a"), attempts: 1)
                ])
        }
    }

    @Test("retry requeues the transient failures; --all the permanent ones too; each as a new job")
    func requeue() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 503", retryAt: Instant.t(600))
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)

            #expect(try await store.imageQueue.requeue(.transient) == RetryOutcome(requeued: 1))
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 10).map(\.photoID)
                    == ["a", "c"])
            let requeued = try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 10)
            #expect(requeued[0].attempts == 0)
            #expect(try await store.imageQueue.imageCounts(variants: [variant]).failed == 1)

            #expect(try await store.imageQueue.requeue(.all) == RetryOutcome(requeued: 1))
            #expect(
                try await store.imageQueue.imageCounts(variants: [variant])
                    == ImageCounts(stored: 0, pending: 3, failed: 0))
        }
    }

    @Test("retry by id requeues either class and names photos with nothing to retry; an unknown id requeues nothing")
    func requeueByID() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 404", retryAt: nil)
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)
            try await store.storeSample("c")

            await #expect(throws: StoreError.unknownPhoto(path: store.path, photoID: "zz")) {
                try await store.imageQueue.requeue(.photos(["a", "zz"]))
            }
            #expect(try await store.imageQueue.imageCounts(variants: [variant]).failed == 2, "all or nothing")

            #expect(
                try await store.imageQueue.requeue(.photos(["a", "c"]))
                    == RetryOutcome(requeued: 1, nothingToRetry: ["c"]))
            #expect(try await store.imageQueue.failedImages(limit: 10).map(\.photoID) == ["b"])
        }
    }

    @Test("v9 gives every image failed before it one more try, as a transient failure due at once")
    func migrationRetriesOldFailures() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v7 an index of Unsplash+ photos")
            try await queue.write { db in
                for (id, sequence) in [("a", 1), ("b", 2), ("c", 3)] {
                    try db.execute(
                        sql: """
                            INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                            VALUES (?, ?, 0, '{}', '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000')
                            """,
                        arguments: [id, sequence])
                }
                try db.execute(
                    sql: """
                        INSERT INTO image (photo_id, variant, source_url, status, attempts, last_error, next_attempt_at)
                        VALUES ('a', 'regular', 'u', 'failed', 5, 'HTTP 503', NULL),
                               ('b', 'regular', 'u', 'pending', 2, 'timeout', '2025-01-01 00:10:00.000'),
                               ('c', 'regular', 'u', 'pending', 0, NULL, NULL)
                        """)
            }
            try queue.close()

            let store = try PhotoStore(path: path)

            let counts = try await store.imageQueue.imageCounts(variants: [.regular])
            #expect(counts.failed == 0 && counts.pending == 3 && counts.retrying == 2)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [.regular], now: Instant.t0, limit: 10)
                    .map(\.photoID) == ["a", "c"])
        }
    }
}
