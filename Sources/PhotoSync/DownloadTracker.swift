import Foundation
import Logging
import PhotoStore
import Synchronization
import UnsplashAPI

/// The last stage: sends Unsplash's download-tracking request once for each stored image,
/// ``concurrency`` at a time, each within the ``RateLimitBudget`` and recorded as soon as it is
/// answered, so a restart resends none that was answered.
///
/// It reads what to track from the store (photos with a stored image and no tracking yet), so it
/// also sends what an earlier, stopped run left. It runs until ``writerFinished()`` and then
/// sends what is left.
///
/// Answers are recorded by a ``GroupCommit``: the answers that arrive while one is being written
/// share the next transaction, and each request's task waits for its record, so a batch is
/// recorded before the next one is read.
final class DownloadTracker: Sendable {
    let repository: PhotoRepository
    let store: PhotoStore
    let budget: RateLimitBudget
    let progress: ProgressTracker
    let now: @Sendable () -> Date
    let logger: Logger
    /// Tracking requests in flight at most.
    let concurrency: Int
    private let wake = WakeSignal()
    private let writerDone = Atomic<Bool>(false)
    private let sending = Atomic<Int>(0)
    private let recorder: GroupCommit<String>

    init(
        repository: PhotoRepository, store: PhotoStore, budget: RateLimitBudget, progress: ProgressTracker,
        now: @escaping @Sendable () -> Date, logger: Logger, concurrency: Int
    ) {
        self.repository = repository
        self.store = store
        self.budget = budget
        self.progress = progress
        self.now = now
        self.logger = logger
        self.concurrency = max(1, concurrency)
        recorder = GroupCommit { photoIDs in
            try storing { try store.ledger.markDownloadsTracked(photoIDs: photoIDs, at: now()) }
        }
    }

    /// Tracking requests being sent now: the stage's depth.
    var depth: Int { sending.load(ordering: .relaxed) }

    /// Images were stored: there is more to track.
    func imagesStored() {
        wake.signal()
    }

    /// No more images will be stored in this run: track what is left, then end.
    func writerFinished() {
        writerDone.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Tracks until the writer has finished and nothing is left.
    /// Throws ``SyncError/apiUnavailable(_:)`` on an outage (the requests stay pending),
    /// ``SyncError/accessKeyRejected(_:)``, ``SyncError/store(_:)``, or `CancellationError`.
    func run() async throws {
        while true {
            // Read before the store: a last signal after it is caught by the next round.
            let last = writerDone.load(ordering: .acquiring)
            try await trackPending()
            if last { return }
            await wake.wait()
            try Task.checkCancellation()
        }
    }

    /// Sends every tracking request pending now. Each batch is read from the store and finished
    /// before the next is read, so no request is sent twice.
    func trackPending() async throws {
        while true {
            let jobs = try await readingStore { () async throws(StoreError) in
                try await store.ledger.pendingDownloadTracking(limit: concurrency * 8)
            }
            guard !jobs.isEmpty else { return }
            try await withThrowingTaskGroup(of: Void.self) { group in
                var pending = jobs[...]
                for _ in 0..<concurrency {
                    guard let job = pending.popFirst() else { break }
                    group.addTask { try await self.track(job) }
                }
                while try await group.next() != nil {
                    if let job = pending.popFirst() {
                        group.addTask { try await self.track(job) }
                    }
                }
            }
        }
    }

    /// Tracks one download. A location the API refuses for good (4xx, another origin, not a URL)
    /// is recorded as done: asking again could not make it count. An outage is thrown and the
    /// request stays pending.
    private func track(_ job: DownloadTrackingJob) async throws {
        sending.add(1, ordering: .relaxed)
        defer { sending.subtract(1, ordering: .relaxed) }
        do {
            guard let location = URL(string: job.downloadLocation) else {
                throw UnsplashError.foreignURL(job.downloadLocation, expected: repository.api.baseURL.absoluteString)
            }
            let repository = repository
            let progress = progress
            _ = try await budget.spend(
                { admitsRetry in try await repository.admitting(admitsRetry).trackDownload(location) }, report: { $0 },
                onReport: { limit in await progress.update { $0.rateLimit = limit } })
            await progress.update { $0.downloadsTracked += 1 }
        } catch let error as UnsplashError {
            switch error {
            case .api(let status, _, _) where (400..<500).contains(status):
                logger.warning(
                    "download tracking refused; not retried",
                    metadata: ["photo": "\(job.photoID)", "error": "\(error.localizedDescription)"])
            case .foreignURL, .redirectRefused:
                logger.warning(
                    "download location is not on the API; not tracked",
                    metadata: ["photo": "\(job.photoID)", "error": "\(error.localizedDescription)"])
            case .cancelled:
                throw CancellationError()
            default:
                throw SyncError(unsplash: error)
            }
        }
        try await recorder.record(job.photoID)
    }
}
