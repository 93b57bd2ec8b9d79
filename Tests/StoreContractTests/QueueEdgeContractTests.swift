import Foundation
import PhotoStore
import TestSupport
import Testing

/// The image queue's edges (``ImageQueue``): several variants at once, what counts as due,
/// retrying and unattempted, and what no failure or retry may reopen, on every store.
@Suite("The image queue's edges, on every store")
struct QueueEdgeContractTests {
    @Test(
        "due jobs of several variants come photo by photo, each photo's variants together", arguments: Backend.allCases)
    func severalVariantsPhotoByPhoto(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit([Sample.photo("b"), Sample.photo("a")])
            #expect(try await queue.enqueueMissingImages(variant: .small) == 2)
            let due = try await queue.dueImageJobs(variants: [.small, .regular], now: Instant.t0, limit: 10)
            #expect(due.map { "\($0.photoID) \($0.variant)" } == ["b regular", "b small", "a regular", "a small"])
            #expect(due.last?.sourceURL == Sample.imageURL("a", variant: .small))
            let first = try await queue.dueImageJobs(variants: [.small, .regular], now: Instant.t0, limit: 3)
            #expect(first.map(\.photoID) == ["b", "b", "a"])
            #expect(try await queue.dueImageJobs(variants: [.raw], now: Instant.t0, limit: 10).isEmpty)
            #expect(try await queue.dueImageJobs(variants: [], now: Instant.t0, limit: 10).isEmpty)
        }
    }

    @Test(
        "the next retry is of the variants asked: the earliest time, at once for a job never tried, none when none waits",
        arguments: Backend.allCases)
    func nextRetryOfTheVariantsAsked(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await queue.enqueueMissingImages(variant: .small) == 2)
            for (id, seconds) in [("a", 90.0), ("b", 30.0)] {
                try await queue.recordImageFailure(
                    photoID: id, variant: .regular, error: "503", retryAt: Instant.t(seconds))
            }
            #expect(try await queue.nextImageRetry(variants: [.regular]) == Instant.t(30))
            #expect(try await queue.nextImageRetry(variants: [.small]) == .distantPast)
            #expect(try await queue.nextImageRetry(variants: [.regular, .small]) == .distantPast)
            #expect(try await queue.nextImageRetry(variants: [.raw]) == nil)
            // Failed for good, a job waits for nothing.
            for id in ["a", "b"] {
                try await queue.recordImageFailure(photoID: id, variant: .regular, error: "404", retryAt: nil)
            }
            #expect(try await queue.nextImageRetry(variants: [.regular]) == nil)
        }
    }

    @Test(
        "only pending jobs never tried are unattempted: a requeued one again, a retrying one not; counted up to a limit",
        arguments: Backend.allCases)
    func unattemptedJobs(_ backend: Backend) async throws {
        try await backend.withStore { ledger, queue, archive in
            try await ledger.commit(["a", "b", "c", "d"].map { Sample.photo($0) })
            #expect(try await queue.enqueueMissingImages(variant: .small) == 4)
            try await queue.recordImageFailure(photoID: "a", variant: .regular, error: "503", retryAt: Instant.t(60))
            try await queue.recordImageFailure(photoID: "b", variant: .regular, error: "404", retryAt: nil)
            try await archive.storeSample("c")
            #expect(try await queue.unattemptedImageCount(variants: [.regular]) == 1)
            #expect(try await queue.unattemptedImageCount(variants: [.regular, .small]) == 5)
            #expect(try await queue.unattemptedImageCount(variants: [.raw]) == 0)
            // AND counted up to a limit, which is all the page walker asks
            #expect(try await queue.unattemptedImageCount(variants: [.regular, .small], upTo: 3) == 3)
            #expect(try await queue.unattemptedImageCount(variants: [.regular, .small], upTo: 6) == 5)
            #expect(try await queue.requeue(.all) == RetryOutcome(requeued: 2))
            #expect(try await queue.unattemptedImageCount(variants: [.regular]) == 3)
        }
    }

    @Test("a failure recorded for an image already stored, or pruned, leaves it as it is", arguments: Backend.allCases)
    func aFailureLeavesAStoredImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a", fetchedAt: Instant.t(1))
            try await store.archive.storeSample("b", fetchedAt: Instant.t(2))
            #expect(try await store.archive.prune(toFit: 4).map(\.photoID) == ["a"])
            for id in ["a", "b"] {
                try await store.imageQueue.recordImageFailure(
                    photoID: id, variant: Sample.variant, error: "late 404", retryAt: nil)
                try await store.imageQueue.recordImageFailure(
                    photoID: id, variant: Sample.variant, error: "late 503", retryAt: Instant.t(60))
            }
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesStored == 1 && statistics.imagesPruned == 1)
            #expect(statistics.imagesFailed == 0 && statistics.imagesPending == 0 && statistics.imagesRetrying == 0)
            #expect(try await store.imageQueue.failedImages(limit: 10).isEmpty)
            #expect(try await store.imageQueue.retryingImages(limit: 10).isEmpty)
            #expect(try await store.archive.imageData(photoID: "b", variant: nil) == Data("jpeg".utf8))
        }
    }

    @Test(
        "retrying images are listed soonest first, failed ones in the photos' order, each at most as many as asked",
        arguments: Backend.allCases)
    func failureListsInOrder(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit(["a", "b", "c", "d", "e", "f"].map { Sample.photo($0) })
            for (id, seconds) in [("a", 300.0), ("b", 100.0), ("c", 200.0)] {
                try await queue.recordImageFailure(
                    photoID: id, variant: .regular, error: "503 \(id)", retryAt: Instant.t(seconds))
            }
            for id in ["f", "d", "e"] {
                try await queue.recordImageFailure(photoID: id, variant: .regular, error: "404 \(id)", retryAt: nil)
            }
            let retrying = try await queue.retryingImages(limit: 2)
            #expect(retrying.map(\.photoID) == ["b", "c"])
            #expect(retrying.map(\.nextAttemptAt) == [Instant.t(100), Instant.t(200)])
            #expect(try await queue.failedImages(limit: 2).map(\.photoID) == ["d", "e"])
            #expect(try await queue.failedImages(limit: 10).map(\.lastError) == ["404 d", "404 e", "404 f"])
            #expect(try await queue.failedImages(limit: 10).allSatisfy { $0.nextAttemptAt == nil })
        }
    }

    @Test("a run's retry counts only the retries it brought forward", arguments: Backend.allCases)
    func retryNowCountsWhatItMoves(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
            try await queue.recordImageFailure(photoID: "a", variant: .regular, error: "503", retryAt: Instant.t(10))
            try await queue.recordImageFailure(photoID: "b", variant: .regular, error: "503", retryAt: Instant.t(500))
            #expect(try await queue.retryTransientFailures(now: Instant.t(100)) == 1, "a was due already")
            #expect(try await queue.retryTransientFailures(now: Instant.t(100)) == 0)
            let due = try await queue.dueImageJobs(variants: [.regular], now: Instant.t(100), limit: 10)
            #expect(due.map(\.photoID) == ["a", "b", "c"] && due.map(\.attempts) == [1, 1, 0])
            #expect(try await queue.nextImageRetry(variants: [.regular]) == .distantPast, "c was never tried")
            #expect(try await queue.retryingImages(limit: 10).map(\.nextAttemptAt) == [Instant.t(10), Instant.t(100)])
        }
    }

    @Test(
        "a retry requeues no image that was pruned, even one that failed before it was stored",
        arguments: Backend.allCases)
    func aRetryNeverReopensAPrunedImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            for (index, id) in ["a", "b"].enumerated() {
                try await store.imageQueue.recordImageFailure(
                    photoID: id, variant: Sample.variant, error: "503", retryAt: Instant.t(5))
                try await store.archive.storeSample(id, fetchedAt: Instant.t(Double(index)))
            }
            #expect(try await store.archive.prune(toFit: 4).map(\.photoID) == ["a"])

            #expect(try await store.imageQueue.requeue(.transient) == RetryOutcome())
            #expect(try await store.imageQueue.requeue(.all) == RetryOutcome())
            #expect(try await store.imageQueue.requeue(.photos(["a"])) == RetryOutcome(nothingToRetry: ["a"]))

            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: .distantFuture, limit: 10)
                    .isEmpty, "a pruned image is never fetched again")
            #expect(try await store.archive.prunedImage(photoID: "a", variant: Sample.variant) != nil)
            #expect(try await store.imageQueue.imageCounts(variants: [Sample.variant]).pending == 0)
        }
    }

    @Test(
        "a walk's step that takes exactly the photos left still says where to go on; the next step ends it",
        arguments: Backend.allCases)
    func aStepReachingTheEnd(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit(["a", "b", "c", "d"].map { Sample.photo($0) })
            #expect(
                try await queue.enqueueMissingImages(variant: .small, after: 0, photos: 2) == .init(queued: 2, next: 2))
            #expect(
                try await queue.enqueueMissingImages(variant: .small, after: 2, photos: 2) == .init(queued: 2, next: 4))
            #expect(
                try await queue.enqueueMissingImages(variant: .small, after: 4, photos: 2)
                    == .init(queued: 0, next: nil))
            #expect(try await queue.queuedThrough(variant: .small) == 4)
        }
    }

    @Test(
        "a URL escaped in the photo's JSON is queued as its text, by a page's further variants and by a walk",
        arguments: Backend.allCases)
    func escapedURLsAreQueuedAsText(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            var photo = Sample.photo("a")
            photo.json = Data(
                #"""
                {"id": "a", "urls": {"regular": "https:\/\/images.example.com\/a?w=1080\u0026q=80",
                 "small": "https:\/\/images.example.com\/a?w=400\u0026q=80", "thumb": "https:\/\/images.example.com\/a?w=200\u0026fit=max",
                 "raw": 7}}
                """#.utf8)
            try await ledger.commitPage(
                [photo], rejected: [], variant: .regular, moreVariants: [.small, .raw], source: .feed, now: Instant.t0
            ) { _ in .backfill(next: nil) }
            #expect(try await queue.enqueueMissingImages(variant: .thumb) == 1)
            let due = try await queue.dueImageJobs(variants: ImageVariant.allCases, now: Instant.t0, limit: 10)
            #expect(
                Dictionary(uniqueKeysWithValues: due.map { ($0.variant, $0.sourceURL) }) == [
                    .regular: Sample.imageURL("a"), .small: "https://images.example.com/a?w=400&q=80",
                    .thumb: "https://images.example.com/a?w=200&fit=max",
                ], "a number is no URL: raw gets no job")
        }
    }

    @Test(
        "image counts are of the variants asked, and several variants are counted together", arguments: Backend.allCases
    )
    func countsByVariant(_ backend: Backend) async throws {
        try await backend.withStore { ledger, queue, archive in
            try await ledger.commit(["a", "b"].map { Sample.photo($0) })
            #expect(try await queue.enqueueMissingImages(variant: .small) == 2)
            try await archive.storeSample("a", variant: .small)
            try await queue.recordImageFailure(photoID: "b", variant: .small, error: "404", retryAt: nil)
            try await queue.recordImageFailure(photoID: "a", variant: .regular, error: "503", retryAt: Instant.t(9))
            #expect(try await queue.imageCounts(variants: [.small]) == ImageCounts(stored: 1, pending: 0, failed: 1))
            #expect(
                try await queue.imageCounts(variants: [.regular])
                    == ImageCounts(stored: 0, pending: 2, failed: 0, retrying: 1, nextRetryAt: Instant.t(9)))
            #expect(
                try await queue.imageCounts(variants: [.regular, .small])
                    == ImageCounts(stored: 1, pending: 2, failed: 1, retrying: 1, nextRetryAt: Instant.t(9)))
            #expect(try await queue.imageCounts(variants: [.raw]) == ImageCounts(stored: 0, pending: 0, failed: 0))
        }
    }
}
