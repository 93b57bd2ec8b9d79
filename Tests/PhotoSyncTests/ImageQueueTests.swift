import Foundation
import Networking
import PhotoStore
@testable import PhotoSync
import Testing
import UnsplashAPI

@Suite struct ImageQueueTests {
    @Test func aFailingImageIsRetriedLaterAndTheSyncGoesOn() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let broken = harness.fake.ids[2]
        // Two attempts per request (the provider's retry) fail: one sync attempt fails.
        harness.fake.state.withLock { $0.failingImages[broken] = (503, 2) }

        try await harness.engine { $0.imageRetryDelay = .seconds(3600) }.runOnce()
        #expect(try harness.store.statistics().imagesStored == 4)
        #expect(try harness.store.statistics().imagesPending == 1)
        // Not due yet: a run a minute later leaves it alone.
        harness.wallClock.advance(by: 60)
        try await harness.engine().runOnce()
        #expect(harness.fake.imageRequests(broken) == 2)

        // Once due, it is fetched and stored.
        harness.wallClock.advance(by: 3600)
        try await harness.engine().runOnce()
        let stats = try harness.store.statistics()
        #expect(stats.imagesStored == 5 && stats.imagesPending == 0)
        #expect(try harness.allImagesMatch([broken]))
    }

    @Test func afterTheLastAttemptAnImageIsLeftAsFailedAndReported() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let broken = harness.fake.ids[0]
        harness.fake.state.withLock { $0.failingImages[broken] = (500, 1000) }
        let engine = harness.engine { $0.maxImageAttempts = 3 }
        for _ in 0..<4 {
            try await engine.runOnce()
            harness.wallClock.advance(by: 86_400)
        }
        let stats = try harness.store.statistics()
        #expect(stats.imagesFailed == 1 && stats.imagesStored == 4 && stats.imagesPending == 0)
        #expect(harness.fake.imageRequests(broken) == 3 * 2)
        let failure = try #require(try harness.store.failedImages(limit: 10).first)
        #expect(failure.photoID == broken && failure.lastError.contains("500"))
        // A failed image is not tracked: nothing was downloaded.
        #expect(harness.fake.trackings(broken) == 0)
    }

    @Test func aGoneImageFailsAtOnce() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let gone = harness.fake.ids[1]
        harness.fake.state.withLock { $0.failingImages[gone] = (403, 1000) }
        try await harness.engine().runOnce()
        #expect(try harness.store.statistics().imagesFailed == 1)
        #expect(harness.fake.imageRequests(gone) == 1)
    }

    @Test func aShortBodyIsNotStored() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        let short = harness.fake.ids[0]
        harness.fake.state.withLock { _ = $0.shortImages.insert(short) }
        try await harness.engine().runOnce()
        #expect(try harness.store.photo(id: short)?.image == nil)
        #expect(try harness.store.failedImages(limit: 10).isEmpty)
        #expect(try harness.store.statistics().imagesPending == 1)
    }

    @Test func imagesFromHostsNotAllowedAreNeverFetched() async throws {
        let harness = try SyncHarness(photos: 3)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.allowedImageHosts = ["cdn.example.com"] }.runOnce()
        #expect(harness.fake.totalImageRequests == 0)
        #expect(try harness.store.statistics().imagesFailed == 3)
        #expect(try harness.store.failedImages(limit: 1).first?.lastError.contains("images.unsplash.com") == true)
    }

    @Test func downloadTrackingCanBeTurnedOff() async throws {
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        try await harness.engine { $0.downloadTracking = false }.runOnce()
        #expect(harness.fake.trackingRequests == 0)
        #expect(try harness.store.statistics().imagesStored == 5)
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
    let policy = ImageHostPolicy(allowedHosts: ["images.unsplash.com", "127.0.0.1", "localhost", "::1", "127.0.0.2:9000"])

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
        if case .success = verdict { #expect(allowed, "\(url) was allowed") } else { #expect(!allowed, "\(url) was refused") }
    }

    @Test func plainHTTPIsOnlyForLoopback() {
        #expect(CleartextPolicy.isLoopback("127.0.0.1") && CleartextPolicy.isLoopback("127.8.9.10"))
        #expect(CleartextPolicy.isLoopback("[::1]") && CleartextPolicy.isLoopback("localhost"))
        #expect(!CleartextPolicy.isLoopback("128.0.0.1") && !CleartextPolicy.isLoopback("127.0.0.1.example.com"))
    }
}
