import Foundation
import Logging
import Networking
import PhotoStore
import Synchronization
import UnsplashAPI

/// Mirrors Unsplash's feed into a ``PhotoStore``, as a pipeline of stages that run at once:
///
/// 1. ``PageWalker`` walks the feed and commits each page, which queues its images;
/// 2. ``ImageJobFeed`` hands the due image jobs to ``ImageFetcher``, which downloads
///    ``SyncConfiguration/concurrency`` of them at once into the spool;
/// 3. ``ImageWriter`` group-commits what they fetched, many images per transaction;
/// 4. ``DownloadTracker`` tells Unsplash about each stored image, a few requests at once.
///
/// Stages are connected by bounded queues, and the walker waits while more than
/// ``SyncConfiguration/pagesAhead`` pages of images wait for their first download, so memory and
/// the walker's lead stay bounded. Pages and tracking share one ``RateLimitBudget`` that counts
/// requests in flight.
///
/// The engine wires the pipeline and runs its rounds (``runOnce(maxPages:)``, or the daemon's
/// ``run()``); the store's upkeep is ``StoreMaintenance``'s, the idle part of it a service of its
/// own (``maintainWhileIdle(times:)``) beside ``run()``.
///
/// Crash safety: each page's photos commit in one transaction with the cursor that records the
/// page, and each image's bytes commit in the same transaction as the status that marks it
/// stored. A process killed at any moment re-fetches at most one page and the images not yet
/// committed, and never stores anything twice; a tracking request answered is recorded at once.
public final class SyncEngine: Sendable {
    let store: PhotoStore
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let logger: Logger
    let budget: RateLimitBudget
    let progressTracker: ProgressTracker
    let hostPolicy: ImageHostPolicy
    let spool: BodySpool
    let sourceBackoff = SourceBackoff()
    let objectRetries = ObjectRetries()
    /// A number in 0..<1 for the jitter of each image backoff.
    let imageBackoffRandom: @Sendable () -> Double
    let disk: DiskReserveWatch
    /// The spool, the storage budget, and the idle vacuum and checkpoint.
    let maintenance: StoreMaintenance
    /// Signalled each time the daemon goes idle after a round: ``maintainWhileIdle()`` waits for it.
    let becameIdle = WakeSignal()
    private let running = Mutex<Pipeline?>(nil)
    /// What ``reconfigure(_:repository:)`` may replace; `generation` counts the replacements.
    private let current: Mutex<(configuration: SyncConfiguration, repository: PhotoRepository, generation: Int)>
    /// Wakes the idle daemon when it was reconfigured.
    private let reconfigured = WakeSignal()

    /// What the sync does now: the configuration it was made with, or the last one given to
    /// ``reconfigure(_:repository:)``. A round reads it once, when it begins.
    public var configuration: SyncConfiguration { current.withLock { $0.configuration } }
    var repository: PhotoRepository { current.withLock { $0.repository } }
    private var generation: Int { current.withLock { $0.generation } }

    /// - Parameters:
    ///   - spool: where image bodies land while they are checked; its directory must be the
    ///     engine's alone, since every run empties it of what a killed run left.
    ///   - diskSpace: the room left beside the database, asked before downloads are handed out;
    ///     by default the file system's (``DiskSpace/probe(forFileAt:)``).
    public init(
        repository: PhotoRepository,
        store: PhotoStore,
        spool: BodySpool,
        configuration: SyncConfiguration,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger,
        imageBackoffRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        diskSpace: (@Sendable () -> DiskSpace?)? = nil,
        onProgress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.imageBackoffRandom = imageBackoffRandom
        let path = store.path
        self.disk = DiskReserveWatch(
            probe: diskSpace ?? { DiskSpace.probe(forFileAt: path) }, recheckInterval: configuration.diskRecheckInterval
        )
        self.current = Mutex((configuration, repository, 0))
        self.store = store
        self.spool = spool
        self.clock = clock
        self.now = now
        self.logger = logger
        self.progressTracker = ProgressTracker(observer: onProgress)
        self.maintenance = StoreMaintenance(store: store, disk: disk, logger: logger, progress: progressTracker)
        self.hostPolicy = ImageHostPolicy(allowedHosts: configuration.allowedImageHosts)
        let progressTracker = self.progressTracker
        self.budget = RateLimitBudget(
            reserve: configuration.rateLimitReserve, pause: configuration.rateLimitPause, clock: clock, logger: logger,
            onWait: { delay in
                await progressTracker.update { $0.activity = "waiting \(delay.components.seconds)s for the rate limit" }
            })
    }

