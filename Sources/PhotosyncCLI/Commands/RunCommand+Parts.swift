import Foundation
import Logging
import Networking
import PhotoStore
import PhotoStorePostgres
import PhotoSync
import Prometheus
import UnsplashAPI

/// What `run` builds before its services start: the engine and what watches it (progress
/// display, metrics, the record of configuration loads) and the repository its reloads rebuild.
struct SyncParts: Sendable {
    let engine: SyncEngine
    let notifier: SystemdNotifier
    let display: ProgressDisplay
    let loads: ConfigurationLoadLog
    let makeRepository: @Sendable (AccessKey) -> PhotoRepository
    let store: PhotoStore
    // Metrics are collected whether or not they are served: it costs a few atomic adds.
    let registry: PrometheusCollectorRegistry
    let metrics: SyncMetrics
    let roleMetrics: WriterRoleMetrics

    init(
        settings: Settings, key: AccessKey, store: PhotoStore, transport: any URLSessionable, once: Bool,
        interactive: Bool, notifier: SystemdNotifier, logger: Logger
    ) {
        let registry = PrometheusCollectorRegistry()
        let metricsFactory = DescribedMetricsFactory(
            registry: registry,
            descriptions: SyncMetrics.descriptions.merging(WriterRoleMetrics.descriptions) { sync, _ in sync })
        let metrics = SyncMetrics(factory: metricsFactory)
        let display = ProgressDisplay(interactive: interactive, notifier: notifier)
        let loads = ConfigurationLoadLog(store: store)
        let provider = Provider(
            session: transport,
            interceptors: [
                LoggingInterceptor(logger: Logger(label: "photosync.http")),
                APIRequestMetrics(factory: metricsFactory),
            ])
        let makeRepository = { @Sendable (key: AccessKey) in
            PhotoRepository(provider: provider, api: UnsplashAPI(baseURL: settings.apiBase, accessKey: key.value))
        }
        engine = SyncEngine(
            repository: makeRepository(key),
            store: store,
            spool: RunCommand.spool(settings),
            configuration: SyncConfiguration(settings, once: once),
            logger: logger,
            onProgress: { progress in
                display.show(progress)
                metrics.record(progress)
                if progress.pages > 0 { loads.started() }
            })
        self.notifier = notifier
        self.display = display
        self.loads = loads
        self.makeRepository = makeRepository
        self.store = store
        self.registry = registry
        self.metrics = metrics
        roleMetrics = WriterRoleMetrics(factory: metricsFactory)
    }

    /// The metrics server: each scrape reads the engine's stage depths and storage, the
    /// database's sources and image counts, and, on PostgreSQL, this run's `lease`.
    func metricsServer(address: ListenAddress, lease: PostgresWriterLease?, logger: Logger) -> MetricsServer {
        let (engine, store, metrics, roleMetrics) = (engine, store, metrics, roleMetrics)
        return MetricsServer(address: address, registry: registry, logger: logger) {
            if let lease, let renewedAt = lease.renewedAt {
                roleMetrics.record(
                    isActive: true,
                    holder: WriterLeaseHolder(
                        host: lease.host, pid: lease.pid, epoch: lease.epoch, renewedAgo: .now - renewedAt,
                        expired: false))
            }
            metrics.record(await engine.stageDepths)
            metrics.record(await engine.storage)
            // A scrape during a database error serves the rest, and the last values.
            if let sources = try? await store.catalog.sourceStatistics(),
                let images = try? await store.imageQueue.imageCounts(
                    variants: engine.configuration.variants)
            {
                metrics.record(sources: sources, images: images)
            }
        }
    }
}

/// How `run --once` ends once its sync returned on its own: exit 0 when every image is stored
/// or failed for good, 75 when work is left for a later run (README's exit codes).
enum RunOnceOutcome {
    /// Prints the summary (unless a terminal's progress line already said it), warns about
    /// images failed for good, and throws the 75 that pending work, or a pause for free disk,
    /// calls for.
    static func judge(
        _ progress: SyncProgress, variants: [ImageVariant], store: PhotoStore, interactive: Bool, logger: Logger
    ) async throws {
        let images = try await store.imageQueue.imageCounts(variants: variants)
        if !interactive {
            print(
                "synced: \(progress.counts); images: \(images.stored) stored, \(images.failed) failed, \(images.pending) pending"
                    + (images.retrying > 0 ? " (\(images.retrying) to retry)" : "")
            )
        }
        // Only what a later run will try again is worth running again for: an image that
        // failed for good (404, over the size cap...) stays failed until `photosync retry`.
        if images.failed > 0 {
            let failed = "\(images.failed) image\(images.failed == 1 ? "" : "s")"
            logger.warning(
                "\(failed) failed for good: 'photosync status' lists them, 'photosync retry --all' requeues them")
        }
        if let failure = leftWork(progress, images: images, variants: variants) { throw failure }
    }

    /// The 75 for work a later run does, or nil when none is left.
    static func leftWork(_ progress: SyncProgress, images: ImageCounts, variants: [ImageVariant]) -> CommandFailure? {
        let notDownloaded = "\(images.pending) image\(images.pending == 1 ? " is" : "s are") not downloaded"
        // Pages paused below the floor: the backfill is not done, whatever the images say.
        if let pause = progress.pagesPaused {
            return CommandFailure(
                code: .tempFailure,
                message: "\(pause); the sources are not all synced and \(notDownloaded): "
                    + "free disk space, or lower min_free_disk, and run again")
        }
        if let pause = progress.downloadsPaused, images.pending > 0 {
            return CommandFailure(
                code: .tempFailure,
                message: "\(pause); \(notDownloaded): free disk space, or lower min_free_disk, and run again")
        }
        guard images.pending > 0 else { return nil }
        let retrying =
            images.retrying > 0
            ? ", \(images.retrying) of them to retry after failing; the next run tries them again" : ""
        let kind = variants.map(\.rawValue).joined(separator: "/")
        let pending = "\(images.pending) \(kind) image\(images.pending == 1 ? " is" : "s are")"
        return CommandFailure(
            code: .tempFailure,
            message:
                "\(pending) not stored yet (\(images.failed) failed for good, \(images.pending) pending"
                + "\(retrying)): 'photosync status' lists them; run again later")
    }
}
