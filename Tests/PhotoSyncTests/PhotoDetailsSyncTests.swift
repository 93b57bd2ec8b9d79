import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

/// Photos' full objects (`GET /photos/:id`), fetched after the pages as `photo_details` says,
/// within the budget, and never at the cost of the run.
@Suite(.timeLimit(.minutes(5))) struct PhotoDetailsSyncTests {
    func ids(_ store: PhotoStore, _ text: String) async throws -> Set<String> {
        Set(try await store.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id))
    }

    @Test func allFetchesEveryNewPhotosDetailsOnceAfterItsPagesAndSearchFindsThem() async throws {
        // GIVEN a feed of 5 photos and photo_details: all
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let engine = harness.engine {
            $0.photoDetails = .all
            $0.downloadTracking = false
        }

        // WHEN the sync runs
        try await engine.runOnce()

        // THEN each photo's details were fetched once, after the pages, and stored as sent
        #expect(Set(harness.fake.detailsRequests) == Set(harness.fake.ids))
        #expect(harness.fake.detailsRequests.count == 5)
        let paths = harness.fake.apiRequests.map(\.path)
        #expect(paths.lastIndex(of: "/photos")! < paths.firstIndex { $0.hasPrefix("/photos/photo") }!)
        let first = harness.fake.ids[0]
        let details = try #require(try await harness.store.photoDetails.details(photoID: first))
        #expect(String(decoding: details.json, as: UTF8.self).contains("Göreme \(first)"))
        #expect(details.fetchedAt == harness.wallClock.now)
        // AND search finds them by city, country and tag
        #expect(try await ids(harness.store, "\"goreme \(first)\"") == [first])
        #expect(try await ids(harness.store, "turkei") == Set(harness.fake.ids))
        #expect(try await ids(harness.store, "balloon") == Set(harness.fake.ids))

        // WHEN new photos arrive and it runs again
        let new = harness.fake.addPhotos(2)
        try await engine.runOnce()
        // THEN only the new ones' details are fetched
        #expect(harness.fake.detailsRequests.count == 7)
        #expect(Set(harness.fake.detailsRequests.suffix(2)) == Set(new))
    }

    @Test func noneFetchesNoDetailsAndOnDemandOnlyThoseAClientAskedFor() async throws {
        // GIVEN photos synced with on-demand, nothing asked for
        let harness = try SyncHarness(photos: 4)
        defer { harness.removeDirectory() }
        let onDemand = harness.engine { $0.photoDetails = .onDemand }
        try await onDemand.runOnce()
        #expect(harness.fake.detailsRequests.isEmpty)

        // WHEN a client of the mirror asks for one photo, and the sync runs with none
        let asked = harness.fake.ids[2]
        let requests = try harness.store.storage.openPhotoDetailsRequests()
        #expect(try await requests.record(photoID: asked, at: harness.wallClock.now))
        try requests.close()
        try await harness.engine { $0.photoDetails = .none }.runOnce()
        // THEN none is fetched
        #expect(harness.fake.detailsRequests.isEmpty)

        // WHEN it runs with on-demand
        try await onDemand.runOnce()
        // THEN that one is fetched, once, and no longer asked for
        #expect(harness.fake.detailsRequests == [asked])
        #expect(try await harness.store.photoDetails.details(photoID: asked) != nil)
        #expect(try await !harness.store.photoDetails.isRequested(photoID: asked))
        try await onDemand.runOnce()
        #expect(harness.fake.detailsRequests == [asked])
    }

    @Test func aFailedFetchWarnsNeverEndsTheRunAndIsTriedAgainAfterWaitsThatDouble() async throws {
        // GIVEN photo_details: all, and one photo whose full object the API fails on
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let failing = harness.fake.ids[1]
        harness.fake.state.withLock { $0.missing["/photos/\(failing)"] = "Couldn't find Photo" }
        let engine = harness.engine {
            $0.photoDetails = .all
            $0.pollInterval = .seconds(300)
            $0.downloadTracking = false
        }

        // WHEN it polls 8 times, 5 minutes apart
        var triedAt: [Int] = []
        for poll in 0..<8 {
            let before = harness.fake.detailsRequests.filter { $0 == failing }.count
            let progress = try await engine.runOnce()
            if poll == 0 { #expect(progress.photosNew == 3, "the run did its pages") }
            if harness.fake.detailsRequests.filter({ $0 == failing }).count > before { triedAt.append(poll) }
            harness.wallClock.advance(by: 300)
        }

        // THEN the others are stored, and it was tried at polls 0, 1, 3 and 7, warned about each time
        #expect(triedAt == [0, 1, 3, 7])
        let warnings = harness.log.output.filter { $0.contains("details of a photo could not be fetched") }
        #expect(warnings.count == 4)
        #expect(warnings.last?.contains("wait_s=2400") == true)
        #expect(try await harness.store.photoDetails.pending(.all, limit: 10) == [failing])

        // WHEN the API answers again and the wait has passed
        harness.fake.state.withLock { $0.missing = [:] }
        harness.wallClock.advance(by: 2400)
        try await engine.runOnce()
        // THEN it is stored
        #expect(try await harness.store.photoDetails.details(photoID: failing) != nil)
    }

    @Test func detailsWaitWhileTheRateLimitIsLowSoThatPagesGoFirst() async throws {
        // GIVEN a budget that the pages bring within twice the reserve of its end
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.remaining = 25 }
        let engine = harness.engine {
            $0.photoDetails = .all
            $0.rateLimitReserve = 12
            $0.downloadTracking = false
        }

        // WHEN the sync runs
        try await engine.runOnce()

        // THEN no details were fetched, and none was asked for over the budget
        #expect(harness.fake.detailsRequests.isEmpty)
        #expect(harness.fake.state.withLock { $0.overdrawn } == 0)
        #expect(try await harness.store.photoDetails.pending(.all, limit: 10).count == 5)
    }
}
