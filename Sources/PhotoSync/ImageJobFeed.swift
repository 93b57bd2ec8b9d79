import Foundation
import Logging
import PhotoStore
import Synchronization

/// Reads due jobs from the store's image queue and hands each to the fetchers once. With
/// several variants, a photo's jobs are handed out one at a time (claims are by photo, as the
/// writer reports them).
///
/// A job stays pending in the store until the writer commits its outcome, so the feed keeps the
/// jobs it handed out as claimed until ``settled(_:)``: a job is never fetched twice at once, and
/// a job whose outcome was lost with a killed process is simply still pending next time.
///
/// It ends when the walk has ended, no claimed job is left and nothing is due, once the retries
/// the round waits for (``RetriesWithinRun``: those of `runOnce`) have been fed again; failures
/// waiting for their backoff are left to a later round.
final class ImageJobFeed: RoundStage, Sendable {
    let round: RoundContext
    let variants: [ImageVariant]
    let clock: any Clock<Duration>
    let retries: RetriesWithinRun
    /// Says whether the free disk allows downloads; while it does not, no job is handed out.
    let disk: DiskReserveWatch
    /// The free space the round keeps (`min_free_disk`).
    let reserve: FreeDiskReserve
    /// Called when downloads pause, so that the walker stops waiting for them.
    let downloadsPaused: @Sendable () -> Void
    /// The fetchers' input.
    let jobs: BoundedQueue<ImageJob>
    private let claims = Mutex(Claims())
    private let walkEnded = Atomic<Bool>(false)
    private let wake = WakeSignal()

    init(
        round: RoundContext, variants: [ImageVariant], capacity: Int, clock: any Clock<Duration>,
        retries: RetriesWithinRun, disk: DiskReserveWatch, reserve: FreeDiskReserve,
        downloadsPaused: @escaping @Sendable () -> Void = {}
    ) {
        self.round = round
        self.disk = disk
        self.reserve = reserve
        self.downloadsPaused = downloadsPaused
        self.variants = variants
        self.clock = clock
        self.retries = retries
        self.jobs = BoundedQueue(capacity: capacity)
    }

    /// Jobs handed out whose outcome is not committed yet, and those settled while the store
    /// was being read: that read's snapshot may still show them pending.
    private struct Claims {
        var claimed: Set<String> = []
        var settledDuringRead: Set<String>?
    }

    /// Jobs handed out whose outcome is not committed yet.
    var claimedCount: Int { claims.withLock { $0.claimed.count } }

    /// Feeds jobs until there are no more (see the type's contract), then finishes ``jobs``.
    ///
    /// While the free disk is below the reserve it hands out nothing (it looks before each job)
    /// and looks again every ``SyncConfiguration/diskRecheckInterval``: `runOnce`
    /// (``RetriesWithinRun/withinRun``) ends once the walk has, with the pause in its progress;
    /// the daemon waits for room within the round.
    /// Throws ``SyncError/store(_:)``, or `CancellationError`.
    func run() async throws {
        defer { jobs.finish() }
        var dueBy = Date.distantPast
        var paused = false
        while true {
            try Task.checkCancellation()
            // Read before the queue, so a walk that ends meanwhile is seen on the next round.
            let walkHasEnded = walkEnded.load(ordering: .acquiring)
            if let pause = disk.check(against: reserve) {
                if !paused {
                    paused = true
                    logger.warning("\(pause); pages go on", metadata: ["free_bytes": "\(pause.freeBytes)"])
                }
                await progress.update { $0.downloadsPaused = pause }
                downloadsPaused()
                if walkHasEnded && claimedCount == 0 && retries.withinRun { return }
                await waitForSignal(orAfter: disk.recheckInterval)
                continue
            }
            if paused {
                paused = false
                logger.notice("downloads resumed: the free disk is above the reserve again")
                await progress.update { $0.downloadsPaused = nil }
            }
            let due = max(now(), dueBy)
            let (fresh, leftOut) = try await claimJobs(dueBy: due)
            if !fresh.isEmpty {
                try await handOut(fresh)
                continue
            }
            // Read again before ending or waiting: the walk may be over and every claim settled,
            // and the next variant of a photo left out is still to be handed out. (A run --once
            // ended with a thumbnail pending when the regular image settled during this read.)
            if leftOut {
                await Task.yield()
                continue
            }
            if walkHasEnded && claimedCount == 0 {
                guard let retry = retries.earliest else { return }
                // Anything due by `due` was read above, and left out only when its photo settled
                // another job during the read (with several variants): read again.
                if retry <= due {
                    await Task.yield()
                    continue
                }
                await progress.update { $0.activity = "retrying failed images" }
                try await clock.sleep(for: .seconds(max(0, retry.timeIntervalSince(now()))))
                // The wall clock a test gives may not move with its clock: due is by `retry`.
                dueBy = retry
                continue
            }
            await wake.wait()
        }
    }

