import Foundation
import Logging
import PhotoStore
import PhotoSync
import ServiceLifecycle
import Synchronization
import UnixSignals
import UnsplashAPI

/// SIGHUP (`systemctl reload photosync`): the daemon reads its configuration again, as at its
/// start (flags, environment, configuration file, defaults; the access key from its flag, file,
/// variable or systemd credential), and hands the result to the running sync.
///
/// Sources added or removed, the poll interval, concurrency, variants and the rest of
/// ``SyncConfiguration`` take effect without dropping work in flight
/// (``SyncEngine/reconfigure(_:repository:)``); a new access key is used from the next request.
/// Settings that only a restart can change (declared with `reload: .restartNeeded` in
/// ``AllSettings``) keep their running value, and the log line names them. A configuration that does not resolve is one `error` line, and the
/// running one is kept. Each reload that takes effect is recorded in the database for `status`.
///
/// The process environment is the one the daemon started with: systemd reads
/// `EnvironmentFile=` only when it starts a service, so a changed variable needs a restart.
final class ConfigurationReloader: Service, Sendable {
    /// Reads the configuration and the access key again.
    typealias Load = @Sendable () throws -> (Settings, AccessKey)

    private let load: Load
    private let hangups: UnixSignalsSequence
    private let engine: SyncEngine
    private let loads: ConfigurationLoadLog
    private let makeRepository: @Sendable (AccessKey) -> PhotoRepository
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let running: Mutex<(settings: Settings, key: AccessKey)>

    /// - Parameter hangups: SIGHUP, trapped before the daemon tells systemd it is ready, so
    ///   that an early `systemctl reload` cannot end the process.
    init(
        hangups: UnixSignalsSequence, settings: Settings, key: AccessKey, engine: SyncEngine,
        loads: ConfigurationLoadLog,
        makeRepository: @escaping @Sendable (AccessKey) -> PhotoRepository, notifier: SystemdNotifier, logger: Logger,
        load: @escaping Load
    ) {
        self.hangups = hangups
        self.notifier = notifier
        self.running = Mutex((settings, key))
        self.engine = engine
        self.loads = loads
        self.makeRepository = makeRepository
        self.logger = logger
        self.load = load
    }

    /// The names of the settings read once at the start (their declaration says
    /// `reload: .restartNeeded`) whose value `settings` changes from `previous`.
    static func restartNeeded(from previous: Settings, to settings: Settings) -> [String] {
        AllSettings.list.filter { $0.reload == .restartNeeded && settings.differs(from: previous, in: $0) }.map(\.name)
    }

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    /// Reads and applies the configuration once, between systemd's `RELOADING=1` and `READY=1`.
    func reload() async {
        notifier.reloading()
        defer { notifier.ready() }
        let settings: Settings
        let key: AccessKey
        do {
            (settings, key) = try load()
        } catch {
            let reason = ErrorReporting.classify(error).1 ?? "\(error)"
            logger.error("configuration not reloaded, the running one is kept: \(reason)")
            return
        }
        let (previous, previousKey) = running.withLock { ($0.settings, $0.key) }
        let kept = Self.restartNeeded(from: previous, to: settings)
        // storage_limit and min_free_disk live in SyncConfiguration: they apply from the next
        // round, with the rest.
        engine.reconfigure(
            SyncConfiguration(settings, once: false), repository: key == previousKey ? nil : makeRepository(key))
        running.withLock { $0 = (settings, key) }
        do {
            try await loads.reloaded()
        } catch {
            logger.warning("configuration reloaded but not recorded: \(error.localizedDescription)")
        }
        var metadata: Logger.Metadata = [
            "sources": "\(settings.sources.map(\.description).joined(separator: " "))",
            "concurrency": "\(settings.concurrency)", "poll_interval_s": "\(settings.pollInterval.components.seconds)",
            "variant": "\(settings.variants.map(\.rawValue).joined(separator: ","))",
            "key_from": "\(key.source)",
        ]
        if !kept.isEmpty { metadata["restart_needed_for"] = "\(kept.joined(separator: ","))" }
        logger.notice("configuration reloaded", metadata: metadata)
    }
}

/// Records in the database when `run` loaded its configuration, for `status`: at its start once
/// the API has accepted the key (its first page), so that a run refused with exit 77 leaves the
/// database as it was; and at each reload.
final class ConfigurationLoadLog: Sendable {
    private let store: PhotoStore
    private let recorded = Atomic<Bool>(false)

    init(store: PhotoStore) {
        self.store = store
    }

    /// Records the start, once; after a reload, nothing. Called from the engine's synchronous
    /// progress callback, so the write runs in a task of its own, off the caller's thread; a
    /// failure is not worth stopping the sync for (`status` shows the last load recorded).
    func started() {
        guard !recorded.exchange(true, ordering: .relaxed) else { return }
        let ledger = store.ledger
        Task { try? await ledger.recordConfigurationLoaded(at: Date(), reload: false) }
    }

    func reloaded() async throws(StoreError) {
        recorded.store(true, ordering: .relaxed)
        try await store.ledger.recordConfigurationLoaded(at: Date(), reload: true)
    }
}