    /// What the sync has done so far.
    public var progress: SyncProgress {
        get async { await progressTracker.progress }
    }

    /// How much work waits at each stage now; all zero between rounds.
    public var stageDepths: StageDepths {
        get async {
            var depths = running.withLock { $0?.depths } ?? StageDepths()
            depths.apiInFlight = await budget.inFlight
            depths.apiWaiting = await budget.waiting
            return depths
        }
    }

    /// Replaces what the daemon (``run()``) syncs and how: its sources, poll interval,
    /// concurrency, variants and the rest of `configuration`, and, when given, the repository (a
    /// new access key). Work in flight is not dropped: the round under way stops walking after
    /// the page it is on, downloads and records what its pages queued, and a new round begins at
    /// once with the new configuration; an idle daemon wakes for it. The rate-limit reserve and
    /// the allowed image hosts keep their first values.
    public func reconfigure(_ configuration: SyncConfiguration, repository: PhotoRepository? = nil) {
        current.withLock { current in
            current.configuration = configuration
            if let repository { current.repository = repository }
            current.generation += 1
        }
        reconfigured.signal()
    }

    /// Backfills to the end (or `maxPages` pages), catches up with the head when backfill is
    /// complete, downloads every image that is due, and returns.
    ///
    /// Images waiting for a retry after a transient failure (a cut connection, a 5xx) are due at
    /// once: a run someone starts tries them again, whatever their backoff. Within the run an
    /// image that fails so is tried again after ``SyncConfiguration/imageRetryDelay``, up to
    /// ``SyncConfiguration/maxImageAttempts`` attempts; then it is left pending, due after its
    /// ``SyncConfiguration/imageBackoff``. A permanent failure (404, 410, a refused host, over
    /// the size cap, not an image) is final.
    ///
    /// - Throws: ``SyncError`` when the key is rejected, the API stays unreachable, or the
    ///   database fails; ``SyncError/cancelled`` when cancelled. A rate limit is waited out,
    ///   never thrown. Sources that answered 404 are left out while the others finish, then
    ///   thrown together as ``SyncError/sourcesNotFound(_:)``.
    @discardableResult
    public func runOnce(maxPages: Int? = nil) async throws(SyncError) -> SyncProgress {
        do {
            return try await syncOnce(maxPages: maxPages)
        } catch {
            throw SyncError(error)
        }
    }

    /// Runs until cancelled: backfills, then polls the head every ``SyncConfiguration/pollInterval``,
    /// downloading images and retrying failed ones as they fall due. Outages are waited out.
    ///
    /// - Throws: ``SyncError/accessKeyRejected(_:)``, ``SyncError/store(_:)`` or
    ///   ``SyncError/spool(_:)``, which waiting cannot fix; ``SyncError/cancelled`` when
    ///   cancelled (a graceful stop).
    public func run() async throws(SyncError) {
        do {
            try await syncUntilCancelled()
        } catch {
            throw SyncError(error)
        }
    }

    private func syncOnce(maxPages: Int?) async throws -> SyncProgress {
        try await prepare()
        let due = try await writingStore { () async throws(StoreError) in
            try await store.imageQueue.retryTransientFailures(now: now())
        }
        if due > 0 {
            logger.info("trying again images that failed in earlier runs", metadata: ["count": "\(due)"])
        }
        try await sync(maxPages: maxPages, retriesWithinRun: true)
        await maintenance.vacuum()
        await progressTracker.update { $0.activity = "done" }
        return await progressTracker.progress
    }

