import Foundation
import Networking
import PhotoStore
import PhotoStoreSQLite
import Testing
import UnsplashAPI

@testable import PhotoSync

@Suite struct ImageQueueTests {
    @Test func aFailingImageIsRetriedWithinTheRunAfterItsBackoff() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let broken = harness.fake.ids[2]
        harness.fake.state.withLock { $0.failingImages[broken] = (503, 2) }

        try await harness.engine { $0.imageRetryDelay = .seconds(3) }.runOnce()

        let stats = try await harness.store.catalog.statistics()
        #expect(stats.imagesStored == 5 && stats.imagesPending == 0 && stats.imagesFailed == 0)
        #expect(harness.fake.imageRequests(broken) == 3)
        #expect(harness.clock.sleeps.contains(.seconds(6)), "the second retry waits twice as long")
        #expect(harness.clock.sleeps.contains(.seconds(3)), "the retry waits for its backoff")
        #expect(try await harness.allImagesMatch([broken]))
    }

    @Test func aDaemonRetriesAFailedImageWhenItFallsDueNotBefore() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let broken = harness.fake.ids[2]
        harness.fake.state.withLock { $0.failingImages[broken] = (503, 1) }
        let engine = harness.engine {
            $0.imageBackoff = .seconds(3600)
            $0.imageBackoffJitter = 0
            $0.pollInterval = .seconds(7200)
        }

        let daemon = Task { try await engine.run() }
        // The first long wait (the provider's own retries wait under a second).
        var firstWait: Duration?
        for await delay in harness.clock.sleepStarted where delay >= .seconds(60) {
            firstWait = delay
            break
        }
        daemon.cancel()
        _ = await daemon.result

        // It sleeps until the image falls due, sooner than the next poll.
        #expect(firstWait == .seconds(3600))
        #expect(harness.fake.imageRequests(broken) == 1, "not fetched again before it falls due")
    }

    @Test func afterARunsLastAttemptATransientFailureWaitsForItsBackoffAndEveryLaterRunTriesAgain() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let broken = harness.fake.ids[0]
        harness.fake.state.withLock { $0.failingImages[broken] = (500, 1000) }
        let engine = harness.engine {
            $0.maxImageAttempts = 3
            $0.imageBackoffJitter = 0
        }

        try await engine.runOnce()

        // It is not given up on: pending, due after the backoff of its third failure (4 minutes).
        let stats = try await harness.store.catalog.statistics()
        #expect(stats.imagesFailed == 0 && stats.imagesStored == 4 && stats.imagesPending == 1)
        #expect(stats.imagesRetrying == 1)
        #expect(stats.nextImageRetryAt == harness.wallClock.now.addingTimeInterval(240))
        // One request per attempt: images are retried by the queue, not by the provider.
        #expect(harness.fake.imageRequests(broken) == 3)
        let waiting = try #require(try await harness.store.imageQueue.retryingImages(limit: 10).first)
        #expect(waiting.photoID == broken && waiting.lastError.contains("500"))
        #expect(try await harness.store.imageQueue.failedImages(limit: 10).isEmpty)
        // A failed image is not tracked: nothing was downloaded.
        #expect(harness.fake.trackings(broken) == 0)

        // WHEN the next run starts at once, long before the backoff: it tries again all the same
        try await engine.runOnce()
        #expect(harness.fake.imageRequests(broken) == 6)
        // AND the backoff grows with every failure, to its cap
        #expect(
            try await harness.store.catalog.statistics().nextImageRetryAt
                == harness.wallClock.now.addingTimeInterval(60 * 32))
        harness.fake.state.withLock { $0.failingImages[broken] = nil }
        try await engine.runOnce()
        #expect(try await harness.allImagesMatch(harness.fake.ids))
    }

    @Test func theBackoffDoublesToItsCapLessItsJitter() {
        let configuration = SyncConfiguration(
            imageBackoff: .seconds(60), maxImageBackoff: .seconds(6 * 3600), imageBackoffJitter: 0.2)
        #expect(configuration.imageBackoff(afterAttempts: 1, random: 0) == .seconds(60))
        #expect(configuration.imageBackoff(afterAttempts: 3, random: 0) == .seconds(240))
        #expect(configuration.imageBackoff(afterAttempts: 9, random: 0) == .seconds(60 * 256))
        #expect(configuration.imageBackoff(afterAttempts: 10, random: 0) == .seconds(6 * 3600))
        #expect(configuration.imageBackoff(afterAttempts: 1000, random: 0) == .seconds(6 * 3600))
        #expect(configuration.imageBackoff(afterAttempts: 1, random: 0.5) == .seconds(54))
        #expect(configuration.imageBackoff(afterAttempts: 1000, random: 0.999) > .seconds(Int(6 * 3600 * 0.8)))
    }

    @Test func aDaemonStoresEveryImageOfAnOutageWithinItsBackoffOnceTheServerRecovers() async throws {
        // GIVEN every image failing 4 times (an outage), and a daemon whose clock never really sleeps
        let harness = try SyncHarness(photos: 12)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { state in
            for id in state.feed { state.failingImages[id] = (503, 4) }
        }
        // The wall clock moves with the daemon's waits, as it would.
        let engine = harness.engineWithWallClockFollowingItsClock {
            $0.imageBackoffJitter = 0
            $0.pollInterval = .seconds(86_400)
        }
        let daemon = Task { try await engine.run() }
        var waits: [Duration] = []
        for await delay in harness.clock.sleepStarted where delay >= .seconds(1) {
            waits.append(delay)
            if delay == .seconds(86_400) { break }
        }
        daemon.cancel()
        _ = await daemon.result

        // THEN it woke for each retry after 1, 2, 4 and 8 minutes, not at the next poll a day later
        #expect(Array(waits.prefix(4)) == [.seconds(60), .seconds(120), .seconds(240), .seconds(480)], "\(waits)")
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(harness.fake.ids.allSatisfy { harness.fake.imageRequests($0) == 5 })
    }

    @Test func aDownloadTrackingOutageDefersTrackingAndTheImagesAreStored() async throws {
        // GIVEN tracking requests that keep failing with 503, more often than the provider retries
        let harness = try SyncHarness(photos: 10)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.failingTrackings = 1000 }

        // WHEN a run syncs
        let progress = try await harness.engine().runOnce()

        // THEN it ends without an error, every image stored, the tracking left pending
        #expect(try await harness.allImagesMatch(harness.fake.ids))
        #expect(progress.downloadsDeferred >= 3 && progress.downloadsTracked == 0)
        #expect(try await harness.store.ledger.pendingDownloadTracking(limit: 100).count == 10)
        // AND it stopped asking once the API kept failing: 4 deferrals in a row (and the 3 requests
        // in flight then), 2 attempts each
        #expect(harness.fake.state.withLock { 1000 - $0.failingTrackings } <= 2 * 7)

        // WHEN the API is back, the next run tracks each once
        harness.fake.state.withLock { $0.failingTrackings = 0 }
        try await harness.engine().runOnce()
        #expect(harness.fake.ids.allSatisfy { harness.fake.trackings($0) == 1 })
    }

    @Test func oneTrackingRequestThatFailsIsDeferredAndTheOthersAreSent() async throws {
        let harness = try SyncHarness(photos: 10)
        defer { harness.removeDirectory() }
        // The provider tries twice: two 503s fail the first tracking request for this round.
        harness.fake.state.withLock { $0.failingTrackings = 2 }

        let progress = try await harness.engine { $0.trackingConcurrency = 1 }.runOnce()

        #expect(progress.downloadsDeferred == 1 && progress.downloadsTracked == 9)
        #expect(try await harness.store.ledger.pendingDownloadTracking(limit: 100).count == 1)
    }

    @Test func aGoneImageFailsAtOnce() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let gone = harness.fake.ids[1]
        harness.fake.state.withLock { $0.failingImages[gone] = (403, 1000) }
        try await harness.engine().runOnce()
        #expect(try await harness.store.catalog.statistics().imagesFailed == 1)
        #expect(harness.fake.imageRequests(gone) == 1)
    }

    @Test func aShortBodyIsNeverStoredAndLeavesNoFile() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let short = harness.fake.ids[0]
        harness.fake.state.withLock { _ = $0.shortImages.insert(short) }
        try await harness.engine { $0.maxImageAttempts = 2 }.runOnce()
        #expect(try await harness.store.catalog.photo(id: short)?.image == nil)
        let failure = try #require(try await harness.store.imageQueue.retryingImages(limit: 10).first)
        #expect(failure.photoID == short && failure.lastError.contains("Content-Length"))
        #expect(harness.spoolFiles.isEmpty)
    }

    @Test func anAnswerThatIsNotAnImageFailsForGood() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let page = harness.fake.ids[1]
        harness.fake.state.withLock { _ = $0.notImages.insert(page) }
        try await harness.engine().runOnce()
        #expect(harness.fake.imageRequests(page) == 1)
        #expect(try await harness.store.catalog.photo(id: page)?.image == nil)
        let failure = try #require(try await harness.store.imageQueue.failedImages(limit: 10).first)
        #expect(failure.photoID == page && failure.lastError.contains("text/html"))
        #expect(try await harness.store.catalog.statistics().imagesStored == 2)
    }

    @Test func anImageRedirectOffTheAllowedHostsFailsForGoodWithoutFollowingIt() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let moved = harness.fake.ids[0]
        harness.fake.state.withLock { $0.redirectedImages[moved] = "https://evil.example.com/photo.jpg" }
        try await harness.engine().runOnce()
        let failure = try #require(try await harness.store.imageQueue.failedImages(limit: 10).first)
        #expect(failure.photoID == moved && failure.lastError.contains("evil.example.com"))
        #expect(harness.fake.imageRequests(moved) == 1)
        #expect(harness.fake.state.withLock { $0.foreignRequests }.isEmpty)
    }

    @Test func anImageOverTheSizeCapFailsForGoodWithItsSize() async throws {
        let harness = try SyncHarness(photos: 2)
        defer { harness.removeDirectory() }
        try await harness.engine(maxImageBytes: 100).runOnce()
        let failures = try await harness.store.imageQueue.failedImages(limit: 10)
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.lastError.contains("100-byte limit") })
        #expect(harness.fake.totalImageRequests == 2, "a body over the cap is not retried")
    }

    @Test func imagesFromHostsNotAllowedAreNeverFetched() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.allowedImageHosts = ["cdn.example.com"] }.runOnce()
        #expect(harness.fake.totalImageRequests == 0)
        #expect(try await harness.store.catalog.statistics().imagesFailed == 3)
        #expect(
            try await harness.store.imageQueue.failedImages(limit: 1).first?.lastError.contains("images.unsplash.com")
                == true)
    }

    @Test func downloadTrackingCanBeTurnedOff() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.downloadTracking = false }.runOnce()
        #expect(harness.fake.trackingRequests == 0)
        #expect(try await harness.store.catalog.statistics().imagesStored == 5)
    }

    @Test func eachDownloadIsTrackedOnceAcrossRuns() async throws {
        let harness = try SyncHarness(photos: 12)
        defer { harness.removeDirectory() }
        try await harness.engine().runOnce(maxPages: 1)
        try await harness.engine().runOnce()
        try await harness.engine().runOnce()
        #expect(harness.fake.trackingRequests == 12)
        #expect(harness.fake.ids.allSatisfy { harness.fake.trackings($0) == 1 })
    }
}