    /// Reads the jobs due by `due` and claims those no fetcher has yet (`fresh`). A job settled
    /// after the read began may be in it as still pending: it is done. Its photo's other variants
    /// in the read are left out with it, to be read again (`leftOut`).
    private func claimJobs(dueBy due: Date) async throws -> (fresh: [ImageJob], leftOut: Bool) {
        let alreadyClaimed = claims.withLock { claims in
            claims.settledDuringRead = []
            return claims.claimed.count
        }
        let candidates = try await readingStore { () async throws(StoreError) in
            try await store.imageQueue.dueImageJobs(variants: variants, now: due, limit: alreadyClaimed + jobs.capacity)
        }
        return claims.withLock { claims in
            defer { claims.settledDuringRead = nil }
            let settled = claims.settledDuringRead ?? []
            let fresh = candidates.filter { job in
                !settled.contains(job.photoID) && claims.claimed.insert(job.photoID).inserted
            }
            return (fresh, candidates.contains { settled.contains($0.photoID) })
        }
    }

    /// Hands the claimed jobs to the fetchers, one at a time while the free disk allows; those
    /// left when it does not are claimed no more, to be read again.
    private func handOut(_ fresh: [ImageJob]) async throws {
        for (index, job) in fresh.enumerated() {
            // Each job is handed out only while there is room: the disk may fill while the
            // read's earlier jobs wait for a free slot, and a whole read handed out regardless
            // would download that many images past the reserve.
            if index > 0, disk.check(against: reserve) != nil {
                claims.withLock { claims in
                    for unsent in fresh[index...] { claims.claimed.remove(unsent.photoID) }
                }
                return
            }
            retries.handedOut(job)
            try await jobs.send(job)
        }
    }

    /// Returns at the next signal or after `interval`, whichever comes first.
    private func waitForSignal(orAfter interval: Duration) async {
        let (wake, clock) = (wake, clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wake.wait() }
            group.addTask { try? await clock.sleep(for: interval) }
            await group.next()
            group.cancelAll()
        }
    }

    /// New jobs may be due: a page was committed.
    func jobsAdded() {
        wake.signal()
    }

    /// The walk has ended: once the claimed jobs settle and nothing is due, the feed ends.
    func walkFinished() {
        walkEnded.store(true, ordering: .releasing)
        wake.signal()
    }

    /// The writer committed the outcomes of these photos' jobs.
    func settled(_ photoIDs: [String]) {
        claims.withLock { claims in
            for id in photoIDs {
                claims.claimed.remove(id)
                claims.settledDuringRead?.insert(id)
            }
        }
        wake.signal()
    }
}

/// The free disk against the reserve, looked at before downloads are handed out.
final class DiskReserveWatch: Sendable {
    let probe: @Sendable () -> DiskSpace?
    let recheckInterval: Duration
    private let state = Mutex<(space: DiskSpace?, pause: DownloadPause?)>((nil, nil))

    init(probe: @escaping @Sendable () -> DiskSpace?, recheckInterval: Duration) {
        self.probe = probe
        self.recheckInterval = recheckInterval
    }

    /// Looks at the disk now: the pause `reserve` calls for, nil when there is room (or the file
    /// system cannot say). The reserve is the round's own, so a reload that changes it applies.
    @discardableResult
    func check(against reserve: FreeDiskReserve) -> DownloadPause? {
        let space = probe()
        let pause = space.flatMap { DownloadPause.judging($0, reserve: reserve) }
        state.withLock { $0 = (space, pause) }
        return pause
    }

    /// What the last ``check(against:)`` saw.
    var last: (space: DiskSpace?, pause: DownloadPause?) { state.withLock { $0 } }

    /// Looks at the disk now for the page walker: the pause the floor under `reserve` calls for
    /// (``PagePause``), nil when there is room or the file system cannot say.
    func checkFloor(of reserve: FreeDiskReserve) -> PagePause? {
        let space = probe()
        let pause = space.flatMap { PagePause.judging($0, reserve: reserve) }
        pages.withLock { $0 = pause }
        return pause
    }

    /// What the last ``checkFloor(of:)`` saw: whether pages are paused.
    var pagesPaused: PagePause? { pages.withLock { $0 } }
    private let pages = Mutex<PagePause?>(nil)
}
