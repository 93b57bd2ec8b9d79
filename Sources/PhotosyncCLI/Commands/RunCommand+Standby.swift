import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import Prometheus
import ServiceLifecycle
import Synchronization

/// `run` on a PostgreSQL database that another `run` writes: the standby.
extension RunCommand {
    /// The database, opened as its writer; nil when SIGTERM or SIGINT stopped the wait for it.
    ///
    /// On PostgreSQL, a daemon whose lease another `run` holds is the standby
    /// (``StandbyService``): it says who holds the lease, serves its metrics and pings the
    /// watchdog while it waits, and takes the lease once it is free. `run --once` does not wait:
    /// it exits 73, as on SQLite. A daemon that lost the lease (`standingBy`) goes straight to
    /// the standby, which also waits for a database it cannot reach (its host cut off) to come
    /// back, where a daemon that starts exits as it would on SQLite.
    func openAsWriter(
        settings: Settings, standingBy: Bool, environment: [String: String], notifier: SystemdNotifier,
        logger: Logger
    ) async throws -> (PhotoStore, DatabaseWriter, created: Bool)? {
        let lease = PostgresWriterLease.Timing(duration: .seconds(settings.writerLease))
        if !standingBy {
            do {
                return try await settings.database.openForWriting(
                    environment: environment, lease: lease, logger: logger)
            } catch let error as WriterLockError {
                guard case .leased = error, !once else { throw error }
            }
        }
        let registry = PrometheusCollectorRegistry()
        let standby = StandbyService(
            metrics: WriterRoleMetrics(
                factory: DescribedMetricsFactory(registry: registry, descriptions: WriterRoleMetrics.descriptions)),
            notifier: notifier, logger: logger
        ) { report in
            var warned = false
            while true {
                do {
                    return try await settings.database.openForWriting(
                        environment: environment, lease: lease, standby: report, logger: logger)
                } catch StoreError.unavailable(_, let reason) {
                    if !warned {
                        logger.warning(
                            "standing by: cannot reach the database; trying again until it is back",
                            metadata: ["reason": "\(reason)"])
                        warned = true
                    }
                    try await Task.sleep(for: lease.poll * 2)
                }
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: standby, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        ]
        services += Self.beside(
            metrics: settings.metricsListen.map { MetricsServer(address: $0, registry: registry, logger: logger) {} },
            notifier: notifier)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // A standby is healthy: it is doing what it is for.
        notifier.ready()
        try await group.run()
        return try await standby.opened()
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
