import ArgumentParser
import Foundation
import Logging
import Networking
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import PhotoSync
import Prometheus
import ServiceLifecycle
import UnixSignals
import UnsplashAPI

/// `photosync run`: the sync, once or as a daemon.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Mirror the feed, and any other sources, into the database: once, or until stopped.",
        discussion: """
            Without --once it runs until SIGTERM or SIGINT, backfilling each source and then polling \
            its head for new photos. With --once it backfills to the end (or --max-pages per source), \
            downloads what is pending, and exits; a source that does not exist (404) is reported \
            once the others are done, with exit code 78.

            Settings resolve in this order: flag, environment variable, configuration file, default.
            """)

    @OptionGroup(title: "Access key") var key: AccessKeyOptions
    @OptionGroup(title: "Settings") var settings: SettingsOptions

    @Flag(help: "Backfill to the end (or --max-pages), download pending images, and exit.")
    var once = false

    @Option(help: ArgumentHelp("With --once, stop backfilling each source after this many pages.", valueName: "n"))
    var maxPages: Int?

    func validate() throws {
        if let maxPages, maxPages < 1 {
            throw ValidationError("--max-pages must be at least 1 (got \(maxPages))")
        }
        if maxPages != nil, !once {
            throw ValidationError("--max-pages only applies with --once")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let environment = try EnvironmentFile.environment(ProcessInfo.processInfo.environment)
            let settings = try self.settings.resolve(environment: environment)
            let interactive = isatty(STDOUT_FILENO) == 1 && environment["JOURNAL_STREAM"] == nil
            // In a terminal the progress line replaces the per-page info lines.
            let level = interactive && settings.logLevel == .info ? .notice : settings.logLevel
            DaemonLogHandler.bootstrap(level: level, environment: environment)
            let logger = Logger(label: "photosync")
            let key = try self.key.resolve(environment: environment, logger: logger)

            let proxies = try ProxySettings(environment: environment)
            // Both refused before anything is created: no lock file beside /dev/null, no
            // database left behind by a run that could not serve its metrics.
            if case .file(let path) = settings.database { try PhotoStore.checkDatabasePath(path) }
            if let address = settings.metricsListen { try MetricsServer.checkAvailable(address) }
            let notifier = SystemdNotifier(environment: environment, logger: logger)
            // On PostgreSQL, a daemon that loses the writer lease stands by for it again.
            var afterLoss = false
            while try await syncAsWriter(
                settings: settings, key: key, proxies: proxies, interactive: interactive, afterLoss: afterLoss,
                environment: environment, notifier: notifier, logger: logger) == .leaseLost
            {
                afterLoss = true
            }
        }
    }

    /// How ``syncAsWriter(settings:key:proxies:interactive:afterLoss:environment:notifier:logger:)`` ended.
    enum Ending {
        /// As `run` ends: its sync ended, or SIGTERM or SIGINT stopped it.
        case done
        /// Another `run` took the writer lease: this one stands by for it again.
        case leaseLost
    }

    /// Opens the database as its writer (standing by for the lease, on PostgreSQL, while another
    /// daemon holds it), syncs until the sync ends, and lets go of the database.
    private func syncAsWriter(
        settings: Settings, key: AccessKey, proxies: ProxySettings, interactive: Bool, afterLoss: Bool,
        environment: [String: String], notifier: SystemdNotifier, logger: Logger
    ) async throws -> Ending {
        guard
            let (store, writer, createdDatabase) = try await openAsWriter(
                settings: settings, standingBy: afterLoss, environment: environment, notifier: notifier,
                logger: logger)
        else { return .done }
        try await Self.refuseUnfinishedCopy(store, writer: writer)
        // One client for the whole sync, shut down on every way out of it. Its pool allows
        // the most connections --concurrency may ask for (16, in AllSettings), so that a
        // reload raising it is not held back; connections open only as requests need them.
        let transport = AsyncHTTPClientSession(
            configuration: .init(
                maxConnectionsPerHost: 16 + 1, userAgent: PhotosyncVersion.userAgent,
                proxies: proxies))
        let outcome: Result<Ending, any Error>
        do {
            outcome = .success(
                try await sync(
                    settings: settings, key: key, store: store, writer: writer, transport: transport,
                    interactive: interactive, notifier: notifier, logger: logger))
        } catch {
            outcome = .failure(error)
        }
        try? await transport.shutdown()
        await writer.release()
        if case .failure(SyncError.accessKeyRejected) = outcome, createdDatabase,
            case .file(let path) = settings.database
        {
            // Closed first: the pool's connections must not outlive the files they write.
            try? store.close()
            Self.removeDatabase(at: path)
        } else if case .lease = writer {
            // The next turn as the writer opens a pool of its own.
            try? store.close()
        }
        return try outcome.get()
    }

    /// A database a `photosync copy` is still filling is not synced into: the copy could not go
    /// on with it afterwards.
    private static func refuseUnfinishedCopy(_ store: PhotoStore, writer: DatabaseWriter) async throws {
        guard case .copying(let progress) = try await store.transfer.copyState() else { return }
        await writer.release()
        throw CommandFailure(
            code: .cannotCreate,
            message:
                "a copy from \(progress.origin) into \(store.path) stopped before its end; "
                + "run `photosync copy --from \(progress.origin) --to \(store.path)` again to finish it")
    }

    /// Builds the sync and the services beside it, runs them in one `ServiceGroup` until the
    /// sync ends (`--once`), SIGTERM/SIGINT, or the loss of the writer lease, and chooses how the
    /// command ends.
    private func sync(
        settings: Settings, key: AccessKey, store: PhotoStore, writer: DatabaseWriter, transport: any URLSessionable,
        interactive: Bool, notifier: SystemdNotifier, logger: Logger
    ) async throws -> Ending {
        let parts = SyncParts(
            settings: settings, key: key, store: store, transport: transport, once: once, interactive: interactive,
            notifier: notifier, logger: logger)
        Self.logStart(settings: settings, key: key, once: once, logger: logger)
        let sync = SyncService(engine: parts.engine, once: once, maxPages: maxPages, notifier: notifier)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: await services(
                    sync: sync, parts: parts, writer: writer, settings: settings, key: key, logger: logger),
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        notifier.ready()
        do {
            try await group.run()
        } catch {
            // Its writes refused, the sync may end before the group's stop reaches it, which
            // the group reports as a service that finished unexpectedly: the lease says why.
            guard writer.lease?.wasLost == true else { throw error }
        }
        parts.display.finish()

        if let lease = writer.lease, lease.wasLost {
            // Whatever the sync said as its writes were refused, the reason is the lease. (The
            // group's stop looks the same whether the lease or a signal asked for it; a SIGTERM
            // in the same instant as the loss is lost with it, and the next one stops the standby.)
            if once { throw StoreError.writerLeaseLost(path: store.path) }
            logger.notice("standing by for the writer lease")
            return .leaseLost
        }
        let progress = await parts.engine.progress
        switch await sync.outcome {
        case .success, nil:
            logger.info("photosync stopped", metadata: ["summary": "\(progress.summary)"])
            // A stop asked for is a success (README: exit 0 after SIGTERM), whatever it left.
            guard once, !sync.wasStopped else { return .done }
            try await RunOnceOutcome.judge(
                progress, variants: settings.variants, store: store, interactive: interactive,
                logger: logger)
            return .done
        case .failure(let error):
            throw error
        }
    }

    /// The sync first, ending the group when it ends; beside it, as Hummingbird runs its
    /// services beside its server: the metrics server, the watchdog, and in the daemon the idle
    /// upkeep and the SIGHUP reloader.
    private func services(
        sync: SyncService, parts: SyncParts, writer: DatabaseWriter, settings: Settings, key: AccessKey,
        logger: Logger
    ) async -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: sync, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let lease = writer.lease {
            // Losing the lease ends the group as a stop would: the sync stops between writes.
            services.append(
                .init(
                    service: LeaseWatch(lease: lease, store: parts.store),
                    successTerminationBehavior: .gracefullyShutdownGroup))
        }
        services += Self.beside(
            metrics: settings.metricsListen.map {
                parts.metricsServer(address: $0, lease: writer.lease, logger: logger)
            },
            notifier: parts.notifier)
        guard !once else { return services }
        services.append(.init(service: MaintenanceService(engine: parts.engine)))
        let options = (settings: self.settings, key: self.key)
        let reloader = ConfigurationReloader(
            hangups: await UnixSignalsSequence(trapping: .sighup), settings: settings, key: key, engine: parts.engine,
            loads: parts.loads, makeRepository: parts.makeRepository, notifier: parts.notifier, logger: logger,
            load: {
                // The environment file is read again; the process's own variables are as at the start.
                let environment = try EnvironmentFile.environment(ProcessInfo.processInfo.environment)
                return (
                    try options.settings.resolve(environment: environment),
                    try options.key.resolve(environment: environment)
                )
            })
        services.append(.init(service: reloader))
        return services
    }

    /// What runs beside the sync, and beside a standby's wait: the metrics server, when there is
    /// one (a port it cannot serve ends the group), and the watchdog, when systemd asks for one.
    static func beside(
        metrics: MetricsServer?, notifier: SystemdNotifier
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let metrics {
            services.append(.init(service: metrics, failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let watchdog = WatchdogService(notifier: notifier) {
            services.append(.init(service: watchdog))
        }
        return services
    }

    private static func logStart(settings: Settings, key: AccessKey, once: Bool, logger: Logger) {
        let variant =
            settings.variants.isEmpty
            ? SettingRules.noVariant : settings.variants.map(\.rawValue).joined(separator: ",")
        logger.info(
            "photosync started",
            metadata: [
                "database": "\(settings.database)", "api": "\(settings.apiBase.absoluteString)",
                "variant": "\(variant)", "sources": "\(settings.sources.map(\.description).joined(separator: " "))",
                "mode": "\(once ? "once" : "daemon")", "key_from": "\(key.source)",
            ])
    }

    /// Image bodies of up to 4 MiB stay in memory; larger ones go to files in a private
    /// directory, readable by its owner only: beside an SQLite database, on the same disk; for
    /// PostgreSQL, in the state directory (`$STATE_DIRECTORY`, or the working directory).
    static func spool(_ settings: Settings) -> BodySpool {
        let directory: String =
            switch settings.database {
            case .file(let path): path + spoolSuffix
            case .postgres(let location):
                (ProcessInfo.processInfo.environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
                    ?? ".") + "/photosync-\(location.database)" + spoolSuffix
            }
        return BodySpool(
            directory: URL(fileURLWithPath: directory),
            memoryLimit: 4 << 20,
            maxBytes: Int64(settings.maxImageMiB) << 20)
    }

    static let spoolSuffix = ".downloads"

    /// A database this run created and that the API refused to fill is removed again, so a
    /// mistyped key leaves nothing behind.
    static func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm", spoolSuffix] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

extension SyncConfiguration {
    /// With `once`, a failed image is tried again within the run after 0.5, 1, 2 and 2 seconds;
    /// then, as in the daemon, after a backoff from a minute doubling to 6 hours (a later
    /// `--once` tries it at once).
    init(_ settings: Settings, once: Bool) {
        self.init(
            sources: settings.sources,
            perPage: settings.perPage,
            variants: settings.variants,
            concurrency: settings.concurrency,
            pollInterval: settings.pollInterval,
            allowedImageHosts: Set(settings.allowedImageHosts),
            imageMinimumRate: settings.imageMinRate,
            downloadTracking: settings.downloadTracking,
            rateLimitReserve: settings.rateLimitReserve,
            imageRetryDelay: once ? .milliseconds(500) : .seconds(60),
            maxImageRetryDelay: once ? .seconds(2) : .seconds(3600),
            storageLimit: settings.storageLimit,
            minFreeDisk: settings.minFreeDisk)
        photoDetails = settings.photoDetails
    }
}