@Suite struct ImageHostPolicyTests {
    let policy = ImageHostPolicy(allowedHosts: [
        "images.unsplash.com", "127.0.0.1", "localhost", "::1", "127.0.0.2:9000",
    ])

    @Test(arguments: [
        ("https://images.unsplash.com/photo-1?w=1080", true),
        ("http://images.unsplash.com/photo-1", false),
        ("https://evil.example.com/photo-1", false),
        ("http://127.0.0.1:8080/images/x", true),
        ("http://localhost:8080/images/x", true),
        ("http://[::1]:8080/images/x", true),
        ("not a url", false),
        ("http://127.0.0.2:9000/images/x", true),
        ("http://127.0.0.2:9001/images/x", false),
    ])
    func decidesWhichImageURLsMayBeFetched(url: String, allowed: Bool) {
        let verdict = policy.check(url)
        if case .success = verdict {
            #expect(allowed, "\(url) was allowed")
        } else {
            #expect(!allowed, "\(url) was refused")
        }
    }

    @Test func plainHTTPIsOnlyForLoopback() {
        #expect(Origin.isLoopback("127.0.0.1") && Origin.isLoopback("127.8.9.10"))
        #expect(Origin.isLoopback("[::1]") && Origin.isLoopback("localhost"))
        #expect(!Origin.isLoopback("128.0.0.1") && !Origin.isLoopback("127.0.0.1.example.com"))
    }
}
