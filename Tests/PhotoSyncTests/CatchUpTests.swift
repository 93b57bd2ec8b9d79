import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Testing
import UnsplashAPI

@Suite struct CatchUpTests {
    @Test func picksUpNewPhotosAndStopsAtKnownOnes() async throws {
        // GIVEN a complete backfill, then 15 new photos at the head
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        let known = harness.fake.pageRequests.count
        let new = harness.fake.addPhotos(15)
        // WHEN it syncs again, stopping after a run of 5 known photos
        try await harness.engine { $0.knownRunToStop = 5 }.runOnce()
        // THEN it read pages 1 and 2 (15 new, then 5 known), not the whole feed
        #expect(
            Array(harness.fake.pageRequests.dropFirst(known).map(\.query)) == [
                "page=1&per_page=10", "page=2&per_page=10",
            ])
        #expect(try await harness.store.catalog.statistics().photos == 40)
        #expect(try await harness.allImagesMatch(new))
        #expect(try await harness.store.ledger.syncState(source: .feed).catchUpNext == nil)
    }

    @Test func aCatchUpInterruptedMidwayResumesWhereItWas() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        let known = harness.fake.pageRequests.count
        harness.fake.addPhotos(25)
        // Page 2 of the catch-up fails: the run stops after storing page 1.
        harness.fake.state.withLock { $0.failingPages[2] = 2 }
        await #expect(throws: SyncError.self) { try await harness.engine().runOnce() }
        #expect(try await harness.store.ledger.syncState(source: .feed).catchUpNext?.query == "page=2&per_page=10")
        #expect(harness.fake.pageRequests.dropFirst(known).first?.query == "page=1&per_page=10")
        let beforeRestart = harness.fake.pageRequests.count

        try await harness.engine().runOnce()

        // The restart goes on from page 2 rather than re-reading page 1.
        #expect(try await harness.store.catalog.statistics().photos == 50)
        #expect(harness.fake.pageRequests.dropFirst(beforeRestart).first?.query == "page=2&per_page=10")
    }

    @Test func sponsoredPhotosDoNotEndACatchUpEarly() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        harness.fake.addSponsoredPhoto()
        try await harness.engine().runOnce()
        harness.fake.addPhotos(20)
        try await harness.engine { $0.knownRunToStop = 1 }.runOnce()
        #expect(try await harness.store.catalog.statistics().photos == 46)
    }

    /// A user's photos as the Unsplash API of `serve` lists them: in the source's own order.
    static func inSourceOrder(_ harness: SyncHarness, source: String = "user:ann") async throws -> [String] {
        var query = PhotoQuery(source: source)
        query.inSourceOrder = true
        return try await harness.store.catalog.photos(matching: query).map(\.id)
    }

    @Test func aSourcesCaughtUpPhotosAreListedFirstInTheAPIsOrder() async throws {
        // GIVEN a user's 25 photos, backfilled
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.sources = [.user("ann")] }.runOnce()
        #expect(try await Self.inSourceOrder(harness) == harness.fake.ids)
        // WHEN 15 new photos are at its head, and a later run catches up over two pages
        let new = harness.fake.addPhotos(15)
        try await harness.engine {
            $0.sources = [.user("ann")]
            $0.knownRunToStop = 5
        }.runOnce()
        // THEN the source lists as the API does: the new photos first, in its order, then the old
        #expect(try await Self.inSourceOrder(harness) == harness.fake.ids)
        #expect(Array(try await Self.inSourceOrder(harness).prefix(15)) == Array(new.reversed()))
    }

    @Test func aCatchUpResumedAfterAFailureStillListsItsPhotosInTheAPIsOrder() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.sources = [.user("ann")] }.runOnce()
        harness.fake.addPhotos(25)
        // Page 2 of the catch-up fails: the run stops after storing page 1.
        harness.fake.state.withLock { $0.failingPages[2] = 2 }
        await #expect(throws: SyncError.self) { try await harness.engine { $0.sources = [.user("ann")] }.runOnce() }
        #expect(try await harness.store.ledger.syncState(source: .user("ann")).catchUpNext != nil)
        let expected = harness.fake.ids
        #expect(try await Self.inSourceOrder(harness) == Array(expected.prefix(10) + expected.dropFirst(25)))

        // A fresh engine, as after a restart, resumes the walk at page 2.
        try await harness.engine { $0.sources = [.user("ann")] }.runOnce()

        #expect(try await Self.inSourceOrder(harness) == expected)
    }
}
