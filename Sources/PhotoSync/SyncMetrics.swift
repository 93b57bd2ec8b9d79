import CoreMetrics
import Foundation
import PhotoStore
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
/// - `photosync_rate_limit_remaining`: the budget the last API answer reported; absent until
///   an answer has reported one, so that an alert on a low budget never fires on a restart;
/// - `photosync_last_page_timestamp_seconds`: when the last page was stored (Unix time), from
///   the database until this run stores one; absent on a database that has none;
/// - `photosync_queue_depth{stage=...}`: work waiting at each stage of the engine, read from
///   ``SyncEngine/stageDepths`` when metrics are scraped;
/// - `photosync_image_retries_total`: image downloads that failed and were scheduled again;
/// - `photosync_images_pending`, `photosync_source_last_page_age_seconds{source=...}`,
///   `photosync_source_stalled{source=...}`: read from the database when metrics are scraped
///   (``record(sources:images:)``);
/// - storage, read from ``SyncEngine/storage`` when metrics are scraped:
///   `photosync_storage_used_bytes` and `photosync_storage_limit_bytes` (absent without a
///   limit), `photosync_images_pruned_total`, `photosync_disk_free_bytes` and
///   `photosync_disk_reserve_bytes`, `photosync_downloads_paused` (1 while the free disk is
///   below the reserve), `photosync_pages_paused` (1 while it is below half the reserve, the
///   floor), `photosync_wal_bytes` and `photosync_database_bytes`.
///
/// Every name has its HELP text in ``descriptions``.
public final class SyncMetrics: Sendable {
    private let factory: any MetricsFactory
    private let now: @Sendable () -> Date
    private let pages: Counter
    private let photosSeen: Counter
    private let imagesStored: Counter
    private let imageBytesStored: Counter
    private let imagesFailed: Counter
    private let downloadsTracked: Counter
    private let imageRetries: Counter
    private let imagesPending: Gauge
    /// Gauges made on their first value, so that none reads 0 before anything is known.
    private let lateGauges = Mutex<[String: Gauge]>([:])
    private let queueDepths = Mutex<[String: Gauge]>([:])
    private let imagesPruned: Counter
    private let sourceGauges = Mutex<[String: (age: Gauge?, stalled: Gauge)]>([:])
    /// Whether this run has stored a page: from then on the gauge follows the pages it stores.
    private let storedPage = Mutex(false)
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
        imageRetries = Counter(label: "photosync_image_retries_total", factory: factory)
        imagesPending = Gauge(label: "photosync_images_pending", factory: factory)
        imagesPruned = Counter(label: "photosync_images_pruned_total", factory: factory)
    }

    /// The HELP text of every metric photosync serves, by name. A metric missing here is served
    /// with its name as its help, which Prometheus accepts but tells an operator nothing.
    public static let descriptions: [String: String] = [
        "photosync_pages_fetched_total": "API pages fetched and stored by this run.",
        "photosync_photos_seen_total": "Photos listed on the pages this run stored, repeats included.",
        "photosync_images_stored_total": "Images downloaded and stored by this run.",
        "photosync_image_bytes_stored_total": "Bytes of the images stored by this run.",
        "photosync_images_failed_total": "Images this run gave up on (a permanent answer, or too many attempts).",
        "photosync_image_retries_total": "Image downloads that failed and were scheduled to be tried again.",
        "photosync_downloads_tracked_total": "Download-tracking requests Unsplash answered during this run.",
        "photosync_rate_limit_remaining":
            "API requests left in the current rate-limit window, as the last answer reported.",
        "photosync_last_page_timestamp_seconds": "When the last page of any source was stored (Unix time).",
        "photosync_queue_depth": "Work waiting at each stage of the sync engine.",
        "photosync_images_pending": "Images of the configured variants waiting in the database for a download.",
        "photosync_source_last_page_age_seconds": "Seconds since a page of this source was last stored.",
        "photosync_source_stalled":
            "1 while this source cannot go on (a page that contradicts itself, or the API does not know it).",
        "photosync_api_requests_total": "Requests sent to the Unsplash API, by the status of their answer.",
        "photosync_api_retries_total": "API requests sent again after a failed attempt, by the status of the retry.",
        "photosync_storage_used_bytes": "Bytes of the images stored now.",
        "photosync_storage_limit_bytes": "The storage_limit the stored images are kept within.",
        "photosync_images_pruned_total": "Images whose bytes this run freed to stay within storage_limit.",
        "photosync_disk_free_bytes": "Free bytes on the database's file system.",
        "photosync_disk_reserve_bytes": "The free space min_free_disk keeps; image downloads pause below it.",
        "photosync_downloads_paused": "1 while image downloads are paused because the free disk is below the reserve.",
        "photosync_pages_paused": "1 while pages are paused too because the free disk is below half the reserve.",
        "photosync_wal_bytes": "Size of the database's write-ahead log.",
        "photosync_database_bytes": "Size of the database file.",
    ]

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
        Self.add(progress.imageRetries - previous.imageRetries, to: imageRetries)
        Self.add(progress.imagesPruned - previous.imagesPruned, to: imagesPruned)
        if progress.pages > previous.pages {
            storedPage.withLock { $0 = true }
            lateGauge("photosync_last_page_timestamp_seconds").record(now().timeIntervalSince1970)
        }
        if let rateLimit = progress.rateLimit {
            lateGauge("photosync_rate_limit_remaining").record(rateLimit.remaining)
        }
    }

    /// Records what the database says of each source and of the images waiting, when metrics
    /// are scraped: the age of each active source's last page (absent before its first),
    /// whether it is stalled, and the images pending. Sources no longer configured are dropped.
    public func record(sources: [SourceStatistics], images: ImageCounts) {
        let now = now()
        imagesPending.record(images.pending)
        let active = sources.filter(\.active)
        let newest = active.compactMap(\.state.lastPageAt).max()
        if let newest, !storedPage.withLock({ $0 }) {
            lateGauge("photosync_last_page_timestamp_seconds").record(newest.timeIntervalSince1970)
        }
        sourceGauges.withLock { gauges in
            for source in active {
                var pair =
                    gauges[source.name]
                    ?? (
                        age: nil,
                        stalled: Gauge(
                            label: "photosync_source_stalled", dimensions: [("source", source.name)], factory: factory)
                    )
                if let lastPage = source.state.lastPageAt {
                    let age =
                        pair.age
                        ?? Gauge(
                            label: "photosync_source_last_page_age_seconds", dimensions: [("source", source.name)],
                            factory: factory)
                    age.record(max(0, now.timeIntervalSince(lastPage)))
                    pair.age = age
                }
                pair.stalled.record(source.state.backfillStall != nil || source.failure != nil ? 1 : 0)
                gauges[source.name] = pair
            }
            let names = Set(active.map(\.name))
            for (name, pair) in gauges where !names.contains(name) {
                pair.age?.destroy()
                pair.stalled.destroy()
                gauges[name] = nil
            }
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
        if let used = storage.storedBytes { lateGauge("photosync_storage_used_bytes").record(used) }
        if let limit = storage.storageLimit { lateGauge("photosync_storage_limit_bytes").record(limit) }
        if let free = storage.freeDisk { lateGauge("photosync_disk_free_bytes").record(free) }
        if let reserve = storage.diskReserve { lateGauge("photosync_disk_reserve_bytes").record(reserve) }
        lateGauge("photosync_downloads_paused").record(storage.downloadsPaused ? 1 : 0)
        lateGauge("photosync_pages_paused").record(storage.pagesPaused ? 1 : 0)
        if let wal = storage.walBytes { lateGauge("photosync_wal_bytes").record(wal) }
        if let database = storage.databaseBytes { lateGauge("photosync_database_bytes").record(database) }
    }

    private func lateGauge(_ label: String) -> Gauge {
        lateGauges.withLock { gauges in
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
