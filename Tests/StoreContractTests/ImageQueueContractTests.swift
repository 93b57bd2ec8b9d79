import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

/// The image queue's contract (``ImageQueue``), held to on every store.
@Suite("The image queue, on every store")
struct ImageQueueContractTests {
    @Test("a page's photos queue their images, due in the order the photos came", arguments: Backend.allCases)
    func pagesQueueImagesInOrder(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("p", isPlus: true)])
            let due = try await queue.dueImageJobs(variants: [.regular], now: Instant.t0, limit: 10)
            #expect(due.map(\.photoID) == ["a", "b"], "an Unsplash+ photo gets no job")
            #expect(due.first?.sourceURL == Sample.imageURL("a") && due.first?.attempts == 0)
            #expect(try await queue.unattemptedImageCount(variants: [.regular]) == 2)
            #expect(try await queue.nextImageRetry(variants: [.regular]) == Date.distantPast)
            #expect(try await queue.imageCounts(variants: [.regular]) == ImageCounts(stored: 0, pending: 2, failed: 0))

            // AND a variant asked for later is queued from each photo's stored URLs
            #expect(try await queue.enqueueMissingImages(variant: .small) == 2)
            #expect(try await queue.enqueueMissingImages(variant: .small) == 0)
            #expect(try await queue.dueImageJobs(variants: [.small], now: Instant.t0, limit: 10).count == 2)
            // AND both variants' jobs are due photo by photo, a photo's variants one after another,
            // whichever was queued first
            let both = try await queue.dueImageJobs(variants: [.small, .regular], now: Instant.t0, limit: 3)
            #expect(both.map { "\($0.photoID) \($0.variant.rawValue)" } == ["a regular", "a small", "b regular"])
        }
    }

    @Test("a variant asked for later is queued in steps, each keeping what it queued", arguments: Backend.allCases)
    func missingImagesAreQueuedInSteps(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit(
                [Sample.photo("a"), Sample.photo("b"), Sample.photo("p", isPlus: true)]
                    + ["c", "d", "e"].map { Sample.photo($0) })
            func due() async throws -> [String] {
                try await queue.dueImageJobs(variants: [.small], now: Instant.t0, limit: 10).map(\.photoID)
            }
            // A cancelled walk stops before its first step.
            let cancelled = await withTaskGroup(of: Int?.self) { group in
                group.cancelAll()
                group.addTask { try? await queue.enqueueMissingImages(variant: .small, photosPerStep: 2) }
                return await group.next() ?? nil
            }
            #expect(cancelled == 0)
            #expect(try await due().isEmpty)

            // One step of two photos, all a walk stopped after it did, keeps its jobs.
            let first = try await queue.enqueueMissingImages(variant: .small, after: 0, photos: 2)
            #expect(first.queued == 2)
            let afterFirst = try #require(first.next, "photos are left after the first two")
            #expect(try await due() == ["a", "b"])

            // The next walk skips them and the Unsplash+ photo, and queues the rest.
            #expect(try await queue.enqueueMissingImages(variant: .small, photosPerStep: 2) == 3)
            #expect(try await due() == ["a", "b", "c", "d", "e"])
            let rest = try await queue.enqueueMissingImages(variant: .small, after: afterFirst, photos: 10)
            #expect(rest == MissingImagesStep(queued: 0, next: nil), "a step that reaches the last photo ends the walk")
        }
    }

    @Test(
        "a walk goes on after the last photo the one before it took, or from a photo a page listed again",
        arguments: Backend.allCases)
    func walksGoOnFromTheLastOne(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            // Sequences 1, 2 and 3: the stores number photos without gaps.
            try await ledger.commit([Sample.photo("a"), Sample.photo("p", isPlus: true), Sample.photo("b")])
            func due() async throws -> [String] {
                try await queue.dueImageJobs(variants: [.small], now: Instant.t0, limit: 10).map(\.photoID)
            }
            #expect(try await queue.queuedThrough(variant: .small) == 0, "no walk has run")
            // A step that begins past photos no walk took queues its own and records nothing.
            #expect(try await queue.enqueueMissingImages(variant: .small, after: 2, photos: 10).queued == 1)
            #expect(try await queue.queuedThrough(variant: .small) == 0)
            #expect(try await queue.enqueueMissingImages(variant: .small) == 1)
            #expect(try await queue.queuedThrough(variant: .small) == 3, "the walk took every photo")
            #expect(try await queue.enqueueMissingImages(variant: .regular) == 0)

            // A photo stored since comes after it, and a walk that finds nothing keeps it.
            try await ledger.commit([Sample.photo("c")])
            #expect(try await queue.enqueueMissingImages(variant: .small) == 1)
            #expect(try await queue.queuedThrough(variant: .small) == 4)
            #expect(try await queue.enqueueMissingImages(variant: .small) == 0)
            #expect(try await queue.queuedThrough(variant: .small) == 4)

            // WHEN a page that queues the regular variant lists the Unsplash+ photo again, free now
            try await ledger.commit([Sample.photo("c"), Sample.photo("p")])

            // THEN the small variant's walk goes back to before it, and the next walk queues it
            #expect(try await queue.queuedThrough(variant: .small) == 1)
            #expect(try await queue.queuedThrough(variant: .regular) == 3, "the page queued this variant itself")
            #expect(try await queue.enqueueMissingImages(variant: .small) == 1)
            #expect(try await due() == ["a", "p", "b", "c"])
            #expect(try await queue.queuedThrough(variant: .small) == 4)
        }
    }

    @Test("a transient failure waits for its time, a permanent one until requeued", arguments: Backend.allCases)
    func failuresWaitOrStop(_ backend: Backend) async throws {
        try await backend.withParts { ledger, queue in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await queue.recordImageFailure(
                photoID: "a", variant: .regular, error: "HTTP 503", retryAt: Instant.t(60))
            try await queue.recordImageFailure(photoID: "b", variant: .regular, error: "HTTP 404", retryAt: nil)

            #expect(try await queue.dueImageJobs(variants: [.regular], now: Instant.t(30), limit: 10).isEmpty)
            #expect(
                try await queue.dueImageJobs(variants: [.regular], now: Instant.t(60), limit: 10).map(\.attempts) == [1]
            )
            #expect(try await queue.nextImageRetry(variants: [.regular]) == Instant.t(60))
            #expect(try await queue.retryingImages(limit: 10).map(\.photoID) == ["a"])
            #expect(try await queue.failedImages(limit: 10).map(\.lastError) == ["HTTP 404"])
            var counts = try await queue.imageCounts(variants: [.regular])
            #expect(
                counts.pending == 1 && counts.failed == 1 && counts.retrying == 1 && counts.nextRetryAt == Instant.t(60)
            )

            // WHEN the transient ones are made due, and the failed photo is requeued
            #expect(try await queue.retryTransientFailures(now: Instant.t(10)) == 1)
            #expect(try await queue.requeue(.photos(["b"])) == RetryOutcome(requeued: 1))
            #expect(try await queue.requeue(.photos(["b"])) == RetryOutcome(requeued: 0, nothingToRetry: ["b"]))
            await #expect(throws: StoreError.self) { try await queue.requeue(.photos(["zz"])) }

            // THEN both are due
            counts = try await queue.imageCounts(variants: [.regular])
            #expect(counts.pending == 2 && counts.failed == 0)
            #expect(try await queue.dueImageJobs(variants: [.regular], now: Instant.t(10), limit: 10).count == 2)
        }
    }

    @Test("a failure of a job that does not exist is refused", arguments: Backend.allCases)
    func anUnknownJobsFailureIsRefused(_ backend: Backend) async throws {
        try await backend.withParts { _, queue in
            await #expect(throws: StoreError.self) {
                try await queue.recordImageFailure(photoID: "zz", variant: .regular, error: "x", retryAt: nil)
            }
        }
    }
}
