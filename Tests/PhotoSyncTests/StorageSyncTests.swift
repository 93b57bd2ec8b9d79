import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Synchronization
import Testing
import UnsplashAPI

@Suite struct StorageSyncTests {
    /// A wall clock that moves a second each time it is read, so that each batch of images is
    /// fetched at its own instant.
    final class Ticker: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
        func tick() -> Date {
            date.withLock { date in
                date += 1
                return date
            }
        }
    }

    /// A disk that answers from a script: `freeWhileFull` bytes free for the first `fullLooks`
    /// looks, then roomy. By default that is below the standard reserve (1 GiB) and above its
    /// floor (512 MiB): downloads pause, pages go on.
    final class ScriptedDisk: Sendable {
        let fullLooks: Int
        let freeWhileFull: Int64
        private let looks = Mutex(0)
        init(fullLooks: Int, freeWhileFull: Int64 = 800 << 20) {
            self.fullLooks = fullLooks
            self.freeWhileFull = freeWhileFull
        }
        var count: Int { looks.withLock { $0 } }
        func look() -> DiskSpace? {
            let look = looks.withLock { looks in
                looks += 1
                return looks
            }
            return DiskSpace(available: look <= fullLooks ? freeWhileFull : 1 << 40, total: 1 << 41)
        }
    }

    @Test func aBudgetPrunesTheOldestFetchedImagesAndASecondRunFetchesNothingAgain() async throws {
        // GIVEN 60 photos of 1-4 KB images, and a budget of 30 KB
        let harness = try SyncHarness(photos: 60)
        defer { harness.removeDirectory() }
        let ticker = Ticker()
        let limit: Int64 = 30_000
        let budgeted: (inout SyncConfiguration) -> Void = { $0.storageLimit = limit }
        let engine = harness.engine(now: { ticker.tick() }, diskSpace: nil, budgeted)

        // WHEN it is synced once
        let progress = try await engine.runOnce()

        // THEN every photo's metadata is kept, and the stored bytes are within the budget
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 60 && stats.imagesPending == 0 && stats.imagesFailed == 0)
        #expect(stats.imagesPruned > 0 && stats.imagesStored + stats.imagesPruned == 60)
        #expect(stats.bytesStored <= limit)
        #expect(progress.imagesPruned == Int(stats.imagesPruned))
        // AND the pruned ones are those fetched first
        var prunedAt: [Date] = []
        var storedAt: [Date] = []
        for id in harness.fake.ids {
            if let image = try await harness.store.archive.prunedImage(photoID: id, variant: nil) {
                prunedAt.append(image.fetchedAt)
                #expect(image.sha256 == FakeUnsplash.sha256(id))
            } else if let image = try await harness.store.archive.storedImage(photoID: id, variant: nil) {
                storedAt.append(image.fetchedAt)
            }
        }
        #expect(try #require(prunedAt.max()) <= (try #require(storedAt.min())))
        #expect(try await harness.store.archive.verify().problems.isEmpty)

        // AND a second run downloads nothing again
        let requests = harness.fake.totalImageRequests
        #expect(requests == 60)
        try await harness.engine(now: { ticker.tick() }, diskSpace: nil, budgeted).runOnce()
        #expect(harness.fake.totalImageRequests == requests)

        // AND a budget lowered since takes effect as the next run starts
        let halved: (inout SyncConfiguration) -> Void = { $0.storageLimit = limit / 2 }
        let lowered = try await harness.engine(now: { ticker.tick() }, diskSpace: nil, halved).runOnce()
        #expect(try await harness.store.catalog.statistics().bytesStored <= limit / 2)
        #expect(lowered.imagesPruned > 0 && harness.fake.totalImageRequests == requests)
    }

    @Test func belowTheDiskReserveDownloadsPauseWhilePagesGoOn() async throws {
        // GIVEN a disk below the reserve, and a walker allowed only one page ahead of downloads
        let harness = try SyncHarness(photos: 45)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: .max)

        // WHEN it is synced once
        let onePageAhead: (inout SyncConfiguration) -> Void = { $0.pagesAhead = 1 }
        let progress = try await harness.engine(now: nil, diskSpace: { disk.look() }, onePageAhead).runOnce()

        // THEN every page is stored, no image is downloaded, and the run ends saying why
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 45 && stats.backfillComplete)
        #expect(harness.fake.totalImageRequests == 0 && stats.imagesPending == 45)
        let pause = try #require(progress.downloadsPaused)
        #expect(pause.freeBytes == 800 << 20 && pause.reserveBytes == 1 << 30)
        #expect(progress.summary.contains("downloads paused"))
        #expect(progress.pagesPaused == nil)
    }

    @Test func belowTheFloorPagesPauseTooAndARunOnceEndsSayingWhy() async throws {
        // GIVEN a disk with 1,000 bytes free: below half the 1 GiB reserve, the floor
        let harness = try SyncHarness(photos: 45)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: .max, freeWhileFull: 1_000)

        // WHEN it is synced once
        let progress = try await harness.engine(now: nil, diskSpace: { disk.look() }).runOnce()

        // THEN no page is fetched nor stored, no image is downloaded, and the run ends saying why
        #expect(harness.fake.pageRequests.isEmpty && harness.fake.totalImageRequests == 0)
        #expect(try await harness.store.catalog.statistics().photos == 0)
        let pause = try #require(progress.pagesPaused)
        #expect(pause.freeBytes == 1_000 && pause.floorBytes == 1 << 29)
        #expect(progress.summary.contains("pages paused"))
        #expect(harness.log.output.filter { $0.contains("pages paused") }.count == 1, "\(harness.log.text)")
    }

    @Test func aDaemonBelowTheFloorWaitsSayingSoOnceThenResumesByItself() async throws {
        // GIVEN a daemon on a disk below the floor for its first twenty looks
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: 20, freeWhileFull: 1_000)
        // WHEN it runs until its round ends and it waits for the next poll
        let (engine, rechecks) = await Self.runDaemonUntilIdle(harness, disk: disk)

        // THEN it waited with pages paused, said so once, and once there was room stored every
        // photo and image, by itself
        #expect(rechecks > 0 && disk.count > 20)
        #expect(try await harness.store.catalog.statistics().photos == 25)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(await engine.progress.pagesPaused == nil)
        let lines = harness.log.output
        let paused = lines.indices.filter { lines[$0].contains("pages paused") }
        let resumed = lines.indices.filter { lines[$0].contains("pages resumed") }
        #expect(paused.count == 1 && resumed.count == 1, "\(harness.log.text)")
        #expect(paused.first ?? 0 < resumed.first ?? 0)
        #expect(lines.first { $0.contains("pages paused") }?.contains("the daemon waits for free disk space") == true)
    }

    @Test func aReloadedReserveAppliesFromTheNextRound() async throws {
        // GIVEN an engine made to keep no reserve, on a disk with 1,000 bytes free
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: .max)
        let noReserve: (inout SyncConfiguration) -> Void = { $0.minFreeDisk = .bytes(0) }
        let engine = harness.engine(now: nil, diskSpace: { disk.look() }, noReserve)

        // WHEN it is reconfigured to keep 1 GiB, as a SIGHUP does, and synced once
        var configuration = engine.configuration
        configuration.minFreeDisk = .bytes(1 << 30)
        engine.reconfigure(configuration)
        let progress = try await engine.runOnce()

        // THEN the new reserve pauses the downloads
        #expect(progress.downloadsPaused?.reserveBytes == 1 << 30)
        #expect(harness.fake.totalImageRequests == 0)
    }

    @Test func downloadsResumeByThemselvesOnceThereIsRoom() async throws {
        // GIVEN a disk below the reserve for its first five looks, then with room
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: 5)

        // WHEN it is synced once
        let progress = try await harness.engine(now: nil, diskSpace: { disk.look() }).runOnce()

        // THEN it waited, then stored every image once, and is no longer paused
        #expect(disk.count > 5)
        #expect(progress.downloadsPaused == nil)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 })
    }

    @Test func aDaemonWaitsForRoomWithinItsRoundThenDownloadsEverything() async throws {
        // GIVEN a daemon on a disk below the reserve for its first twenty looks
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let disk = ScriptedDisk(fullLooks: 20)
        // WHEN it runs until its round ends and it waits for the next poll
        let (engine, rechecks) = await Self.runDaemonUntilIdle(harness, disk: disk)

        // THEN it looked at the disk again while paused, and once there was room stored every
        // image once, by itself
        #expect(rechecks > 0 && disk.count > 20)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 })
        #expect(await engine.progress.downloadsPaused == nil)
    }

    @Test func anExplicitReserveOfZeroNeverPauses() {
        let full = DiskSpace(available: 0, total: 1 << 30)
        #expect(DownloadPause.judging(full, reserve: .bytes(0)) == nil)
        #expect(DownloadPause.judging(full, reserve: .standard) != nil)
        #expect(PagePause.judging(full, reserve: .bytes(0)) == nil)
        #expect(PagePause.judging(full, reserve: .bytes(1_000))?.floorBytes == 500)
        #expect(PagePause.judging(DiskSpace(available: 500, total: 1 << 30), reserve: .bytes(1_000)) == nil)
        // 5% of a small disk is less than 1 GiB
        #expect(FreeDiskReserve.standard.bytes(ofDiskOf: 10 << 30) == (10 << 30) / 20)
        #expect(FreeDiskReserve.standard.bytes(ofDiskOf: 100 << 30) == 1 << 30)
    }

    /// Runs a daemon (rare polls) on `disk` until its round ends and it waits for the next poll.
    /// - Returns: the engine, and how often it looked at the disk again while paused.
    static func runDaemonUntilIdle(_ harness: SyncHarness, disk: ScriptedDisk) async -> (SyncEngine, Int) {
        let rarePolls: (inout SyncConfiguration) -> Void = { $0.pollInterval = .seconds(7200) }
        let engine = harness.engine(now: nil, diskSpace: { disk.look() }, rarePolls)
        let daemon = Task { try await engine.run() }
        var rechecks = 0
        for await delay in harness.clock.sleepStarted {
            if delay == SyncConfiguration.standard.diskRecheckInterval { rechecks += 1 }
            if delay >= .seconds(60) { break }
        }
        daemon.cancel()
        _ = await daemon.result
        return (engine, rechecks)
    }

}
