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
/// share the next transaction. A request's slot is free as soon as its answer is in: while the
/// image writer holds the database, the next requests go out and their records wait together.
/// A batch is recorded before the next one is read.
///
/// Tracking can wait, images cannot: a request that still fails after its retries (a 5xx, a
/// dropped connection) is deferred, left pending in the ledger for the next round or run, and
/// the round goes on. After ``deferralsToPause`` deferrals in a row the API is taken to be down,
/// and the round sends no more tracking requests. It never ends a sync.
final class DownloadTracker: RoundStage, Sendable {
    let round: RoundContext
    /// Tracking requests in flight at most.
    let concurrency: Int
    private let wake = WakeSignal()
    private let writerDone = Atomic<Bool>(false)
    private let sending = Atomic<Int>(0)
    private let recorder: GroupCommit<String>
    /// Photos whose tracking failed in this round: left pending for the next one.
    private let deferred = Mutex<Set<String>>([])
    private let deferralsInARow = Atomic<Int>(0)
    /// Deferrals in a row after which the round stops tracking.
    var deferralsToPause: Int { max(3, concurrency) }
    private var paused: Bool { deferralsInARow.load(ordering: .relaxed) >= deferralsToPause }

    init(round: RoundContext, concurrency: Int) {
        self.round = round
        self.concurrency = max(1, concurrency)
        let (store, now) = (round.store, round.now)
        recorder = GroupCommit { photoIDs in
            try await writingStore { () async throws(StoreError) in
                try await store.ledger.markDownloadsTracked(photoIDs: photoIDs, at: now())
            }
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

    /// Tracks until the writer has finished and nothing is left but deferred requests.
    /// Throws ``SyncError/accessKeyRejected(_:)``, ``SyncError/store(_:)``, or `CancellationError`;
    /// never for an outage, which defers the requests.
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
        while !paused {
            let skipped = deferred.withLock { $0 }
            let jobs = try await readingStore { () async throws(StoreError) in
                try await store.ledger.pendingDownloadTracking(limit: concurrency * 8 + skipped.count)
            }.filter { !skipped.contains($0.photoID) }
            guard !jobs.isEmpty else { return }
            try await withThrowingTaskGroup(of: Step.self) { group in
                var pending = jobs[...]
                var inFlight = 0
                while true {
                    while inFlight < concurrency, !paused, let job = pending.popFirst() {
                        inFlight += 1
                        group.addTask { .answered(try await self.send(job) ? job.photoID : nil) }
                    }
                    guard let step = try await group.next() else { return }
                    guard case .answered(let photoID) = step else { continue }
                    inFlight -= 1
                    if let photoID {
                        group.addTask {
                            try await self.recorder.record(photoID)
                            return .recorded
                        }
                    }
                }
            }
        }
    }

    /// What a task of ``trackPending()`` finished: a request (with the photo to record, unless it
    /// was deferred), or a record.
    private enum Step {
        case answered(String?)
        case recorded
    }

    /// Sends one download's tracking request, and tells whether to record it as done: when
    /// Unsplash answered, and when the API refuses the location for good (4xx, another origin,
    /// not a URL), since asking again could not make it count. After an outage (a 5xx, a lost
    /// connection, once the provider's retries are spent) the request is deferred: not recorded.
    private func send(_ job: DownloadTrackingJob) async throws -> Bool {
        sending.add(1, ordering: .relaxed)
        defer { sending.subtract(1, ordering: .relaxed) }
        // A holder of the writer lease that was paused past it must not send what the standby
        // that took over will send: its record of it could not be written.
        guard store.holdsWriterRole() else { throw SyncError.store(.writerLeaseLost(path: store.path)) }
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
            deferralsInARow.store(0, ordering: .relaxed)
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
            case .spool(let cause):
                throw SyncError.spool(cause)
            case .accessKeyRejected:
                throw SyncError(unsplash: error)
            case .api, .network, .rateLimited:
                await deferTracking(of: job, because: error)
                return false
            }
        }
        return true
    }

    /// Leaves `job` pending for a later round: the images go on without it.
    private func deferTracking(of job: DownloadTrackingJob, because error: UnsplashError) async {
        deferred.withLock { _ = $0.insert(job.photoID) }
        let inARow = deferralsInARow.add(1, ordering: .relaxed).newValue
        logger.notice(
            "download tracking failed; deferred to the next round",
            metadata: ["photo": "\(job.photoID)", "error": "\(error.localizedDescription)"])
        if inARow == deferralsToPause {
            logger.warning(
                "download tracking paused until the next round: the API keeps failing",
                metadata: ["failures_in_a_row": "\(inARow)"])
        }
        await progress.update { $0.downloadsDeferred += 1 }
    }
}
