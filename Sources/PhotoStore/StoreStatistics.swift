import Foundation

/// Counts for `photosync status`. Computed from columns and indexes only: no image blob is read.
public struct StoreStatistics: Sendable, Equatable {
    public var photos: Int64
    /// Image counts are over all variants.
    public var imagesStored: Int64
    /// Images not stored yet, including those waiting for a retry after a transient failure.
    public var imagesPending: Int64
    /// Images whose failure was permanent (404, 410, a refused host, over the size cap, not an
    /// image): never tried again unless `photosync retry` asks.
    public var imagesFailed: Int64
    /// Of the pending images, those that failed for a reason that may pass, each waiting for its
    /// next attempt.
    public var imagesRetrying: Int64 = 0
    /// The earliest next attempt among ``imagesRetrying``; nil when none waits.
    public var nextImageRetryAt: Date?
    /// Sum of the stored images' sizes.
    public var bytesStored: Int64
    public var backfillNext: URL?
    public var backfillComplete: Bool
    public var lastPageAt: Date?
    /// Feed elements kept in `rejected_photo` because they are not usable photos.
    public var rejectedPhotos: Int64 = 0
    /// Set while the backfill retries a page that contradicted itself.
    public var backfillStall: BackfillStall?
    /// Unsplash+ photos: metadata kept, image skipped (it needs a paid licence).
    public var plusPhotos: Int64 = 0
    /// Every source the database knows, by name.
    public var sources: [SourceStatistics] = []
    /// Images whose bytes were freed to keep within `storage_limit` (over all variants).
    public var imagesPruned: Int64 = 0
    /// The bytes those pruned images had.
    public var bytesPruned: Int64 = 0
    /// When `run` last loaded its configuration; nil before a run that records it.
    public var configurationLoaded: ConfigurationLoad?

    public init(
        photos: Int64, imagesStored: Int64, imagesPending: Int64, imagesFailed: Int64,
        bytesStored: Int64, backfillNext: URL?, backfillComplete: Bool, lastPageAt: Date?
    ) {
        self.photos = photos
        self.imagesStored = imagesStored
        self.imagesPending = imagesPending
        self.imagesFailed = imagesFailed
        self.bytesStored = bytesStored
        self.backfillNext = backfillNext
        self.backfillComplete = backfillComplete
        self.lastPageAt = lastPageAt
    }
}

/// When `run` loaded its configuration: at its start, or on SIGHUP (`reload`).
public struct ConfigurationLoad: Sendable, Equatable {
    public var at: Date
    public var reload: Bool

    public init(at: Date, reload: Bool) {
        self.at = at
        self.reload = reload
    }
}
