import Foundation
import Logging
import Networking
import PhotoStore
import UnsplashAPI

/// Mirrors Unsplash's feed into a ``PhotoStore``.
///
/// Crash safety: each page's photos commit in one transaction with the cursor that records the
/// page, and each image commits with the status that marks it stored. A process killed at any
/// moment re-fetches at most one page and re-downloads at most the images in flight, and never
/// stores anything twice.
///
/// - Backfill walks the feed from page 1 along `Link: rel="next"` until the end.
/// - Head catch-up, once backfill is complete, walks from page 1 again until it meets a run of
///   photos it already had, so new photos are picked up without re-walking the feed.
/// - Images are downloaded after each page, a few at once; failures are retried later with
///   backoff, and after ``SyncConfiguration/maxImageAttempts`` left as failed.
/// - Download tracking requests `download_location` once per stored image.
public final class SyncEngine: Sendable {
    let repository: PhotoRepository
    let store: PhotoStore
    let configuration: SyncConfiguration
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let logger: Logger
    let budget: RateLimitBudget
    let tracker: ProgressTracker
    let hostPolicy: ImageHostPolicy
    let spool: BodySpool

    /// - Parameter spool: where image bodies land while they are checked; its directory must be
    ///   the engine's alone, since every run empties it of what a killed run left.
    public init(
        repository: PhotoRepository,
        store: PhotoStore,
        spool: BodySpool,
        configuration: SyncConfiguration,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger,
        onProgress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.repository = repository
        self.store = store
        self.spool = spool
        self.configuration = configuration
        self.clock = clock
        self.now = now
        self.logger = logger
        self.tracker = ProgressTracker(observer: onProgress)
        self.hostPolicy = ImageHostPolicy(allowedHosts: configuration.allowedImageHosts)
        let tracker = self.tracker
        self.budget = RateLimitBudget(
            reserve: configuration.rateLimitReserve, pause: configuration.rateLimitPause, clock: clock, logger: logger,
            onWait: { delay in await tracker.update { $0.activity = "waiting \(delay.components.seconds)s for the rate limit" } })
    }

    /// What the sync has done so far.
    public var progress: SyncProgress {
        get async { await tracker.progress }
    }

    /// Backfills to the end (or `maxPages` pages), catches up with the head when backfill is
    /// complete, downloads every image that is due, and returns.
    ///
    /// Images that fail for a reason that may pass (a cut connection, a 5xx) are tried again
    /// within the run, after the configured backoff, until they are stored or have used their
    /// ``SyncConfiguration/maxImageAttempts``; so no image is left pending when it returns.
    ///
    /// - Throws: ``SyncError`` when the key is rejected, the API stays unreachable, or the
    ///   database fails; `CancellationError` when cancelled. A rate limit is waited out, never thrown.
    @discardableResult
    public func runOnce(maxPages: Int? = nil) async throws -> SyncProgress {
        try await prepare()
        let complete = try await backfill(maxPages: maxPages)
        if complete {
            try await catchUp()
        }
        try await processImages()
        while let retry = try storing({ try store.nextImageRetry(variant: configuration.variant.rawValue) }) {
            let wait = max(0, retry.timeIntervalSince(now()))
            await tracker.update { $0.activity = "retrying failed images" }
            try await clock.sleep(for: .seconds(wait))
            try await processImages(dueBy: retry)
        }
        await tracker.update { $0.activity = "done" }
        return await tracker.progress
    }

    /// Runs until cancelled: backfills, then polls the head every ``SyncConfiguration/pollInterval``,
    /// downloading images and retrying failed ones as they fall due. Outages are waited out.
    ///
    /// - Throws: ``SyncError/accessKeyRejected(_:)`` or ``SyncError/store(_:)``, which waiting
    ///   cannot fix; `CancellationError` when cancelled (a graceful stop).
    public func run() async throws {
        try await prepare()
        while true {
            do {
                if try await backfill(maxPages: nil) {
                    try await catchUp()
                }
                try await processImages()
                await tracker.update { $0.activity = "idle" }
                checkpointWhileIdle()
                try await clock.sleep(for: try nextWake())
            } catch SyncError.apiUnavailable(let message), SyncError.inconsistentPage(let message) {
                logger.warning("\(message); trying again later", metadata: ["wait_s": "\(configuration.outageRetryDelay.components.seconds)"])
                await tracker.update { $0.activity = "waiting for the API" }
                try await clock.sleep(for: configuration.outageRetryDelay)
            }
        }
    }

    private func prepare() async throws {
        do {
            let leftovers = try spool.prepare()
            if leftovers > 0 {
                logger.info("removed download files left by an earlier run", metadata: ["count": "\(leftovers)"])
            }
        } catch {
            throw SyncError.spool(error.errorDescription ?? "\(error)")
        }
        let created = try storing { try store.enqueueMissingImages(variant: configuration.variant.rawValue) }
        if created > 0 {
            logger.info("queued images of variant \(configuration.variant.rawValue) for photos stored earlier", metadata: ["count": "\(created)"])
        }
    }

    /// Folds the write-ahead log back into the database before a long idle wait. A reader
    /// holding an old snapshot can make it fail; the next idle moment tries again.
    private func checkpointWhileIdle() {
        do {
            try store.checkpoint()
        } catch {
            logger.debug("write-ahead log not checkpointed", metadata: ["error": "\(error.localizedDescription)"])
        }
    }

    /// The wait until the next poll, or sooner when a failed image falls due for another try.
    private func nextWake() throws -> Duration {
        var wait = configuration.pollInterval
        if let retry = try storing({ try store.nextImageRetry(variant: configuration.variant.rawValue) }) {
            let untilRetry = Duration.seconds(max(1, retry.timeIntervalSince(now())))
            wait = min(wait, untilRetry)
        }
        return wait
    }

    /// Runs a store call, turning its errors into ``SyncError/store(_:)``.
    func storing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw SyncError.store((error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
    }

    /// Sends an API request within the rate-limit budget, waiting out an exhausted limit.
    /// A rejected key becomes ``SyncError/accessKeyRejected(_:)``; other ``UnsplashError``s pass.
    func callingAPI<T>(_ request: () async throws -> T) async throws -> T {
        while true {
            try await budget.permit()
            do {
                return try await request()
            } catch UnsplashError.rateLimited(let limit, let retryAfter) {
                await tracker.update { $0.rateLimit = limit ?? $0.rateLimit }
                try await budget.exhausted(limit, retryAfter: retryAfter)
            } catch UnsplashError.accessKeyRejected(let detail) {
                throw SyncError.accessKeyRejected(UnsplashError.accessKeyRejected(detail: detail).errorDescription ?? "access key rejected")
            }
        }
    }

    func recordRateLimit(_ limit: RateLimit?) async {
        await budget.update(limit)
        if let limit {
            await tracker.update { $0.rateLimit = limit }
        }
    }
}
