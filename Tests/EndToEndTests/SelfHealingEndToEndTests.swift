import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// Issue 21's failures that heal themselves, through the real binary: an image outage that a
/// later run recovers from, failures that are final until `retry` says otherwise, and a run at
/// 30% API and image errors that finishes without ever stopping for download tracking.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct SelfHealingEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World
        static let environment = ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key]

        @Test func afterAnImageOutageTheNextRunStoresEveryImage() async throws {
            let world = try await World.start(photos: 46)
            try await withTeardown(await world.stop()) {
                // GIVEN an image server failing every image, through all of a run's attempts
                await world.stub.failImageRequests(rate: 1, status: 503)
                let first = try await world.sync()
                #expect(first.status == 75, "\(first.stderr)")
                #expect(first.stderr.contains("the next run tries them again"), "\(first.stderr)")
                let afterOutage = try await world.store().catalog.statistics()
                #expect(afterOutage.imagesStored == 0 && afterOutage.imagesFailed == 0)
                #expect(afterOutage.imagesRetrying == 46 && afterOutage.nextImageRetryAt != nil)
                let status = try await PhotosyncProcess.run([
                    "status", "--database", world.database, "--config", world.config,
                ])
                #expect(status.stdout.contains("images pending  46 (46 to retry after failing, the next at "))
                #expect(status.stdout.contains("  retrying "))

                // WHEN the server is healthy again and the next run starts at once
                await world.stub.failImageRequests(rate: 0)
                await world.stub.resetRequestLog()
                let second = try await world.sync()

                // THEN it asks for every image once and stores them all
                #expect(second.status == 0, "\(second.stderr)")
                let ids = await world.stub.photoIDs()
                let store = try await world.store()
                for id in ids {
                    #expect(await world.stub.imageRequestCount(photoID: id) == 1, "\(id)")
                    #expect(
                        try await store.catalog.photo(id: id)?.image?.sha256
                            == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                }
                let healed = try await store.catalog.statistics()
                #expect(healed.imagesStored == 46 && healed.imagesPending == 0 && healed.imagesRetrying == 0)
            }
        }

        @Test func aPermanentFailureIsFinalUntilRetryAllRequeuesIt() async throws {
            let world = try await World.start(photos: 10)
            try await withTeardown(await world.stop()) {
                let gone = await world.stub.photoIDs()[3]
                await world.stub.failImage(photoID: gone, times: 1000, status: 404)

                // GIVEN a run where one image answers 404: failed for good at once, nothing to run again for
                let first = try await world.sync()
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stderr.contains("1 image failed for good"), "\(first.stderr)")
                #expect(await world.stub.imageRequestCount(photoID: gone) == 1)
                // AND a later run does not ask for it again
                #expect(try await world.sync().status == 0)
                #expect(await world.stub.imageRequestCount(photoID: gone) == 1)

                // WHEN retry is asked for: plain retry leaves it; an unknown id requeues nothing
                let retry = ["retry", "--database", world.database, "--config", world.config]
                let plain = try await PhotosyncProcess.run(retry)
                #expect(plain.status == 0 && plain.stdout.hasPrefix("requeued 0 images"), "\(plain)")
                let unknown = try await PhotosyncProcess.run(retry + [gone, "nosuchid"])
                #expect(unknown.status == 1 && unknown.stderr.contains("no photo nosuchid"), "\(unknown)")
                #expect(try await world.store().catalog.statistics().imagesFailed == 1)
                let all = try await PhotosyncProcess.run(retry + ["--all"])
                #expect(all.status == 0 && all.stdout.hasPrefix("requeued 1 image\n"), "\(all)")

                // THEN the next run fetches it again
                await world.stub.failImage(photoID: gone, times: 0)
                #expect(try await world.sync().status == 0)
                #expect(await world.stub.imageRequestCount(photoID: gone) == 2)
                #expect(try await world.store().catalog.statistics().imagesStored == 10)
            }
        }

        @Test func aDownloadTrackingOutageDefersTrackingAndTheImagesAreStored() async throws {
            let world = try await World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                // GIVEN every download-tracking request failing with 503
                await world.stub.failTrackingRequests(rate: 1, seed: 21, status: 503)

                // WHEN a run syncs
                let first = try await world.sync()

                // THEN it stores every image and exits 0, the tracking left for the next run
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stderr.contains("download tracking paused until the next round"), "\(first.stderr)")
                #expect(try await world.store().catalog.statistics().imagesStored == 60)
                #expect(try await world.store().ledger.pendingDownloadTracking(limit: 100).count == 60)

                // AND the next run, the API healthy again, tracks each download once
                await world.stub.failTrackingRequests(rate: 0, seed: 21)
                #expect(try await world.sync().status == 0)
                for id in await world.stub.photoIDs() {
                    #expect(await world.stub.downloadTrackingCount(photoID: id) == 1, "\(id)")
                }
            }
        }

        @Test func atThirtyPercentAPIAndImageErrorsThreeRunsCompleteAndTrackingNeverEndsOne() async throws {
            let world = try await World.start(photos: 120)
            try await withTeardown(await world.stop()) {
                let stub = world.stub
                await stub.failAPIRequests(rate: 0.3, seed: 21, status: 503)
                await stub.failImageRequests(rate: 0.3, seed: 21, status: 503)

                var statuses: [Int32] = []
                var complete = false
                for _ in 0..<3 where !complete {
                    let run = try await world.sync()
                    statuses.append(run.status)
                    #expect([0, 69, 75].contains(run.status), "\(run.stderr)")
                    if run.status == 69 {
                        #expect(!run.stderr.contains("/download"), "a tracking failure ended the run: \(run.stderr)")
                    }
                    let pendingTracking = try await world.store().ledger.pendingDownloadTracking(limit: 1000)
                    complete = run.status == 0 && pendingTracking.isEmpty
                }

                #expect(complete, "runs exited \(statuses)")
                let faults = await stub.requests()
                #expect(faults.contains { $0.kind == .image && $0.status == 503 }, "no image failed")
                #expect(faults.contains { $0.path.hasSuffix("/download") && $0.status == 503 }, "no tracking failed")
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(stats.photos == 120 && stats.imagesStored == 120, "\(stats)")
                for id in await stub.photoIDs() {
                    #expect(await stub.downloadTrackingCount(photoID: id) == 1, "\(id)")
                }
            }
        }
    }
}
