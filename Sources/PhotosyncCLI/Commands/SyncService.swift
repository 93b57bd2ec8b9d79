import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoSync
import ServiceLifecycle
import Synchronization

/// The sync as a swift-service-lifecycle service: SIGTERM or SIGINT cancels it, which stops it
/// between transactions; whatever was committed stays.
///
/// It never throws: the group would log the error itself. ``outcome`` tells the command how the
/// sync ended, so it can print one line and choose the exit code.
final class SyncService: Service, Sendable {
    private let engine: SyncEngine
    private let once: Bool
    private let maxPages: Int?
    private let notifier: SystemdNotifier
    private let result = Mutex<Result<Void, any Error>?>(nil)
    private let stopped = Mutex(false)

    init(engine: SyncEngine, once: Bool, maxPages: Int?, notifier: SystemdNotifier) {
        self.engine = engine
        self.once = once
        self.maxPages = maxPages
        self.notifier = notifier
    }

    var outcome: Result<Void, any Error>? {
        get async { result.withLock { $0 } }
    }

    /// Whether SIGTERM or SIGINT stopped the sync before it ended on its own.
    var wasStopped: Bool { stopped.withLock { $0 } }

    func run() async throws {
        let outcome: Result<Void, any Error>
        do {
            try await withGracefulShutdownHandler {
                try await cancelWhenGracefulShutdown { [engine, once, maxPages] in
                    if once {
                        try await engine.runOnce(maxPages: maxPages)
                    } else {
                        try await engine.run()
                    }
                }
            } onGracefulShutdown: { [self] in
                stopped.withLock { $0 = true }
                notifier.stopping()
            }
            outcome = .success(())
        } catch is CancellationError {
            outcome = .success(())
        } catch SyncError.cancelled {
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
    }
}

/// The daemon's idle upkeep as a service of its own, beside ``SyncService``: after each round
/// that leaves the daemon idle, the incremental vacuum and the WAL checkpoint
/// (``SyncEngine/maintainWhileIdle()``). It stops at graceful shutdown; a write under way ends
/// first. `run --once` has none: its run vacuums once, at its end.
struct MaintenanceService: Service {
    let engine: SyncEngine

    func run() async {
        await cancelWhenGracefulShutdown { [engine] in
            await engine.maintainWhileIdle()
        }
    }
}

/// Ends when the writer lease is lost (another `run` took it, or it expired unrenewed), so that
/// the group stops the sync as SIGTERM would, and the daemon stands by again.
///
/// It also closes the store's connections at once: nothing the sync would still write can be
/// written, and a query waiting for the answer of a server this host can no longer reach (a cut
/// network) would otherwise hold the stop until the kernel gave the connection up, hours later.
struct LeaseWatch: Service {
    let lease: PostgresWriterLease
    let store: PhotoStore

    func run() async {
        await cancelWhenGracefulShutdown { [lease, store] in
            await lease.lost()
            guard !Task.isCancelled else { return }
            try? store.close()
        }
    }
}

/// A `run` daemon whose PostgreSQL database another `run` writes: the standby. It waits for the
/// writer lease (``open``, which takes it once it is free), says once in the log, and in
/// systemd's status line, which process holds it (again when another does), and keeps what it
/// last saw for `/metrics`. It never throws: ``opened()`` gives the outcome.
final class StandbyService: Service, Sendable {
    typealias Opened = (PhotoStore, DatabaseWriter, created: Bool)

    private let metrics: WriterRoleMetrics
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let open: @Sendable (@escaping @Sendable (WriterLeaseHolder) -> Void) async throws -> Opened
    private let holder = Mutex<(WriterLeaseHolder, seen: ContinuousClock.Instant)?>(nil)
    private let result = Mutex<Result<Opened, any Error>?>(nil)
    private let stopped = Mutex(false)

    init(
        metrics: WriterRoleMetrics, notifier: SystemdNotifier, logger: Logger,
        open: @escaping @Sendable (@escaping @Sendable (WriterLeaseHolder) -> Void) async throws -> Opened
    ) {
        self.metrics = metrics
        self.notifier = notifier
        self.logger = logger
        self.open = open
    }

    func run() async {
        let outcome: Result<Opened, any Error>
        do {
            outcome = .success(
                try await withGracefulShutdownHandler {
                    try await cancelWhenGracefulShutdown { [open] in
                        try await open { [weak self] holder in self?.saw(holder) }
                    }
                } onGracefulShutdown: { [self] in
                    stopped.withLock { $0 = true }
                    notifier.stopping()
                })
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
    }

    /// The database opened as its writer; nil when SIGTERM or SIGINT stopped the wait (a lease
    /// taken at that very moment is given up again).
    func opened() async throws -> Opened? {
        switch result.withLock({ $0 }) {
        case .success(let opened)?:
            guard stopped.withLock({ $0 }) else { return opened }
            await opened.1.release()
            try? opened.0.close()
            return nil
        case .failure(let error)?:
            if error is CancellationError { return nil }
            throw error
        case nil:
            return nil
        }
    }

    /// The standby's look at the lease found `holder`.
    private func saw(_ holder: WriterLeaseHolder) {
        let isNew = self.holder.withLock { last in
            defer { last = (holder, .now) }
            guard let (previous, _) = last else { return true }
            return (previous.host, previous.pid, previous.epoch) != (holder.host, holder.pid, holder.epoch)
        }
        metrics.record(isActive: false, holder: holder)
        guard isNew else { return }
        logger.notice(
            "standing by: another photosync run holds the writer lease",
            metadata: ["host": "\(holder.host)", "pid": "\(holder.pid)", "epoch": "\(holder.epoch)"])
        notifier.status("standby: PID \(holder.pid) on \(holder.host) holds the writer lease (epoch \(holder.epoch))")
    }
}
