import Foundation
import Networking
import UnsplashAPI

/// What a sync does and how hard it may push.
public struct SyncConfiguration: Sendable {
    /// What to mirror, in the order the sources take turns.
    public var sources: [PhotoSource]
    /// How long a source that answered 404 is left alone before it is tried again (daemon).
    public var sourceRetryDelay: Duration
    /// Photos per page; 30 is the most Unsplash allows and the fewest requests per photo.
    public var perPage: Int
    /// The image sizes to download, each once per photo; none mirrors metadata only (no
    /// images, so no download tracking either).
    public var variants: [ImageVariant]
    /// The first of ``variants`` (`regular` when there is none); setting it downloads that one only.
    public var variant: ImageVariant {
        get { variants.first ?? .regular }
        set { variants = [newValue] }
    }
    /// Images downloaded at once.
    public var concurrency: Int
    /// Download-tracking requests in flight at once.
    public var trackingConcurrency: Int
    /// How far the page walker may run ahead of the downloads: it fetches another page only
    /// while fewer than this many pages' worth of images wait for their first download.
    public var pagesAhead: Int
    /// How often a running daemon looks for new photos at the head of each source.
    public var pollInterval: Duration
    /// Hosts images may come from (https; plain http only for loopback addresses).
    public var allowedImageHosts: Set<String>
    /// The slowest an image may arrive once its head is in: below it, the download fails as a
    /// transient failure and is tried again later.
    public var imageMinimumRate: MinimumRate
    /// Whether to send Unsplash's download-tracking request once per stored image.
    public var downloadTracking: Bool
    /// API requests kept in reserve: with this few left, the sync waits instead of spending them.
    public var rateLimitReserve: Int
    /// How long to wait when the budget is low or exhausted and the API names no time.
    public var rateLimitPause: Duration
    /// A head catch-up stops after this many consecutive photos it already had.
    public var knownRunToStop: Int
    /// Attempts at an image within one ``SyncEngine/runOnce(maxPages:)``; after the last, a
    /// transient failure waits for its ``imageBackoff`` (a later run, or the daemon, tries again).
    public var maxImageAttempts: Int
    /// Within one ``SyncEngine/runOnce(maxPages:)``, the first wait before an image is tried
    /// again; it doubles with each failure.
    public var imageRetryDelay: Duration
    /// Within one ``SyncEngine/runOnce(maxPages:)``, the longest wait between two attempts.
    public var maxImageRetryDelay: Duration
    /// After a transient image failure not retried within the run (every one in daemon mode),
    /// the wait before the next attempt: this after the first failure, doubling with each one.
    public var imageBackoff: Duration
    /// The longest ``imageBackoff``: an image that keeps failing is still tried this often.
    public var maxImageBackoff: Duration
    /// The part of each backoff taken off at random (0-1), so that images that failed together
    /// are not all tried again at the same moment.
    public var imageBackoffJitter: Double
    /// In daemon mode, the wait before trying again after the API could not be reached.
    public var outageRetryDelay: Duration
    /// The most bytes of images to keep stored: storing one more prunes the images fetched
    /// longest ago (``PhotoStore``'s `storeImages(_:failures:storageLimit:)`); nil keeps all.
    public var storageLimit: Int64?
    /// The free space to keep on the database's file system: image downloads pause below it.
    public var minFreeDisk: FreeDiskReserve
    /// How often paused downloads look at the free space again.
    public var diskRecheckInterval: Duration
    /// How old the stored object of a source (its collection, topic or profile) may get before
    /// a poll fetches it again.
    public var sourceObjectMaxAge: Duration = .seconds(24 * 3600)
    /// Which photos' full objects (`GET /photos/:id`) the sync fetches after its pages
    /// (``PhotoDetailsRefresh``).
    public var photoDetails: PhotoDetailsMode = .standard

