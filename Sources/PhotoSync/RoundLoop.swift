import Foundation
import PhotoStore
import Synchronization

/// Runs the sync's rounds, each wired afresh by ``RoundWiring``: one for
/// ``SyncEngine/runOnce(maxPages:)``, or the daemon's loop, where a round is followed by an idle
/// wait (until the next poll, a failed image's retry, or a reload) and an outage is waited out.
final class RoundLoop: Sendable {
    let environment: SyncEnvironment
    let wiring: RoundWiring
    let current: CurrentConfiguration
    /// The spool, the storage budget, and the vacuum at the end of `runOnce`.
    let maintenance: StoreMaintenance
    /// Signalled each time the daemon goes idle after a round: ``SyncEngine/maintainWhileIdle()`` waits for it.
    let becameIdle: WakeSignal
    /// The round under way, for its depths.
    private let running = Mutex<Pipeline?>(nil)

    init(
        environment: SyncEnvironment, wiring: RoundWiring, current: CurrentConfiguration,
        maintenance: StoreMaintenance, becameIdle: WakeSignal
    ) {
        self.environment = environment
        self.wiring = wiring
        self.current = current
        self.maintenance = maintenance
        self.becameIdle = becameIdle
    }

    private var store: PhotoStore { environment.store }
    private var progress: ProgressTracker { environment.progress }

    /// How much work waits at each stage of the round under way; all zero between rounds.
    var depths: StageDepths { running.withLock { $0?.depths } ?? StageDepths() }

    /// One round to the end (or `maxPages` backfill pages), after trying again the images that
    /// failed in earlier runs; see ``SyncEngine/runOnce(maxPages:)``.
    func once(maxPages: Int?) async throws -> SyncProgress {
        try await prepare()
        let due = try await writingStore { () async throws(StoreError) in
            try await store.imageQueue.retryTransientFailures(now: environment.now())
        }
        if due > 0 {
            environment.logger.info("trying again images that failed in earlier runs", metadata: ["count": "\(due)"])
        }
        try await round(maxPages: maxPages, retriesWithinRun: true)
        await maintenance.vacuum()
        await progress.update { $0.activity = "done" }
        return await progress.progress
    }

    /// Rounds until cancelled, each after the idle wait the last one left; see ``SyncEngine/run()``.
    func untilCancelled() async throws {
        // The configuration whose sources and variants the database was last told of.
        var applied = current.generation
        try await prepare()
        while true {
            do {
                if applied != current.generation {
                    applied = current.generation
                    try await applyConfiguration()
                }
                do {
                    try await round(maxPages: nil, retriesWithinRun: false)
                } catch SyncError.sourcesNotFound {
                    // Each was logged when it failed; they are tried again after their backoff.
                }
                // Reconfigured during the round, which ended early for it: the next one at once.
                if applied != current.generation { continue }
                await progress.update { $0.activity = "idle" }
                becameIdle.signal()
                try await idle(for: try await nextWake())
            } catch let error as SyncError {
                try await waitOut(error)
            }
        }
    }

    /// Waits out an outage or a refused page before the next round; rethrows what waiting cannot fix.
    private func waitOut(_ error: SyncError) async throws {
        switch error {
        case .apiUnavailable, .inconsistentPage:
            let delay = current.configuration.outageRetryDelay
            environment.logger.warning(
                "\(error.errorDescription ?? "\(error)"); trying again later",
                metadata: ["wait_s": "\(delay.components.seconds)"])
            await progress.update { $0.activity = "waiting for the API" }
            try await environment.clock.sleep(for: delay)
        case .accessKeyRejected, .store, .spool, .sourceNotFound, .sourcesNotFound, .cancelled, .unexpected:
            throw error
        }
    }

    /// One round of the pipeline, with the configuration of the moment.
    private func round(maxPages: Int?, retriesWithinRun: Bool) async throws {
        let snapshot = current.snapshot
        let current = current
        let pipeline = wiring.pipeline(
            snapshot.configuration, repository: snapshot.repository, retriesWithinRun: retriesWithinRun,
            reconfigured: { current.generation != snapshot.generation })
        running.withLock { $0 = pipeline }
        defer { running.withLock { $0 = nil } }
        try await pipeline.run(maxPages: maxPages)
    }

    private func prepare() async throws {
        try await maintenance.emptySpool(wiring.spool)
        try await applyConfiguration()
    }

    /// Records which sources are configured, fits the storage budget, and queues the images of
    /// new variants.
    private func applyConfiguration() async throws {
        let configuration = current.configuration
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
                environment.logger.info(
                    "queued images of variant \(variant) for photos stored earlier", metadata: ["count": "\(created)"])
            }
        }
    }

    /// Waits `duration`, or until the configuration is replaced.
    private func idle(for duration: Duration) async throws {
        let (clock, current) = (environment.clock, current)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(for: duration) }
            group.addTask { await current.waitForReplacement() }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    /// The wait until the next poll, or sooner when a failed image falls due for another try.
    private func nextWake() async throws -> Duration {
        let configuration = current.configuration
        var wait = configuration.pollInterval
        let variants = configuration.variants
        if let retry = try await readingStore({ () async throws(StoreError) in
            try await store.imageQueue.nextImageRetry(variants: variants)
        }) {
            let untilRetry = Duration.seconds(max(1, retry.timeIntervalSince(environment.now())))
            wait = min(wait, untilRetry)
        }
        return wait
    }
}
