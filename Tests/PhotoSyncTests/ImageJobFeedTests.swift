import Foundation
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import Testing

@testable import PhotoSync

@Suite(.timeLimit(.minutes(5))) struct ImageJobFeedTests {
    /// With two variants a photo's jobs are handed out one at a time. When the writer settles
    /// the first while the feed is reading the queue, that read may still show it pending: the
    /// feed leaves the photo out of that read, and must read again, or a `run --once` ends with
    /// the second variant never fetched.
    @Test func aPhotoSettledDuringAReadHasItsNextVariantHandedOutByTheNextRead() async throws {
        // GIVEN one photo queued in two variants, and a queue whose armed read lets the writer
        // settle the photo's first job once it has read it as pending
        let harness = try SyncHarness(photos: 1)
        defer { harness.removeDirectory() }
        let variants: [ImageVariant] = [.regular, .small]
        let stages = Stages(harness) { $0.variants = variants }
        _ = try await stages.walker().backfill(maxPages: nil)
        let id = try #require(harness.fake.ids.first)
        let queue = ReadHookQueue(base: harness.store.imageQueue)
        let feed = ImageJobFeed(
            round: stages.round(store: harness.store.replacing(imageQueue: queue)), variants: variants, capacity: 4,
            clock: harness.clock, retries: RetriesWithinRun(configuration: stages.configuration, withinRun: true),
            disk: DiskReserveWatch(probe: { nil }, recheckInterval: .seconds(1)),
            reserve: stages.configuration.minFreeDisk)
        feed.walkFinished()
        let running = Task { try await feed.run() }

        // WHEN the first job is stored and settled in the middle of the feed's next read
        let first = await feed.jobs.next()
        #expect(first?.variant == .regular)
        queue.armNextRead { [store = harness.store, now = harness.wallClock.now] in
            try await store.archive.storeImage(
                photoID: id, variant: .regular, contentType: "image/jpeg", data: FakeUnsplash.imageBytes(id),
                sha256: FakeUnsplash.sha256(id), fetchedAt: now)
            feed.settled([id])
        }
        feed.jobsAdded()

        // THEN the next read hands out the second variant, and the feed ends once that settles
        let second = await feed.jobs.next()
        #expect(second?.photoID == id && second?.variant == .small)
        #expect(queue.armedReadsDone == 1)
        try await harness.store.archive.storeImage(
            photoID: id, variant: .small, contentType: "image/jpeg", data: FakeUnsplash.imageBytes(id),
            sha256: FakeUnsplash.sha256(id), fetchedAt: harness.wallClock.now)
        feed.settled([id])
        try await running.value
        #expect(await feed.jobs.next() == nil)
    }

    /// The feed reads up to its queue's capacity of jobs at once; the disk may fill while they
    /// are handed out. It looks before each one, so none is handed out below the reserve.
    @Test func aDiskThatFillsDuringAReadStopsTheRestOfItsJobs() async throws {
        // GIVEN ten photos queued, and a disk with room for its first four looks, then full
        let harness = try SyncHarness(photos: 10)
        defer { harness.removeDirectory() }
        let stages = Stages(harness)
        _ = try await stages.walker().backfill(maxPages: nil)
        let looks = Atomic<Int>(0)
        let disk = DiskReserveWatch(
            probe: {
                let look = looks.add(1, ordering: .relaxed).newValue
                return DiskSpace(available: look <= 4 ? 1 << 40 : 0, total: 1 << 41)
            }, recheckInterval: .seconds(1))
        let feed = ImageJobFeed(
            round: stages.round(store: harness.store), variants: [.regular], capacity: 8, clock: harness.clock,
            retries: RetriesWithinRun(configuration: stages.configuration, withinRun: true), disk: disk,
            reserve: .standard)
        feed.walkFinished()
        let running = Task { try await feed.run() }

        // WHEN every job handed out is taken and settled, as the downloads would
        var handedOut: [String] = []
        while let job = await feed.jobs.next() {
            handedOut.append(job.photoID)
            feed.settled([job.photoID])
        }

        // THEN the read of eight handed out four, one per look with room, and the run ended paused
        try await running.value
        #expect(handedOut.count == 4 && Set(handedOut).count == 4, "\(handedOut)")
        #expect(disk.last.pause != nil)
    }
}

/// The store's image queue, with a hook run once right after a read of due jobs, before the
/// read's result reaches the caller: the moment a concurrent commit makes that result stale.
private final class ReadHookQueue: ImageQueue {
    let base: any ImageQueue
    private let hook = Mutex<(@Sendable () async throws -> Void)?>(nil)
    private let done = Atomic<Int>(0)

    init(base: any ImageQueue) { self.base = base }

    func armNextRead(_ action: @escaping @Sendable () async throws -> Void) {
        hook.withLock { $0 = action }
    }

    var armedReadsDone: Int { done.load(ordering: .relaxed) }

    func dueImageJobs(variants: [ImageVariant], now: Date, limit: Int) async throws(StoreError) -> [ImageJob] {
        let jobs = try await base.dueImageJobs(variants: variants, now: now, limit: limit)
        if let action = hook.withLock({ hook in
            defer { hook = nil }
            return hook
        }) {
            do { try await action() } catch { Issue.record(error) }
            done.add(1, ordering: .relaxed)
        }
        return jobs
    }

    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep
    {
        try await base.enqueueMissingImages(variant: variant, after: sequence, photos: limit)
    }
    func queuedThrough(variant: ImageVariant) async throws(StoreError) -> Int64 {
        try await base.queuedThrough(variant: variant)
    }
    func nextImageRetry(variants: [ImageVariant]) async throws(StoreError) -> Date? {
        try await base.nextImageRetry(variants: variants)
    }
    func unattemptedImageCount(variants: [ImageVariant], upTo limit: Int) async throws(StoreError) -> Int {
        try await base.unattemptedImageCount(variants: variants, upTo: limit)
    }
    func recordImageFailure(photoID: String, variant: ImageVariant, error: String, retryAt: Date?)
        async throws(StoreError)
    {
        try await base.recordImageFailure(photoID: photoID, variant: variant, error: error, retryAt: retryAt)
    }
    func failedImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await base.failedImages(limit: limit)
    }
    func retryingImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await base.retryingImages(limit: limit)
    }
    func retryTransientFailures(now: Date) async throws(StoreError) -> Int {
        try await base.retryTransientFailures(now: now)
    }
    func requeue(_ request: RetryRequest) async throws(StoreError) -> RetryOutcome {
        try await base.requeue(request)
    }
    func imageCounts(variants: [ImageVariant]) async throws(StoreError) -> ImageCounts {
        try await base.imageCounts(variants: variants)
    }
}

extension PhotoStore {
    /// The same store with another image queue.
    fileprivate func replacing(imageQueue: any ImageQueue) -> PhotoStore {
        PhotoStore(
            path: path, ledger: ledger, imageQueue: imageQueue, archive: archive, catalog: catalog,
            photoDetails: photoDetails, storage: storage, files: files, transfer: transfer,
            holdsWriterRole: holdsWriterRole)
    }
}
