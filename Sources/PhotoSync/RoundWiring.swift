import Foundation
import Networking
import UnsplashAPI

/// Wires each round's stages afresh (``pipeline(_:repository:retriesWithinRun:reconfigured:)``)
/// from the round's configuration and what outlasts a round: the rate-limit budget, the allowed
/// image hosts, the spool, the disk watch, and what the engine remembers of sources and objects
/// that failed.
struct RoundWiring: Sendable {
    let environment: SyncEnvironment
    /// Shared by every round's pages and tracking; it keeps the reserve it was made with.
    let budget: RateLimitBudget
    /// Made from the first configuration: a reload does not change the allowed hosts.
    let hostPolicy: ImageHostPolicy
    let spool: BodySpool
    let disk: DiskReserveWatch
    let sourceBackoff: SourceBackoff
    let objectRetries: ObjectRetries
    /// A number in 0..<1 for the jitter of each image backoff.
    let imageBackoffRandom: @Sendable () -> Double

    /// The stages of one round, wired together over one ``RoundContext``.
    /// - Parameters:
    ///   - retriesWithinRun: whether the round tries failed images again within itself and ends
    ///     rather than waits for free disk (`runOnce`), or leaves them to later rounds (the daemon).
    ///   - reconfigured: whether a reload has come since the round began; the walk stops for it.
    func pipeline(
        _ configuration: SyncConfiguration, repository: PhotoRepository, retriesWithinRun: Bool,
        reconfigured: @escaping @Sendable () -> Bool
    ) -> Pipeline {
        let (store, clock, progress, logger) = (
            environment.store, environment.clock, environment.progress, environment.logger
        )
        let variants = configuration.variants
        let imagesSettled = WakeSignal()
        let retries = RetriesWithinRun(configuration: configuration, withinRun: retriesWithinRun)
        let round = RoundContext(
            store: store, configuration: configuration, repository: repository, budget: budget,
            progress: progress, now: environment.now, logger: logger)
        let feed = ImageJobFeed(
            round: round, variants: variants, capacity: configuration.concurrency * 2, clock: clock, retries: retries,
            disk: disk, reserve: configuration.minFreeDisk, downloadsPaused: { imagesSettled.signal() })
        var backlog = ImageBacklog(
            store: store, variants: variants,
            limit: configuration.pagesAhead * configuration.perPage * max(1, variants.count),
            imagesSettled: imagesSettled)
        let diskWatch = disk
        backlog.downloadsPaused = { diskWatch.last.pause != nil }
        let tracker =
            configuration.downloadTracking
            ? DownloadTracker(round: round, concurrency: configuration.trackingConcurrency)
            : nil
        let floor = PageFloor(
            disk: disk, reserve: configuration.minFreeDisk, clock: clock, progress: progress, logger: logger,
            waits: !retriesWithinRun)
        let walker = PageWalker(
            round: round, backlog: backlog, pageCommitted: { feed.jobsAdded() },
            backoff: sourceBackoff, reconfigured: reconfigured, floor: floor)
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
}
