import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

/// Several sources in one engine, against a FakeUnsplash whose every list holds the same photos.
@Suite struct SourcesSyncTests {
    /// The page requests, as `path?query`, without download tracking and the sources' objects.
    static func pages(_ harness: SyncHarness) -> [String] {
        let objects = Set(harness.fake.objectRequests)
        return harness.fake.apiRequests.filter { !$0.path.hasSuffix("/download") && !objects.contains($0.path) }
            .map { "\($0.path)?\($0.query ?? "")" }
    }

    @Test func sourcesTakeTurnsPageByPageAndShareEachPhoto() async throws {
        // GIVEN two sources of three pages each, listing the same 25 photos
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }

        // WHEN both are synced
        try await harness.engine { $0.sources = [.feed, .collection("42")] }.runOnce()

        // THEN they took turns, one page each, and then caught up with their heads
        #expect(
            Self.pages(harness) == [
                "/photos?page=1&per_page=10", "/collections/42/photos?page=1&per_page=10",
                "/photos?page=2&per_page=10", "/collections/42/photos?page=2&per_page=10",
                "/photos?page=3&per_page=10", "/collections/42/photos?page=3&per_page=10",
                "/photos?page=1&per_page=10", "/collections/42/photos?page=1&per_page=10",
            ])
        // AND each photo is stored once, fetched once and tracked once, a member of both
        let ids = harness.fake.ids
        #expect(try await harness.store.catalog.statistics().photos == 25)
        #expect(try await harness.allImagesMatch(ids))
        #expect(ids.allSatisfy { harness.fake.imageRequests($0) == 1 && harness.fake.trackings($0) == 1 })
        let sources = try await harness.store.catalog.sourceStatistics()
        #expect(sources.map(\.name) == ["collection:42", "feed"])
        #expect(sources.allSatisfy { $0.photos == 25 && $0.state.backfillComplete && $0.active })
    }

    @Test func aSourceAddedLaterBackfillsWhileTheOthersOnlyCheckTheirHeads() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        let before = Self.pages(harness).count

        try await harness.engine { $0.sources = [.feed, .topic("wallpapers")] }.runOnce()

        #expect(
            Array(Self.pages(harness).dropFirst(before)) == [
                "/photos?page=1&per_page=10", "/topics/wallpapers/photos?order_by=latest&page=1&per_page=10",
                "/topics/wallpapers/photos?page=2&per_page=10", "/topics/wallpapers/photos?page=3&per_page=10",
                "/topics/wallpapers/photos?order_by=latest&page=1&per_page=10",
            ])
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 }, "no image fetched twice")
        #expect(
            try await harness.store.catalog.sourceStatistics().first { $0.name == "topic:wallpapers" }?.photos == 25)
    }

    @Test func aSourceThatDoesNotExistIsReportedOnceTheOthersAreDone() async throws {
        // GIVEN a user the API does not know, configured before the feed
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.missing["/users/nobody/photos"] = "Couldn't find User" }

        // WHEN a --once run syncs both
        let error = await #expect(throws: SyncError.self) {
            try await harness.engine { $0.sources = [.user("nobody"), .feed] }.runOnce()
        }

        // THEN the feed is complete, with its images, and the run ends naming the user
        guard case .sourcesNotFound(let failures)? = error else {
            Issue.record("expected sourcesNotFound, got \(String(describing: error))")
            return
        }
        #expect(
            failures == [SourceNotFound(source: "user:nobody", detail: "Unsplash answered 404 (Couldn't find User)")])
        #expect(try await harness.store.catalog.statistics().photos == 25)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(
            harness.fake.apiRequests.filter { $0.path == "/users/nobody/photos" }.count == 1, "a 404 is not retried")
        let failure = try await harness.store.catalog.sourceStatistics().first { $0.name == "user:nobody" }?.failure
        #expect(failure?.message == "Unsplash answered 404 (Couldn't find User)")
        #expect(harness.log.text.components(separatedBy: "source user:nobody does not exist").count == 2, "logged once")
    }

    @Test func aFlaggedSearchIsRefusedAndTheOthersGoOn() async throws {
        let harness = try SyncHarness(photos: 12)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.gone["/search/photos"] = "This search is not available" }

        let error = await #expect(throws: SyncError.self) {
            try await harness.engine { $0.sources = [.search("flagged words"), .feed] }.runOnce()
        }

        guard case .sourcesNotFound(let failures)? = error else {
            Issue.record("expected sourcesNotFound, got \(String(describing: error))")
            return
        }
        #expect(
            failures.map(\.description) == [
                "source search:flagged words is refused: Unsplash answered 410 (This search is not available)"
            ])
        #expect(try await harness.store.catalog.statistics().photos == 12)
    }

    @Test func theDaemonTriesAMissingSourceAgainOnlyAfterItsLongBackoff() async throws {
        // GIVEN a daemon whose third poll-interval sleep suspends; the wall clock passes the
        // source's 6-hour backoff during the second
        let polls = Shared(0)
        let wall = Shared<ManualClock?>(nil)
        let clock = TestClock(suspending: { delay in
            guard delay == .seconds(300) else { return false }
            let poll = polls.withLock {
                $0 += 1
                return $0
            }
            if poll == 2 { wall.withLock { $0?.advance(by: 7 * 3600) } }
            return poll == 3
        })
        let harness = try SyncHarness(photos: 5, clock: clock)
        defer { harness.removeDirectory() }
        wall.withLock { $0 = harness.wallClock }
        harness.fake.state.withLock { $0.missing["/users/nobody/photos"] = "Couldn't find User" }
        let engine = harness.engine { $0.sources = [.feed, .user("nobody")] }

        // WHEN it runs three rounds
        let daemon = Task { try await engine.run() }
        var idle = 0
        for await delay in clock.sleepStarted where delay == .seconds(300) {
            idle += 1
            if idle == 3 { break }
        }
        daemon.cancel()
        _ = await daemon.result

        // THEN the missing source was asked in the first round and after the backoff, not between
        #expect(harness.fake.apiRequests.filter { $0.path == "/users/nobody/photos" }.count == 2)
        #expect(
            harness.fake.pageRequests.filter { $0.query == "page=1&per_page=10" }.count == 4,
            "the feed's one page, then its head in each of the three rounds")
        #expect(try await harness.store.catalog.statistics().photos == 5)
    }
}
