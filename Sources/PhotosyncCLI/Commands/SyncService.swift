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