    public init(
        sources: [PhotoSource] = [.feed],
        sourceRetryDelay: Duration = .seconds(6 * 3600),
        perPage: Int = UnsplashAPI.maxPerPage,
        variant: ImageVariant = .regular,
        variants: [ImageVariant]? = nil,
        concurrency: Int = 4,
        trackingConcurrency: Int = 4,
        pagesAhead: Int = 4,
        pollInterval: Duration = .seconds(300),
        allowedImageHosts: Set<String> = [UnsplashAPI.imageHost],
        imageMinimumRate: MinimumRate = .standard,
        downloadTracking: Bool = true,
        rateLimitReserve: Int = 10,
        rateLimitPause: Duration = .seconds(600),
        knownRunToStop: Int = 10,
        maxImageAttempts: Int = 5,
        imageRetryDelay: Duration = .seconds(60),
        maxImageRetryDelay: Duration = .seconds(3600),
        outageRetryDelay: Duration = .seconds(60),
        imageBackoff: Duration = .seconds(60),
        maxImageBackoff: Duration = .seconds(6 * 3600),
        imageBackoffJitter: Double = 0.2,
        storageLimit: Int64? = nil,
        minFreeDisk: FreeDiskReserve = .standard,
        diskRecheckInterval: Duration = .seconds(10)
    ) {
        self.sources = sources.isEmpty ? [.feed] : sources
        self.sourceRetryDelay = sourceRetryDelay
        self.perPage = min(max(1, perPage), UnsplashAPI.maxPerPage)
        var distinct: [ImageVariant] = []
        for variant in variants ?? [variant] where !distinct.contains(variant) { distinct.append(variant) }
        self.variants = distinct
        self.concurrency = max(1, concurrency)
        self.trackingConcurrency = max(1, trackingConcurrency)
        self.pagesAhead = max(1, pagesAhead)
        self.pollInterval = pollInterval
        self.allowedImageHosts = Set(allowedImageHosts.map { $0.lowercased() })
        self.imageMinimumRate = imageMinimumRate
        self.downloadTracking = downloadTracking
        self.rateLimitReserve = max(0, rateLimitReserve)
        self.rateLimitPause = rateLimitPause
        self.knownRunToStop = max(1, knownRunToStop)
        self.maxImageAttempts = max(1, maxImageAttempts)
        self.imageRetryDelay = imageRetryDelay
        self.maxImageRetryDelay = maxImageRetryDelay
        self.outageRetryDelay = outageRetryDelay
        self.imageBackoff = imageBackoff
        self.maxImageBackoff = maxImageBackoff
        self.imageBackoffJitter = min(max(0, imageBackoffJitter), 1)
        self.storageLimit = storageLimit.map { max(0, $0) }
        self.minFreeDisk = minFreeDisk
        self.diskRecheckInterval = diskRecheckInterval
    }

    /// The engine's defaults, which `photosync`'s settings default to.
    public static let standard = SyncConfiguration()

    /// Within a run, the wait after an image's `attempts`-th failure in that run.
    func imageRetryDelay(afterAttempts attempts: Int) -> Duration {
        Self.doubling(imageRetryDelay, afterFailures: attempts, upTo: maxImageRetryDelay)
    }

    /// The backoff after an image's `attempts`-th failure (all runs together), less the jitter's
    /// share of it scaled by `random` (0..<1).
    func imageBackoff(afterAttempts attempts: Int, random: Double) -> Duration {
        let full = Self.doubling(imageBackoff, afterFailures: attempts, upTo: maxImageBackoff)
        return full * (1 - imageBackoffJitter * min(max(0, random), 1))
    }

    /// The wait after a source's object failed `failures` times in a row: one poll interval,
    /// so the first retry is the next poll, then twice as long after each failure, up to
    /// ``sourceRetryDelay``, as long as a source that answered 404 is left alone.
    func sourceObjectRetryDelay(afterFailures failures: Int) -> Duration {
        Self.doubling(pollInterval, afterFailures: failures, upTo: sourceRetryDelay)
    }

    /// `first` after one failure, doubling with each further one, never more than `longest`.
    private static func doubling(_ first: Duration, afterFailures failures: Int, upTo longest: Duration) -> Duration {
        min(first * (1 << min(max(0, failures - 1), 20)), longest)
    }
}
