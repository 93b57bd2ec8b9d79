import Logging

/// Holds the page walker back while the free disk is below the floor (``PagePause``: half of
/// `min_free_disk`). Below the reserve only downloads pause and pages go on; the floor keeps
/// metadata, too, from filling the disk the mirror shares with the rest of the host.
///
/// The daemon waits for room, looking again every ``SyncConfiguration/diskRecheckInterval``;
/// `runOnce` (``waits`` false) does not: its walk ends, and the run exits 75 with the pause.
struct PageFloor: Sendable {
    let disk: DiskReserveWatch
    /// The round's own reserve, so that a reload that changes it applies.
    let reserve: FreeDiskReserve
    let clock: any Clock<Duration>
    let progress: ProgressTracker
    let logger: Logger
    /// Whether to wait for room (the daemon) or to end the walk (`runOnce`).
    let waits: Bool

    /// Returns true once there is room for a page, false at once below the floor when it does
    /// not wait; also true, while waiting, as soon as `interrupted` says so (a reload), so that
    /// the walk can end its round. Logs once when pages pause and once when they resume.
    func waitForRoom(unless interrupted: @Sendable () -> Bool) async throws -> Bool {
        var paused = false
        while true {
            try Task.checkCancellation()
            guard let pause = disk.checkFloor(of: reserve) else { break }
            if !paused {
                paused = true
                let wait = waits ? "the daemon waits for free disk space" : "the run ends"
                logger.warning(
                    "\(pause); \(wait)",
                    metadata: ["free_bytes": "\(pause.freeBytes)", "floor_bytes": "\(pause.floorBytes)"])
                await progress.update {
                    $0.pagesPaused = pause
                    $0.activity = "waiting for free disk space"
                }
            }
            guard waits else { return false }
            if interrupted() {
                await progress.update { $0.pagesPaused = nil }
                return true
            }
            try await clock.sleep(for: disk.recheckInterval)
        }
        if paused {
            logger.notice("pages resumed: the free disk is above the floor again")
            await progress.update { $0.pagesPaused = nil }
        }
        return true
    }
}
