import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import TestSupport
import Testing
import UnsplashAPI

@Suite struct RateLimitTests {
    @Test func waitsInsteadOfSpendingTheReserve() async throws {
        // GIVEN a budget of 13 requests and a reserve of 10
        let harness = try SyncHarness(photos: 50)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.remaining = 13 }
        // WHEN it syncs without tracking
        try await harness.engine {
            $0.downloadTracking = false
            $0.rateLimitReserve = 10
            $0.rateLimitPause = .seconds(900)
        }.runOnce(maxPages: 4)
        // THEN after three pages (10 left) it paused once before the fourth request
        #expect(harness.clock.sleeps == [.seconds(900)])
        #expect(harness.fake.pageRequests.count == 4)
    }

    @Test func saysWhileItWaitsForTheRateLimit() async throws {
        let harness = try SyncHarness(photos: 50, clock: TestClock(suspending: { $0 == .seconds(900) }))
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.remaining = 11 }
        let engine = harness.engine { $0.rateLimitPause = .seconds(900) }
        let sync = Task { try await engine.runOnce() }
        var sleeps = harness.clock.sleepStarted.makeAsyncIterator()
        #expect(await sleeps.next() == .seconds(900))
        #expect(await engine.progress.activity == "waiting 900s for the rate limit")
        sync.cancel()
        await #expect { try await sync.value } throws: { isSyncCancellation($0) }
    }

    @Test func a403RateLimitIsWaitedOutAndTheSyncResumes() async throws {
        let harness = try SyncHarness(photos: 15)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.rateLimitedAnswers = 2 }
        try await harness.engine { $0.rateLimitPause = .seconds(600) }.runOnce()
        #expect(harness.clock.sleeps == [.seconds(600), .seconds(600)])
        #expect(try await harness.store.catalog.statistics().photos == 15)
        #expect(harness.log.text.contains("rate limit exceeded"))
    }

    @Test func neverLogsTheAccessKey() async throws {
        let harness = try SyncHarness(photos: 15)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        #expect(harness.log.text.contains("page stored"))
        #expect(!harness.log.text.contains("KEY\""), "no Client-ID value")
        #expect(!harness.log.text.contains("Client-ID"))
    }
}

@Suite struct DaemonTests {
    @Test func pollsTheHeadAndStopsWhenCancelled() async throws {
        // GIVEN a daemon whose sleeps last until it is cancelled
        let harness = try SyncHarness(photos: 15, clock: TestClock(suspending: { $0 == .seconds(300) }))
        defer { harness.removeDirectory() }
        let engine = harness.engine { $0.pollInterval = .seconds(300) }
        let daemon = Task { try await engine.run() }
        // WHEN it has synced and gone idle
        var sleeps = harness.clock.sleepStarted.makeAsyncIterator()
        #expect(await sleeps.next() == .seconds(300))
        daemon.cancel()
        // THEN it stops as cancelled, with everything it did committed
        await #expect { try await daemon.value } throws: { isSyncCancellation($0) }
        #expect(try await harness.store.catalog.statistics().imagesStored == 15)
        #expect(await engine.progress.activity == "idle")
    }

    @Test func waitsOutAnOutageInsteadOfExiting() async throws {
        let harness = try SyncHarness(photos: 15, clock: TestClock(suspending: { $0 == .seconds(45) }))
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.failingPages[1] = 1000 }
        let engine = harness.engine { $0.outageRetryDelay = .seconds(45) }
        let daemon = Task { try await engine.run() }
        var sleeps = harness.clock.sleepStarted.makeAsyncIterator()
        // The provider's own retry first, then the daemon's outage wait instead of an exit.
        #expect(await sleeps.next() == .milliseconds(500))
        #expect(await sleeps.next() == .seconds(45))
        #expect(await engine.progress.activity == "waiting for the API")
        daemon.cancel()
        await #expect { try await daemon.value } throws: { isSyncCancellation($0) }
    }
}
