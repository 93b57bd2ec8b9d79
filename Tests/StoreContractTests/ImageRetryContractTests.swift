import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Failed images: classified, retried, requeued, on every store")
struct ImageRetryContractTests {
    let variant = Sample.variant

    @Test(
        "a transient failure waits pending for its retry; a permanent one fails; each class is counted",
        arguments: Backend.allCases)
    func failuresAreClassified(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])

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

    @Test("a run makes every transient failure due now and leaves permanent ones failed", arguments: Backend.allCases)
    func retryTransientFailuresNow(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
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

    @Test(
        "retry requeues the transient failures; --all the permanent ones too; each as a new job",
        arguments: Backend.allCases)
    func requeue(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
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

    @Test(
        "retry by id requeues either class and names photos with nothing to retry; an unknown id requeues nothing",
        arguments: Backend.allCases)
    func requeueByID(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.imageQueue.recordImageFailure(
                photoID: "a", variant: variant, error: "HTTP 404", retryAt: nil)
            try await store.imageQueue.recordImageFailure(
                photoID: "b", variant: variant, error: "HTTP 404", retryAt: nil)
            try await store.archive.storeSample("c")

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
}
