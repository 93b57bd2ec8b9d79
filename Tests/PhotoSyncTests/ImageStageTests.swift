import Foundation
import GRDB
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

@testable import PhotoSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ImageFetcherTests {
    @Test func fetchesIntoTheSpoolAndNamesWhatFailedAndWhetherForGood() async throws {
        // GIVEN three queued images: one fine, one answering 503, one gone (404)
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        _ = try await stages.walker().backfill(maxPages: nil)
        let ids = harness.fake.ids
        harness.fake.state.withLock { $0.failingImages = [ids[1]: (503, 1), ids[2]: (404, 1)] }
        let jobs = BoundedQueue<ImageJob>(capacity: 10)
        let outcomes = BoundedQueue<ImageOutcome>(capacity: 10)
        for job in try await stages.dueJobs() { try await jobs.send(job) }
        jobs.finish()

        // WHEN the fetcher runs
        try await stages.fetcher().run(jobs: jobs, outcomes: outcomes)

        // THEN every job has an outcome, and nothing was written to the store
        var results: [String: ImageOutcome] = [:]
        while let outcome = outcomes.poll() { results[outcome.job.photoID] = outcome }
        guard case .fetched(_, let body, let mediaType)? = results[ids[0]] else {
            Issue.record("not fetched")
            return
        }
        #expect(body.sha256 == FakeUnsplash.sha256(ids[0]) && mediaType == "image/jpeg")
        guard case .failed(_, let reason, let permanent)? = results[ids[1]] else {
            Issue.record("no failure")
            return
        }
        #expect(reason.contains("503") && !permanent)
        guard case .failed(_, _, let gone)? = results[ids[2]] else {
            Issue.record("no failure")
            return
        }
        #expect(gone)
        #expect(try await harness.store.imageQueue.unattemptedImageCount(variants: [.regular]) == 3)
        for image in results.values { image.discard() }
        #expect(harness.spoolFiles.isEmpty)
    }
}

@Suite struct ImageWriterTests {
    /// Fetched outcomes for every queued image, as the fetchers would send them.
    func fetchedOutcomes(_ stages: Stages) async throws -> [ImageOutcome] {
        _ = try await stages.walker().backfill(maxPages: nil)
        let fetcher = stages.fetcher()
        var outcomes: [ImageOutcome] = []
        for job in try await stages.dueJobs() { outcomes.append(try await fetcher.fetch(job)) }
        return outcomes
    }

    @Test func commitsManyImagesPerTransactionAndRemovesTheirSpoolFiles() async throws {
        // GIVEN 20 fetched images waiting for the writer (most over 2 KB, so in spool files)
        let harness = try SyncHarness(photos: 20)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        let queue = BoundedQueue<ImageOutcome>(capacity: 100)
        for outcome in try await fetchedOutcomes(stages) { try await queue.send(outcome) }
        #expect(!harness.spoolFiles.isEmpty)
        queue.finish()
        let settled = Shared<[String]>([])

        // WHEN the writer runs
        try await stages.writer(committed: { ids, _ in settled.withLock { $0 += ids } }).run(queue)

        // THEN one transaction stored them all, byte-exact, and left no file
        let progress = await stages.progress.progress
        #expect(progress.imageBatches == 1 && progress.imagesStored == 20)
        #expect(settled.value.sorted() == harness.fake.ids.sorted())
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.spoolFiles.isEmpty)
        #expect(try await harness.store.archive.verify().problems.isEmpty)
    }

    @Test func aBatchIsCappedInBytes() async throws {
        let harness = try SyncHarness(photos: 12)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        let queue = BoundedQueue<ImageOutcome>(capacity: 100)
        for outcome in try await fetchedOutcomes(stages) { try await queue.send(outcome) }
        queue.finish()
        var writer = stages.writer()
        writer.maxBatchBytes = 1  // every image fills a batch on its own

        try await writer.run(queue)

        let progress = await stages.progress.progress
        #expect(progress.imageBatches == 12 && progress.imagesStored == 12)
    }

    @Test func failuresCommitWithTheBatchAndGetTheirRetryTime() async throws {
        let harness = try SyncHarness(photos: 2)
        defer { harness.removeDirectory() }
        let stages = Stages(harness) { $0.imageRetryDelay = .seconds(30) }
        let jobs = try await { () async throws -> [ImageJob] in
            _ = try await stages.walker().backfill(maxPages: nil)
            return try await stages.dueJobs()
        }()
        let queue = BoundedQueue<ImageOutcome>(capacity: 10)
        try await queue.send(.failed(jobs[0], reason: "503", permanent: false))
        try await queue.send(.failed(jobs[1], reason: "404", permanent: true))
        queue.finish()

        try await stages.writer().run(queue)

        #expect(
            try await harness.store.imageQueue.nextImageRetry(variants: [.regular])
                == harness.wallClock.now.addingTimeInterval(30))
        #expect(try await harness.store.imageQueue.failedImages(limit: 5).map(\.photoID) == [jobs[1].photoID])
        #expect(await stages.progress.progress.imageBatches == 1)
    }

    @Test func whatAStoppedWriterLeavesIsRemovedNotStored() async throws {
        let harness = try SyncHarness(photos: 10)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        let queue = BoundedQueue<ImageOutcome>(capacity: 100)
        for outcome in try await fetchedOutcomes(stages) { try await queue.send(outcome) }
        let writer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await stages.writer().run(queue)
        }
        await #expect(throws: CancellationError.self) { try await writer.value }
        #expect(harness.spoolFiles.isEmpty)
        #expect(try await harness.store.catalog.statistics().imagesStored == 0)
    }
}

