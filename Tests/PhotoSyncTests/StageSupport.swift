import Foundation
import Logging
import Networking
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import UnsplashAPI

@testable import PhotoSync

/// The pieces the stages share, built over a harness, to test one stage without the others.
struct Stages {
    let harness: SyncHarness
    let configuration: SyncConfiguration
    let progress = ProgressTracker(observer: { _ in })
    let budget: RateLimitBudget

    init(_ harness: SyncHarness, _ configure: (inout SyncConfiguration) -> Void = { _ in }) {
        self.harness = harness
        var configuration = SyncConfiguration(perPage: 10, concurrency: 3)
        configure(&configuration)
        self.configuration = configuration
        // The engine prepares the spool before any stage runs.
        _ = try? harness.spool().prepare()
        budget = RateLimitBudget(
            reserve: configuration.rateLimitReserve, pause: configuration.rateLimitPause, clock: harness.clock,
            logger: harness.log.logger(level: .trace))
    }

    var now: @Sendable () -> Date { { [wallClock = harness.wallClock] in wallClock.now } }

    /// The round's shared parts, over `repository` and `store` (the harness's by default).
    func round(repository: PhotoRepository? = nil, store: PhotoStore? = nil) -> RoundContext {
        RoundContext(
            store: store ?? harness.store, configuration: configuration, repository: repository ?? harness.repository(),
            budget: budget, progress: progress, now: now, logger: harness.log.logger(level: .trace))
    }

    func walker(
        backlog limit: Int = 1000, imagesSettled: WakeSignal = WakeSignal(),
        pageCommitted: @escaping @Sendable () -> Void = {}
    ) -> PageWalker {
        PageWalker(
            round: round(),
            backlog: ImageBacklog(
                store: harness.store, variant: configuration.variant, limit: limit, imagesSettled: imagesSettled),
            pageCommitted: pageCommitted)
    }

    func fetcher() -> ImageFetcher {
        ImageFetcher(
            repository: harness.repository(),
            hostPolicy: ImageHostPolicy(allowedHosts: configuration.allowedImageHosts),
            spool: harness.spool(), concurrency: configuration.concurrency)
    }

    func writer(committed: @escaping @Sendable ([String], Int) -> Void = { _, _ in }) -> ImageWriter {
        ImageWriter(
            round: round(), retries: RetriesWithinRun(configuration: configuration, withinRun: true),
            committed: committed)
    }

    func tracker(session: MockURLSession? = nil) -> DownloadTracker {
        var repository = harness.repository()
        if let session { repository.provider = Provider(session: session, clock: harness.clock) }
        return DownloadTracker(round: round(repository: repository), concurrency: configuration.trackingConcurrency)
    }

    /// Jobs due now, as the feed would hand them out.
    func dueJobs() async throws -> [ImageJob] {
        try await harness.store.imageQueue.dueImageJobs(
            variants: [configuration.variant], now: harness.wallClock.now, limit: 1000)
    }
}

/// A value shared with escaping closures (a `Mutex` cannot be captured by them).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
