import CoreMetrics
import Foundation
import Synchronization

/// The sync's progress as metrics, through swift-metrics: feed it every ``SyncProgress`` the
/// engine reports (`onProgress`), and the counters grow by what each update added.
///
/// Deriving the metrics from the progress reports, rather than from calls scattered through the
/// stages, keeps one source of truth: what `status`, the terminal line and `/metrics` say
/// cannot drift apart.
///
/// Metrics (Prometheus names):
/// - `photosync_pages_fetched_total`, `photosync_photos_seen_total`,
///   `photosync_images_stored_total`, `photosync_image_bytes_stored_total`,
///   `photosync_images_failed_total`, `photosync_downloads_tracked_total`;
/// - `photosync_rate_limit_remaining`: the budget the last API answer reported;
/// - `photosync_last_page_timestamp_seconds`: when the last page was stored (Unix time);
/// - `photosync_queue_depth{stage=...}`: work waiting at each stage of the engine, read from
///   ``SyncEngine/stageDepths`` when metrics are scraped.
/// - storage, read from ``SyncEngine/storage`` when metrics are scraped:
///   `photosync_storage_used_bytes` and `photosync_storage_limit_bytes` (absent without a
///   limit), `photosync_images_pruned_total`, `photosync_disk_free_bytes` and
///   `photosync_disk_reserve_bytes`, `photosync_downloads_paused` (1 while the free disk is
///   below the reserve), `photosync_wal_bytes` and `photosync_database_bytes`.
public final class SyncMetrics: Sendable {
    private let factory: any MetricsFactory
    private let now: @Sendable () -> Date
    private let pages: Counter
    private let photosSeen: Counter
    private let imagesStored: Counter
    private let imageBytesStored: Counter
    private let imagesFailed: Counter
    private let downloadsTracked: Counter
    private let rateLimitRemaining: Gauge
    private let lastPageTimestamp: Gauge
    private let queueDepths = Mutex<[String: Gauge]>([:])
    private let imagesPruned: Counter
    private let storageGauges = Mutex<[String: Gauge]>([:])
    private let last = Mutex(SyncProgress())

    public init(factory: any MetricsFactory, now: @escaping @Sendable () -> Date = Date.init) {
        self.factory = factory
        self.now = now
        pages = Counter(label: "photosync_pages_fetched_total", factory: factory)
        photosSeen = Counter(label: "photosync_photos_seen_total", factory: factory)
        imagesStored = Counter(label: "photosync_images_stored_total", factory: factory)
        imageBytesStored = Counter(label: "photosync_image_bytes_stored_total", factory: factory)
        imagesFailed = Counter(label: "photosync_images_failed_total", factory: factory)
        downloadsTracked = Counter(label: "photosync_downloads_tracked_total", factory: factory)
        rateLimitRemaining = Gauge(label: "photosync_rate_limit_remaining", factory: factory)
        lastPageTimestamp = Gauge(label: "photosync_last_page_timestamp_seconds", factory: factory)
        imagesPruned = Counter(label: "photosync_images_pruned_total", factory: factory)
    }

    /// Records what `progress` adds to the previous report.
    public func record(_ progress: SyncProgress) {
        let previous = last.withLock { last in
            defer { last = progress }
            return last
        }
        Self.add(progress.pages - previous.pages, to: pages)
        Self.add(progress.photosSeen - previous.photosSeen, to: photosSeen)
        Self.add(progress.imagesStored - previous.imagesStored, to: imagesStored)
        Self.add(Int(progress.bytesStored - previous.bytesStored), to: imageBytesStored)
        Self.add(progress.imagesFailed - previous.imagesFailed, to: imagesFailed)
        Self.add(progress.downloadsTracked - previous.downloadsTracked, to: downloadsTracked)
        Self.add(progress.imagesPruned - previous.imagesPruned, to: imagesPruned)
        if progress.pages > previous.pages {
            lastPageTimestamp.record(now().timeIntervalSince1970)
        }
        if let rateLimit = progress.rateLimit {
            rateLimitRemaining.record(rateLimit.remaining)
        }
    }

    /// Records how much work waits at each stage now (``SyncEngine/stageDepths``).
    public func record(_ depths: StageDepths) {
        queueDepth("jobs_queued").record(depths.jobsQueued)
        queueDepth("jobs_claimed").record(depths.jobsClaimed)
        queueDepth("images_to_write").record(depths.outcomesQueued)
        queueDepth("tracking_in_flight").record(depths.trackingInFlight)
        queueDepth("api_in_flight").record(depths.apiInFlight)
        queueDepth("api_waiting").record(depths.apiWaiting)
    }

    /// Records the storage budget, the disk reserve and the WAL now (``SyncEngine/storage``).
    /// A fact not known yet (the disk before its first look) is left unreported.
    public func record(_ storage: StorageReport) {
        if let used = storage.storedBytes { storageGauge("photosync_storage_used_bytes").record(used) }
        if let limit = storage.storageLimit { storageGauge("photosync_storage_limit_bytes").record(limit) }
        if let free = storage.freeDisk { storageGauge("photosync_disk_free_bytes").record(free) }
        if let reserve = storage.diskReserve { storageGauge("photosync_disk_reserve_bytes").record(reserve) }
        storageGauge("photosync_downloads_paused").record(storage.downloadsPaused ? 1 : 0)
        storageGauge("photosync_wal_bytes").record(storage.walBytes)
        storageGauge("photosync_database_bytes").record(storage.databaseBytes)
    }

    private func storageGauge(_ label: String) -> Gauge {
        storageGauges.withLock { gauges in
            if let gauge = gauges[label] { return gauge }
            let gauge = Gauge(label: label, factory: factory)
            gauges[label] = gauge
            return gauge
        }
    }

    private func queueDepth(_ stage: String) -> Gauge {
        queueDepths.withLock { gauges in
            if let gauge = gauges[stage] { return gauge }
            let gauge = Gauge(label: "photosync_queue_depth", dimensions: [("stage", stage)], factory: factory)
            gauges[stage] = gauge
            return gauge
        }
    }

    private static func add(_ delta: Int, to counter: Counter) {
        if delta > 0 { counter.increment(by: delta) }
    }
}
