import Foundation
import PhotoStore
import UnsplashAPI

/// What a sync has done so far, for progress displays, status lines and the final report.
public struct SyncProgress: Sendable, Equatable {
    public var pages = 0
    public var photosSeen = 0
    public var photosNew = 0
    public var imagesStored = 0
    public var imagesFailed = 0
    /// Image downloads that failed and were scheduled to be tried again.
    public var imageRetries = 0
    public var bytesStored: Int64 = 0
    public var downloadsTracked = 0
    /// Download-tracking requests that kept failing, left pending for a later round or run.
    public var downloadsDeferred = 0
    /// Transactions the image writer committed: fewer than the images when it group-commits.
    public var imageBatches = 0
    /// The API's budget as the rate limiter judges it: the lowest `remaining` reported in the
    /// current window (a higher one only once the window was renewed), not the last answer's.
    public var rateLimit: RateLimit?
    /// What the sync is doing now, in a few words.
    public var activity = "starting"
    /// Images whose bytes were freed to keep within the storage limit, and how many bytes.
    public var imagesPruned = 0
    public var bytesPruned: Int64 = 0
    /// Set while image downloads wait for free disk space: why.
    public var downloadsPaused: DownloadPause?
    /// Set while pages, too, wait for free disk space (below half the reserve): why.
    public var pagesPaused: PagePause?

    public init() {}

    /// One line, for logs and systemd's STATUS=: the activity, then ``counts``.
    public var summary: String {
        let pause = downloadsPaused.map { "; \($0)" } ?? ""
        let pages = pagesPaused.map { "; \($0)" } ?? ""
        return "\(activity): \(counts)\(pause)\(pages)"
    }

    /// What was done, as one line.
    public var counts: String {
        var parts = [
            "\(pages) pages", "\(photosSeen) photos (\(photosNew) new)",
            "\(imagesStored) images, \(ByteCount.text(bytesStored))",
        ]
        if imagesFailed > 0 { parts.append("\(imagesFailed) image failures") }
        if downloadsDeferred > 0 { parts.append("\(downloadsDeferred) download trackings deferred") }
        if imagesPruned > 0 { parts.append("\(imagesPruned) pruned (\(ByteCount.text(bytesPruned)))") }
        if let rateLimit { parts.append("rate limit \(rateLimit.remaining)/\(rateLimit.limit)") }
        return parts.joined(separator: ", ")
    }
}

/// Collects progress from concurrent work and hands each new state to the observer.
actor ProgressTracker {
    private(set) var progress = SyncProgress()
    private let observer: @Sendable (SyncProgress) -> Void

    init(observer: @escaping @Sendable (SyncProgress) -> Void) {
        self.observer = observer
    }

    func update(_ change: (inout SyncProgress) -> Void) {
        change(&progress)
        observer(progress)
    }
}
