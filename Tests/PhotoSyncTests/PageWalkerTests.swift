import Foundation
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

@testable import PhotoSync

@Suite struct PageWalkerTests {
    @Test func commitsEachPageWithItsCursorAndSaysSoAfterEach() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let commits = Shared(0)
        let walker = Stages(harness).walker(pageCommitted: { commits.withLock { $0 += 1 } })

        let complete = try await walker.walk(maxPages: nil)

        #expect(complete)
        #expect(commits.value == 4, "3 backfill pages and 1 catch-up page")
        #expect(
            harness.fake.pageRequests.map(\.query) == [
                "page=1&per_page=10", "page=2&per_page=10", "page=3&per_page=10", "page=1&per_page=10",
            ])
        #expect(try await harness.store.imageQueue.unattemptedImageCount(variants: [.regular]) == 25)
        #expect(harness.fake.totalImageRequests == 0, "the walker only queues images")
    }

    @Test func neverRunsMoreThanItsBacklogAheadOfTheImages() async throws {
        // GIVEN a walker that may have at most 20 images (2 pages) waiting
        let harness = try SyncHarness(photos: 50)
        defer { harness.removeDirectory() }
        let settled = WakeSignal()
        let walker = Stages(harness).walker(backlog: 20, imagesSettled: settled)

        // WHEN nothing downloads the images
        let walk = Task { try await walker.backfill(maxPages: nil) }
        try await harness.fake.until { $0.pageRequests.count == 2 }
        for _ in 0..<100 { await Task.yield() }

        // THEN it stops after 2 pages, and goes on as images are stored
        #expect(harness.fake.pageRequests.count == 2)
        for id in harness.fake.ids.prefix(10) {
            try await harness.store.archive.storeImage(
                photoID: id, variant: .regular, contentType: "image/jpeg", data: FakeUnsplash.imageBytes(id),
                sha256: FakeUnsplash.sha256(id), fetchedAt: harness.wallClock.now)
        }
        settled.signal()
        try await harness.fake.until { $0.pageRequests.count == 3 }
        walk.cancel()
        await #expect(throws: CancellationError.self) { try await walk.value }
        #expect(harness.fake.pageRequests.count == 3)
    }

    @Test func aSelfContradictingPageStallsTheBackfillWhereItIs() async throws {
        let harness = try SyncHarness(photos: 30)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.emptyPages[2] = 1 }

        await #expect {
            try await Stages(harness).walker().backfill(maxPages: nil)
        } throws: { error in
            guard case .inconsistentPage(let contradiction) = error as? SyncError else { return false }
            return contradiction
                == PageContradiction(
                    walk: "backfill", cursor: "/photos?page=2&per_page=10",
                    reason: "the page is empty but links a next page")
        }
        #expect(
            try await harness.store.ledger.syncState(source: .feed).backfillNext?.absoluteString
                == "/photos?page=2&per_page=10")
        #expect(try await harness.store.catalog.statistics().backfillStall != nil)
    }

    @Test func aCatchUpResumesFromItsCommittedPosition() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        let stages = Stages(harness) { $0.knownRunToStop = 5 }
        _ = try await stages.walker().walk(maxPages: nil)
        harness.fake.addPhotos(25)
        harness.fake.state.withLock { $0.failingPages[2] = 2 }
        let before = harness.fake.pageRequests.count

        await #expect(throws: SyncError.self) { try await stages.walker().catchUp() }
        try await stages.walker().catchUp()

        #expect(
            Array(harness.fake.pageRequests.dropFirst(before).map(\.query)) == [
                // page 2 failed twice (the provider's one retry), and the resumed catch-up began there
                "page=1&per_page=10", "page=2&per_page=10", "page=2&per_page=10", "page=2&per_page=10",
                "page=3&per_page=10",
            ])
        #expect(try await harness.store.catalog.statistics().photos == 50)
        #expect(try await harness.store.ledger.syncState(source: .feed).catchUpNext == nil)
    }
}