@Suite struct DownloadTrackerTests {
    /// Stores every photo of the harness's feed with its image, as a sync would have.
    static func storeEveryImage(_ stages: Stages) async throws {
        let harness = stages.harness
        _ = try await stages.walker().backfill(maxPages: nil)
        for id in harness.fake.ids {
            try await harness.store.archive.storeImage(
                photoID: id, variant: .regular, contentType: "image/jpeg", data: FakeUnsplash.imageBytes(id),
                sha256: FakeUnsplash.sha256(id), fetchedAt: harness.wallClock.now)
        }
    }

    @Test func sendsTrackingRequestsConcurrentlyAndEachOnce() async throws {
        // GIVEN 20 stored images, and an API that takes 20 ms per tracking answer
        let harness = try SyncHarness(photos: 20)
        defer { harness.removeDirectory() }
        let stages = Stages(harness) { $0.trackingConcurrency = 5 }
        try await Self.storeEveryImage(stages)
        // The first answers are held until 5 requests are in flight at once, so the count does
        // not depend on the machine's speed; a tracker that never sends 5 at once times out.
        let concurrent = Shared((now: 0, most: 0))
        let gate = Gate(opensAt: 5)
        let session = MockURLSession { [fake = harness.fake] request in
            concurrent.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            defer { concurrent.withLock { $0.now -= 1 } }
            await gate.arrive()
            return try fake.answer(request)
        }
        let tracker = stages.tracker(session: session)

        // WHEN the tracker runs to the end
        tracker.writerFinished()
        struct NeverFiveAtOnce: Error {}
        try await withDeadline(.seconds(300), failure: NeverFiveAtOnce()) { try await tracker.run() }

        // THEN every download was tracked once, up to 5 at a time, and recorded
        #expect(harness.fake.ids.allSatisfy { harness.fake.trackings($0) == 1 })
        #expect(concurrent.value.most == 5)
        #expect(try await harness.store.ledger.pendingDownloadTracking(limit: 100).isEmpty)
        #expect(await stages.progress.progress.downloadsTracked == 20)
        let again = stages.tracker()
        again.writerFinished()
        try await again.run()
        #expect(harness.fake.trackingRequests == 20, "a second run resends nothing")
    }

    @Test func aRequestsSlotIsFreeWhileItsRecordWaitsForTheDatabase() async throws {
        // GIVEN 12 stored images (one batch of the tracker's reads), a tracker that sends 2 requests
        // at a time, and another connection holding the database's write lock (as the image
        // writer holds it during a sync)
        let harness = try SyncHarness(photos: 12)
        defer { harness.removeDirectory() }
        let stages = Stages(harness) { $0.trackingConcurrency = 2 }
        try await Self.storeEveryImage(stages)
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: harness.store.path, configuration: holding)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let (allSent, sent) = AsyncStream.makeStream(of: Void.self)
        let count = Shared(0)
        let session = MockURLSession { [fake = harness.fake] request in
            let arrived = count.withLock {
                $0 += 1
                return $0
            }
            if arrived == 12 { sent.finish() }
            return try fake.answer(request)
        }
        let tracker = stages.tracker(session: session)
        tracker.writerFinished()
        let running = Task { try await tracker.run() }

        // WHEN the lock is held, every request is sent: a tracker whose slots wait for their
        // records sends 2, then times out on the lock
        struct SlotsWaitForRecords: Error {}
        try await withDeadline(.seconds(300), failure: SlotsWaitForRecords()) { for await _ in allSent {} }
        #expect(try await harness.store.ledger.pendingDownloadTracking(limit: 100).count == 12)

        // THEN once it is let go, all 12 are recorded, each sent once
        try await other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        try await running.value
        #expect(try await harness.store.ledger.pendingDownloadTracking(limit: 100).isEmpty)
        #expect(harness.fake.trackingRequests == 12)
    }

    @Test func waitsForStoredImagesUntilTheWriterIsDone() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        _ = try await stages.walker().backfill(maxPages: nil)
        let tracker = stages.tracker()
        let running = Task { try await tracker.run() }
        for _ in 0..<50 { await Task.yield() }
        let id = harness.fake.ids[0]
        try await harness.store.archive.storeImage(
            photoID: id, variant: .regular, contentType: "image/jpeg", data: FakeUnsplash.imageBytes(id),
            sha256: FakeUnsplash.sha256(id), fetchedAt: harness.wallClock.now)
        tracker.imagesStored()
        try await harness.fake.until { $0.tracked[id] == 1 }
        tracker.writerFinished()
        try await running.value
        #expect(harness.fake.trackingRequests == 1)
    }
}

/// Holds every arrival until `opensAt` have arrived, then lets all through, then every later one.
actor Gate {
    private let opensAt: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    init(opensAt: Int) {
        self.opensAt = opensAt
    }

    func arrive() async {
        if isOpen { return }
        if waiting.count + 1 >= opensAt {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