    private func syncUntilCancelled() async throws {
        // The configuration whose sources and variants the database was last told of.
        var applied = generation
        try await prepare()
        while true {
            do {
                if applied != generation {
                    applied = generation
                    try await applyConfiguration()
                }
                do {
                    try await sync(maxPages: nil, retriesWithinRun: false)
                } catch SyncError.sourcesNotFound {
                    // Each was logged when it failed; they are tried again after their backoff.
                }
                // Reconfigured during the round, which ended early for it: the next one at once.
                if applied != generation { continue }
                await progressTracker.update { $0.activity = "idle" }
                becameIdle.signal()
                try await idle(for: try await nextWake())
            } catch let error as SyncError {
                switch error {
                case .apiUnavailable, .inconsistentPage:
                    logger.warning(
                        "\(error.errorDescription ?? "\(error)"); trying again later",
                        metadata: [
                            "wait_s": "\(configuration.outageRetryDelay.components.seconds)"
                        ])
                    await progressTracker.update { $0.activity = "waiting for the API" }
                    try await clock.sleep(for: configuration.outageRetryDelay)
                case .accessKeyRejected, .store, .spool, .sourceNotFound, .sourcesNotFound, .cancelled, .unexpected:
                    throw error
                }
            }
        }
    }

    /// One round of the pipeline: the walk (to the end, or `maxPages` backfill pages), and the
    /// images and tracking requests that are due, all at once; it returns when every stage is
    /// done. An outage or a refused page ends the walk but not the downloads: it is thrown once
    /// they are done.
    private func sync(maxPages: Int?, retriesWithinRun: Bool) async throws {
        let pipeline = makePipeline(retriesWithinRun: retriesWithinRun, generation: generation)
        running.withLock { $0 = pipeline }
        defer { running.withLock { $0 = nil } }
        // Each stage's task returns nil, except a walk that met an outage: it returns that.
        let walkFailure = try await withThrowingTaskGroup(of: SyncError?.self) { group in
            group.addTask {
                let failure = try await Self.walk(pipeline, maxPages: maxPages)
                // After the walk, so that pages go first; not in an outage, which it would wait out.
                if case .apiUnavailable? = failure {
                } else {
                    try await pipeline.objects.refresh()
                    try await PhotoDetailsRefresh(pipeline.objects).refresh()
                }
                return failure
            }
            group.addTask {
                try await pipeline.feed.run()
                return nil
            }
            group.addTask {
                defer { pipeline.outcomes.finish() }
                try await pipeline.fetcher.run(jobs: pipeline.feed.jobs, outcomes: pipeline.outcomes)
                return nil
            }
            group.addTask {
                try await pipeline.writer.run(pipeline.outcomes)
                pipeline.tracker?.writerFinished()
                return nil
            }
            if let tracker = pipeline.tracker {
                group.addTask {
                    try await tracker.run()
                    return nil
                }
            }
            var failure: SyncError?
            for try await result in group {
                failure = failure ?? result
            }
            return failure
        }
        try Task.checkCancellation()
        if let walkFailure {
            throw walkFailure
        }
    }

    /// The walk of one round; it returns, rather than throws, an outage or a refused page.
    private static func walk(_ pipeline: Pipeline, maxPages: Int?) async throws -> SyncError? {
        defer { pipeline.feed.walkFinished() }
        do {
            let report = try await pipeline.walker.walkSources(maxPages: maxPages)
            if let contradiction = report.contradiction { return .inconsistentPage(contradiction) }
            return report.notFound.isEmpty ? nil : .sourcesNotFound(report.notFound)
        } catch let error as SyncError {
            switch error {
            case .apiUnavailable, .inconsistentPage: return error
            case .accessKeyRejected, .store, .spool, .sourceNotFound, .sourcesNotFound, .cancelled, .unexpected:
                throw error
            }
        }
    }

