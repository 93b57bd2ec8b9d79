import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

/// `SyncEngine.reconfigure`: what SIGHUP hands the running daemon.
@Suite struct ReconfigureTests {
    @Test func anIdleDaemonWakesForANewSourceAndSyncsItWithoutFetchingAnythingTwice() async throws {
        // GIVEN a daemon that has synced the feed and sleeps until the next poll (which never comes)
        let clock = TestClock(suspending: { $0 == .seconds(300) })
        let harness = try SyncHarness(photos: 25, clock: clock)
        defer { harness.removeDirectory() }
        let engine = harness.engine()
        let daemon = Task { try await engine.run() }
        var polls = clock.sleepStarted.filter { $0 == .seconds(300) }.makeAsyncIterator()
        _ = await polls.next()

        // WHEN it is given a second source and a concurrency of 5
        engine.reconfigure(SyncConfiguration(sources: [.feed, .collection("42")], perPage: 10, concurrency: 5))

        // THEN it wakes at once, syncs the collection and goes back to sleep
        _ = await polls.next()
        daemon.cancel()
        _ = await daemon.result
        #expect(engine.configuration.concurrency == 5)
        let sources = try await harness.store.catalog.sourceStatistics()
        #expect(sources.first { $0.name == "collection:42" }.map { $0.active && $0.state.backfillComplete } == true)
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 }, "no image fetched twice")
    }

    @Test func aRoundUnderWayStopsWalkingDrainsItsImagesAndStartsAgainWithTheNewSources() async throws {
        // GIVEN a daemon backfilling a feed of 60 photos, 10 to a page
        let clock = TestClock(suspending: { $0 == .seconds(300) })
        let harness = try SyncHarness(photos: 60, clock: clock)
        defer { harness.removeDirectory() }
        let engine = harness.engine { $0.pagesAhead = 1 }
        let reconfigured = Shared(false)
        let progress = Task {
            // WHEN, once its first page is stored, a collection is added
            while await engine.progress.pages == 0 { await Task.yield() }
            engine.reconfigure(
                SyncConfiguration(sources: [.feed, .collection("42")], perPage: 10, concurrency: 2, pagesAhead: 1))
            reconfigured.withLock { $0 = true }
        }
        let daemon = Task { try await engine.run() }
        var polls = clock.sleepStarted.filter { $0 == .seconds(300) }.makeAsyncIterator()
        _ = await polls.next()
        await progress.value
        daemon.cancel()
        _ = await daemon.result

        // THEN both are complete, every image stored once, and the feed's walk was not begun again
        #expect(reconfigured.withLock { $0 })
        let sources = try await harness.store.catalog.sourceStatistics()
        #expect(sources.count == 2 && sources.allSatisfy { $0.active && $0.state.backfillComplete })
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 }, "no image fetched twice")
        let requests = harness.fake.apiRequests.map { "\($0.path)?\($0.query ?? "")" }
        #expect(requests.filter { $0 == "/photos?page=2&per_page=10" }.count == 1, "\(requests)")
        // AND the collection did not wait for the feed's backfill to end
        let firstOfCollection = try #require(requests.firstIndex { $0.hasPrefix("/collections/42/photos") })
        let lastOfFeed = try #require(requests.firstIndex { $0 == "/photos?page=6&per_page=10" })
        #expect(firstOfCollection < lastOfFeed, "\(requests)")
    }
}
