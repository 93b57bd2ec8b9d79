import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Networking
import PhotoStore
import PhotoSync
import ServiceLifecycle
import UnsplashAPI

/// `photosync run`: the sync, once or as a daemon.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Mirror the feed into the database: once, or until stopped.",
        discussion: """
            Without --once it runs until SIGTERM or SIGINT, backfilling the feed and then polling \
            its head for new photos. With --once it backfills to the end (or --max-pages), \
            downloads what is pending, and exits.

            Settings resolve in this order: flag, environment variable, configuration file, default.
            """)

    @OptionGroup(title: "Access key") var key: AccessKeyOptions
    @OptionGroup(title: "Settings") var settings: SettingsOptions

    @Flag(help: "Backfill to the end (or --max-pages), download pending images, and exit.")
    var once = false

    @Option(help: ArgumentHelp("With --once, stop backfilling after this many pages.", valueName: "n"))
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
        let environment = ProcessInfo.processInfo.environment
        try await reportingErrors {
            let settings = try SettingsResolver(environment: environment).resolve(self.settings)
            let interactive = isatty(STDOUT_FILENO) == 1 && environment["JOURNAL_STREAM"] == nil
            // In a terminal the progress line replaces the per-page info lines.
            let level = interactive && settings.logLevel == .info ? .notice : settings.logLevel
            DaemonLogHandler.bootstrap(level: level, environment: environment)
            let logger = Logger(label: "photosync")
            let key = try self.key.resolve(environment: environment, logger: logger)

            // Taken before the store is opened, which may migrate: one writer per database.
            // Held until the process ends; readers never take it.
            let lock = try WriterLock(forDatabaseAt: settings.databasePath)
            defer { withExtendedLifetime(lock) {} }
            let createdDatabase = !FileManager.default.fileExists(atPath: settings.databasePath)
            let store = try PhotoStore(path: settings.databasePath)
            do {
                try await sync(settings: settings, key: key, store: store, interactive: interactive, environment: environment, logger: logger)
            } catch SyncError.accessKeyRejected(let message) {
                if createdDatabase { Self.removeDatabase(at: settings.databasePath) }
                throw SyncError.accessKeyRejected(message)
            }
        }
    }

    private func sync(
        settings: Settings, key: AccessKey, store: PhotoStore, interactive: Bool,
        environment: [String: String], logger: Logger
    ) async throws {
        let notifier = SystemdNotifier(environment: environment, logger: logger)
        let display = ProgressDisplay(interactive: interactive, notifier: notifier)
        let engine = SyncEngine(
            repository: PhotoRepository(
                provider: Provider(
                    session: Self.session(concurrency: settings.concurrency),
                    interceptors: [LoggingInterceptor(logger: Logger(label: "photosync.http"))]),
                api: UnsplashAPI(baseURL: settings.apiBase, accessKey: key.value)),
            store: store,
            configuration: SyncConfiguration(settings),
            logger: logger,
            onProgress: display.show)

        logger.info("photosync started", metadata: [
            "database": "\(settings.databasePath)", "api": "\(settings.apiBase.absoluteString)",
            "variant": "\(settings.variant)", "mode": "\(once ? "once" : "daemon")", "key_from": "\(key.source)",
        ])
        let sync = SyncService(engine: engine, once: once, maxPages: maxPages, notifier: notifier)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: sync, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let watchdog = WatchdogService(notifier: notifier) {
            services.append(.init(service: watchdog))
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        notifier.ready()
        try await group.run()
        display.finish()

        let progress = await engine.progress
        switch await sync.outcome {
        case .success, nil:
            logger.info("photosync stopped", metadata: ["summary": "\(progress.summary)"])
            // In a terminal the progress line already says it.
            if once, !interactive { print("synced: " + progress.counts) }
        case .failure(let error):
            throw error
        }
    }

    /// A session for many small API answers and a few large downloads, without a cache.
    static func session(concurrency: Int) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 600
        configuration.httpMaximumConnectionsPerHost = concurrency + 1
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["User-Agent": "photosync/1.0"]
        return URLSession(configuration: configuration)
    }

    /// A database this run created and that the API refused to fill is removed again, so a
    /// mistyped key leaves nothing behind.
    static func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

extension SyncConfiguration {
    init(_ settings: Settings) {
        self.init(
            perPage: settings.perPage,
            variant: ImageVariant(rawValue: settings.variant) ?? .regular,
            concurrency: settings.concurrency,
            pollInterval: settings.pollInterval,
            allowedImageHosts: Set(settings.allowedImageHosts),
            downloadTracking: settings.downloadTracking,
            rateLimitReserve: settings.rateLimitReserve)
    }
}
