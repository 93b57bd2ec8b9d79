import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

/// Pages that contradict themselves, elements that are not photos, and cursors that must
/// outlive a change of API base.
@Suite struct FaultyFeedTests {
    @Test func anEmptyPageThatLinksANextOneDoesNotEndTheBackfill() async throws {
        // GIVEN a feed of 30 photos, 10 a page, whose page 2 once answers `200 []` with its Link intact
        let harness = try SyncHarness(photos: 30)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.emptyPages[2] = 1 }

        // WHEN it is synced once, the page is refused and the backfill stays on it
        let error = await #expect(throws: SyncError.self) { try await harness.engine().runOnce() }
        #expect(
            error?.localizedDescription
                == "backfill stays at /photos?page=2&per_page=10 and tries it again later: the page is empty but links a next page"
        )
        let stalled = try await harness.store.catalog.statistics()
        #expect(!stalled.backfillComplete && stalled.photos == 10)
        #expect(
            try await harness.store.ledger.syncState(source: .feed).backfillNext?.absoluteString
                == "/photos?page=2&per_page=10")
        #expect(stalled.backfillStall?.reason == "the page is empty but links a next page")

        // THEN a later run, with the server healthy again, fetches the page and the rest
        try await harness.engine().runOnce()
        let done = try await harness.store.catalog.statistics()
        #expect(done.backfillComplete && done.photos == 30 && done.imagesStored == 30)
        #expect(done.backfillStall == nil)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
    }

    @Test func anEmptyPageIsWaitedOutByTheDaemonInsteadOfEndingTheBackfill() async throws {
        // GIVEN a daemon whose poll-interval sleep (300 s) suspends, so it is seen going idle
        let clock = TestClock(suspending: { $0 == .seconds(300) })
        let harness = try SyncHarness(photos: 30, clock: clock)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.emptyPages[2] = 1 }
        let engine = harness.engine { $0.outageRetryDelay = .seconds(60) }

        // WHEN it runs until it goes idle
        let daemon = Task { try await engine.run() }
        for await delay in clock.sleepStarted where delay == .seconds(300) { break }
        daemon.cancel()
        _ = await daemon.result

        // THEN it waited once for the refused page, then completed the backfill
        #expect(clock.sleeps.filter { $0 == .seconds(60) }.count == 1)
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.backfillComplete && stats.photos == 30 && stats.backfillStall == nil)
        #expect(harness.log.text.contains("empty but links a next page"))
    }

    @Test func aPhotoWithoutAnIdIsRejectedAndTheRestOfItsPageIsStored() async throws {
        // GIVEN a feed built from a real photo object, three of whose photos are spoiled
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let ids = harness.fake.ids
        harness.fake.state.withLock {
            $0.brokenPhotos = [ids[3]: .noID, ids[4]: .emptyID, ids[12]: .wrongType]
        }

        // WHEN it is synced once, and again (the catch-up refetches page 1)
        try await harness.engine().runOnce()
        try await harness.engine().runOnce()

        // THEN the good photos and images are all stored, each bad one is kept once with its reason
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.backfillComplete && stats.photos == 22 && stats.imagesStored == 22)
        #expect(stats.rejectedPhotos == 3)
        let rejected = try await harness.store.ledger.rejectedPhotos(limit: 10)
        #expect(rejected.map(\.reason) == ["\"id\" is missing", "\"id\" is empty", "\"width\" is not Int"])
        #expect(rejected.last?.photoID == ids[12])
        let slug = try JSONDecoder().decode(JSONValue.self, from: rejected[0].json)["slug"]?.string
        #expect(slug == "slug-\(ids[3])")
        // logged once each, although page 1 was read twice
        #expect(harness.log.output.filter { $0.contains("rejected a photo") }.count == 3)
        #expect(try await harness.allImagesMatch(ids.filter { ![ids[3], ids[4], ids[12]].contains($0) }))
    }

    @Test func aHeadPageOfRejectedPhotosOnlyDoesNotEndTheCatchUp() async throws {
        // GIVEN a synced feed, then 10 new photos and, above them, 10 new photos without an id
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        let good = harness.fake.addPhotos(10)
        let bad = harness.fake.addPhotos(10)
        harness.fake.state.withLock { state in
            for id in bad { state.brokenPhotos[id] = .noID }
        }

        // WHEN the head is caught up with
        try await harness.engine().runOnce()

        // THEN the catch-up went past the page of rejected photos to the good ones below it
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 35 && stats.rejectedPhotos == 10)
        #expect(try await harness.allImagesMatch(good))
    }

    @Test func cursorsAreStoredRelativeSoANewApiBaseResumesThem() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce(maxPages: 1)
        #expect(
            try await harness.store.ledger.syncState(source: .feed).backfillNext?.absoluteString
                == "/photos?page=2&per_page=10")

        try await harness.engine(apiBase: URL(string: "https://\(FakeUnsplash.mirrorHost)")!).runOnce()

        let later = harness.fake.pageRequests.dropFirst()
        #expect(later.first?.query == "page=2&per_page=10")
        #expect(later.allSatisfy { $0.host == FakeUnsplash.mirrorHost })
        #expect(try await harness.store.catalog.statistics().backfillComplete)
    }

    @Test func aForeignNextLinkIsRefusedAndNeverStored() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.linkOrigin = "https://evil.example.com" }

        let error = await #expect(throws: SyncError.self) { try await harness.engine().runOnce() }

        #expect(
            error?.localizedDescription.contains("refusing to send the access key to https://evil.example.com") == true)
        #expect(try await harness.store.ledger.syncState(source: .feed).backfillNext == nil)
        #expect(try await harness.store.catalog.statistics().photos == 0)
        #expect(harness.fake.apiRequests.allSatisfy { $0.host == "api.unsplash.com" })
        #expect(harness.fake.state.withLock { $0.foreignRequests }.isEmpty)
    }

    @Test func aLastPageThatXTotalContradictsIsNotTheEnd() async throws {
        func contradiction(in page: PhotoPage, at cursor: URL?) -> String? {
            PageWalker.contradiction(in: page, at: cursor, perPage: 30)
        }
        let early = PhotoPage(photos: [], next: nil, total: 90, perPage: 30, rateLimit: nil)
        let last = PhotoPage(photos: [], next: nil, total: 90, perPage: 30, rateLimit: nil)
        let offByOne = PhotoPage(photos: [], next: nil, total: 61, perPage: 30, rateLimit: nil)

        #expect(
            contradiction(in: early, at: URL(string: "/photos?page=2&per_page=30"))?.contains("X-Total says 90") == true
        )
        #expect(contradiction(in: last, at: URL(string: "/photos?page=3&per_page=30")) == nil)
        #expect(contradiction(in: offByOne, at: URL(string: "/photos?page=2&per_page=30")) == nil)
        // A search's X-Total is an estimate of matches, not a promise of pages.
        let search = PhotoSource.search("fox")
        let searchCursor = URL(string: "/search/photos?query=fox&page=2&per_page=30")
        #expect(PageWalker.contradiction(in: early, at: searchCursor, perPage: 30, source: search) == nil)
    }
}
