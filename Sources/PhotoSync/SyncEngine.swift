import Foundation
import Logging
import Networking
import PhotoStore
import UnsplashAPI

/// Mirrors Unsplash's feed into a ``PhotoStore``: the sync as the command line holds it, which
/// makes its parts once and answers for them (runs, reloads, progress, depths, storage, upkeep).
///
/// Its parts: ``RoundWiring`` wires each round's stages (``Pipeline`` says what they are) and
/// ``RoundLoop`` runs the rounds (``runOnce(maxPages:)``, or the daemon's ``run()``), reading the
/// configuration ``CurrentConfiguration`` holds, which ``reconfigure(_:repository:)`` replaces.
/// The store's upkeep is ``StoreMaintenance``'s, the idle part of it a service of its own
/// (``maintainWhileIdle(times:)``) beside ``run()``.
///
/// Crash safety: each page's photos commit in one transaction with the cursor that records the
/// page, and each image's bytes commit in the same transaction as the status that marks it
/// stored. A process killed at any moment re-fetches at most one page and the images not yet
/// committed, and never stores anything twice; a tracking request answered is recorded at once.
public final class SyncEngine: Sendable {
    let environment: SyncEnvironment
    let current: CurrentConfiguration
    let rounds: RoundLoop
    let budget: RateLimitBudget
    let disk: DiskReserveWatch
    /// The spool, the storage budget, and the idle vacuum and checkpoint.
    let maintenance: StoreMaintenance
    /// Signalled each time the daemon goes idle after a round: ``maintainWhileIdle()`` waits for it.
    let becameIdle: WakeSignal

    /// What the sync does now: the configuration it was made with, or the last one given to
    /// ``reconfigure(_:repository:)``. A round reads it once, when it begins.
    public var configuration: SyncConfiguration { current.configuration }

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
        let progress = ProgressTracker(observer: onProgress)
        let environment = SyncEnvironment(store: store, clock: clock, now: now, logger: logger, progress: progress)
        let path = store.path
        let disk = DiskReserveWatch(
            probe: diskSpace ?? { DiskSpace.probe(forFileAt: path) }, recheckInterval: configuration.diskRecheckInterval
        )
        let budget = RateLimitBudget(
            reserve: configuration.rateLimitReserve, pause: configuration.rateLimitPause, clock: clock, logger: logger,
            onWait: { delay in
                await progress.update { $0.activity = "waiting \(delay.components.seconds)s for the rate limit" }
            })
        let wiring = RoundWiring(
            environment: environment, budget: budget,
            hostPolicy: ImageHostPolicy(allowedHosts: configuration.allowedImageHosts), spool: spool, disk: disk,
            sourceBackoff: SourceBackoff(), objectRetries: ObjectRetries(), imageBackoffRandom: imageBackoffRandom)
        let current = CurrentConfiguration(configuration, repository: repository)
        let maintenance = StoreMaintenance(store: store, disk: disk, logger: logger, progress: progress)
        let becameIdle = WakeSignal()
        self.environment = environment
        self.current = current
        self.budget = budget
        self.disk = disk
        self.maintenance = maintenance
        self.becameIdle = becameIdle
        self.rounds = RoundLoop(
            environment: environment, wiring: wiring, current: current, maintenance: maintenance,
            becameIdle: becameIdle)
    }

    /// What the sync has done so far.
    public var progress: SyncProgress {
        get async { await environment.progress.progress }
    }

    /// How much work waits at each stage now; all zero between rounds.
    public var stageDepths: StageDepths {
        get async {
            var depths = rounds.depths
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
        current.replace(with: configuration, repository: repository)
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
            return try await rounds.once(maxPages: maxPages)
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
            try await rounds.untilCancelled()
        } catch {
            throw SyncError(error)
        }
    }
}
