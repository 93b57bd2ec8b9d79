import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Testing
import UnsplashAPI

@Suite struct BackfillTests {
    @Test func aOnceSyncStoresEveryPhotoAndImage() async throws {
        // GIVEN a feed of 25 photos, 10 a page
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        // WHEN it is synced once
        let progress = try await harness.engine().runOnce()
        // THEN every photo and image is stored, and each download tracked once
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 25 && stats.imagesStored == 25 && stats.imagesPending == 0 && stats.imagesFailed == 0)
        #expect(stats.backfillComplete)
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.fake.ids.allSatisfy { harness.fake.trackings($0) == 1 })
        #expect(progress.photosNew == 25 && progress.imagesStored == 25)
        // 3 backfill pages, then 1 catch-up page that finds nothing new
        #expect(
            harness.fake.pageRequests.map(\.query) == [
                "page=1&per_page=10", "page=2&per_page=10", "page=3&per_page=10", "page=1&per_page=10",
            ])
    }

    @Test func aSecondRunOnlyLearnsThatNothingIsNew() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        let before = harness.fake.apiRequests.count
        let imagesBefore = harness.fake.totalImageRequests

        try await harness.engine().runOnce()

        #expect(harness.fake.apiRequests.count == before + 1)
        #expect(harness.fake.totalImageRequests == imagesBefore)
    }

    @Test func resumesFromTheCursorAfterAStop() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        // A first run stops after one page, as a killed process would after its first commit.
        try await harness.engine().runOnce(maxPages: 1)
        #expect(try await harness.store.ledger.syncState(source: .feed).backfillNext?.query == "page=2&per_page=10")
        #expect(try await harness.store.catalog.statistics().photos == 10)

        try await harness.engine().runOnce()

        #expect(
            harness.fake.pageRequests.map(\.query).prefix(3) == [
                "page=1&per_page=10", "page=2&per_page=10", "page=3&per_page=10",
            ])
        #expect(try await harness.store.catalog.statistics().photos == 25)
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 && harness.fake.trackings($0) == 1 })
    }

    @Test func aMovingFeedYieldsDuplicatesThatAreStoredOnce() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        // New photos arrive after page 1 was read, pushing 4 of its photos onto page 2.
        try await harness.engine().runOnce(maxPages: 1)
        harness.fake.addPhotos(4)
        try await harness.engine().runOnce()

        let stats = try await harness.store.catalog.statistics()
        #expect(stats.photos == 29)
        #expect(stats.imagesStored == 29)
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 1 })
    }

    @Test func sponsoredPhotosOnEveryPageAreStoredOnce() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        harness.fake.addSponsoredPhoto()
        let progress = try await harness.engine().runOnce()
        #expect(try await harness.store.catalog.statistics().photos == 26)
        #expect(progress.photosNew == 26)
    }

    @Test func aRejectedKeyStopsWithoutWritingAnything() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        await #expect {
            try await harness.engine(accessKey: "WRONG").runOnce()
        } throws: { error in
            guard case .accessKeyRejected(let cause) = error as? SyncError else { return false }
            let message = cause.localizedDescription
            return message.contains("Access Key") && !message.contains("WRONG")
        }
        #expect(try await harness.store.catalog.statistics().photos == 0)
        #expect(harness.fake.apiRequests.count == 1)
    }

    @Test func anUnreachableAPIIsAnErrorInOnceMode() async throws {
        let harness = try SyncHarness(photos: 25)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.failingPages[2] = 100 }
        await #expect {
            try await harness.engine().runOnce()
        } throws: { error in
            guard case .apiUnavailable = error as? SyncError else { return false }
            return true
        }
        // Page 1 is kept, with the cursor pointing at the page that failed.
        #expect(try await harness.store.catalog.statistics().photos == 10)
        #expect(try await harness.store.ledger.syncState(source: .feed).backfillNext?.query == "page=2&per_page=10")
    }

    @Test func aSwitchedVariantQueuesImagesForPhotosStoredEarlier() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce()
        try await harness.engine { $0.variant = .thumb }.runOnce()
        #expect(try await harness.store.catalog.statistics().imagesStored == 10)
        #expect(try await harness.store.archive.imageData(photoID: harness.fake.ids[0], variant: .thumb) != nil)
    }
}