    private func makePipeline(retriesWithinRun: Bool, generation: Int) -> Pipeline {
        let (configuration, repository) = current.withLock { ($0.configuration, $0.repository) }
        let variants = configuration.variants
        let imagesSettled = WakeSignal()
        let retries = RetriesWithinRun(configuration: configuration, withinRun: retriesWithinRun)
        let round = RoundContext(
            store: store, configuration: configuration, repository: repository, budget: budget,
            progress: progressTracker, now: now, logger: logger)
        let feed = ImageJobFeed(
            round: round, variants: variants, capacity: configuration.concurrency * 2, clock: clock, retries: retries,
            disk: self.disk, reserve: configuration.minFreeDisk, downloadsPaused: { imagesSettled.signal() })
        var backlog = ImageBacklog(
            store: store, variants: variants,
            limit: configuration.pagesAhead * configuration.perPage * max(1, variants.count),
            imagesSettled: imagesSettled)
        let diskWatch = self.disk
        backlog.downloadsPaused = { diskWatch.last.pause != nil }
        let tracker =
            configuration.downloadTracking
            ? DownloadTracker(round: round, concurrency: configuration.trackingConcurrency)
            : nil
        let floor = PageFloor(
            disk: disk, reserve: configuration.minFreeDisk, clock: clock, progress: progressTracker, logger: logger,
            waits: !retriesWithinRun)
        let walker = PageWalker(
            round: round, backlog: backlog, pageCommitted: { feed.jobsAdded() },
            backoff: sourceBackoff, reconfigured: { self.generation != generation }, floor: floor)
        let writer = ImageWriter(
            round: round, retries: retries, random: imageBackoffRandom,
            committed: { settled, stored in
                feed.settled(settled)
                imagesSettled.signal()
                if stored > 0 { tracker?.imagesStored() }
            })
        let objects = SourceObjectRefresh(round: round, backoff: sourceBackoff, retries: objectRetries)
        return Pipeline(
            walker: walker, objects: objects, feed: feed,
            fetcher: ImageFetcher(
                repository: repository, hostPolicy: hostPolicy, spool: spool, concurrency: configuration.concurrency,
                minimumRate: configuration.imageMinimumRate, logger: logger),
            // As many fetched images may wait for the writer as are being fetched: a kill -9 then
            // loses at most 4 x concurrency downloads (fetching, waiting, and the batch being written).
            outcomes: BoundedQueue(capacity: configuration.concurrency), writer: writer, tracker: tracker)
    }

    private func prepare() async throws {
        try await maintenance.emptySpool(spool)
        try await applyConfiguration()
    }

    /// Records which sources are configured, fits the storage budget, and queues the images of
    /// new variants.
    private func applyConfiguration() async throws {
        let configuration = configuration
        try await writingStore { () async throws(StoreError) in
            try await store.ledger.activateSources(configuration.sources)
        }
        if let storageLimit = configuration.storageLimit {
            try await maintenance.fit(storageLimit: storageLimit)
        }
        for variant in configuration.variants {
            let created = try await writingStore { () async throws(StoreError) in
                try await store.imageQueue.enqueueMissingImages(variant: variant)
            }
            if created > 0 {
                logger.info(
                    "queued images of variant \(variant) for photos stored earlier", metadata: ["count": "\(created)"])
            }
        }
    }

    /// Waits `duration`, or until ``reconfigure(_:repository:)`` is called.
    private func idle(for duration: Duration) async throws {
        let clock = clock
        let reconfigured = reconfigured
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(for: duration) }
            group.addTask { await reconfigured.wait() }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    /// The wait until the next poll, or sooner when a failed image falls due for another try.
    private func nextWake() async throws -> Duration {
        var wait = configuration.pollInterval
        let variants = configuration.variants
        if let retry = try await readingStore({ () async throws(StoreError) in
            try await store.imageQueue.nextImageRetry(variants: variants)
        }) {
            let untilRetry = Duration.seconds(max(1, retry.timeIntervalSince(now())))
            wait = min(wait, untilRetry)
        }
        return wait
    }
}

/// The stages of one round, wired together.
private struct Pipeline: Sendable {
    let walker: PageWalker
    let objects: SourceObjectRefresh
    let feed: ImageJobFeed
    let fetcher: ImageFetcher
    let outcomes: BoundedQueue<ImageOutcome>
    let writer: ImageWriter
    let tracker: DownloadTracker?

    var depths: StageDepths {
        var depths = StageDepths()
        depths.jobsQueued = feed.jobs.depth
        depths.jobsClaimed = feed.claimedCount
        depths.outcomesQueued = outcomes.depth
        depths.trackingInFlight = tracker?.depth ?? 0
        return depths
    }
}
