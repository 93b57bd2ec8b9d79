import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import TestSupport
import Testing

/// The daemon's upkeep beside the sync: pruning to a lowered budget at the start, and the idle
/// checkpoint once a round is done. (That no database call blocks one of the cooperative pool's
/// threads is the store's types' doing: every method of its protocols is `async`.)
@Suite struct IdleUpkeepTests {
    struct IdleUpkeepNeverRan: Error {}

    @Test func theDaemonPrunesToALoweredBudgetAndCheckpointsWhenIdle() async throws {
        // GIVEN a storage budget (pruning and incremental vacuum) and download tracking (whose
        // records commit on a queue of their own), on a clock on which the poll's wait lasts
        // until the daemon is cancelled
        let harness = try SyncHarness(photos: 60, clock: TestClock(suspending: { $0 >= .seconds(60) }))
        defer { harness.removeDirectory() }
        let configure: (inout SyncConfiguration) -> Void = {
            $0.storageLimit = 30_000
            $0.pollInterval = .seconds(7200)
        }

        // WHEN it syncs once, then runs as a daemon until its first round is done and it is idle
        // (checkpoint, vacuum), with a budget lowered in between (pruning at the start)
        try await harness.engine(now: nil, diskSpace: nil, configure).runOnce()
        let lowered: (inout SyncConfiguration) -> Void = {
            configure(&$0)
            $0.storageLimit = 15_000
        }
        let engine = harness.engine(now: nil, diskSpace: nil, lowered)
        let daemon = Task { try await engine.run() }
        let upkeep = Task { await engine.maintainWhileIdle(times: 1) }
        for await delay in harness.clock.sleepStarted where delay >= .seconds(60) { break }
        // The daemon went idle before its poll's sleep: the upkeep beside it runs once.
        try await withDeadline(.seconds(300), failure: IdleUpkeepNeverRan()) { await upkeep.value }
        daemon.cancel()
        _ = await daemon.result

        // THEN it stored what it should, and checkpointed the log while idle
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 60 && stats.imagesPruned > 0 && stats.bytesStored <= 15_000)
        #expect(harness.store.files?.fileSizes.wal == 0)
    }
}
