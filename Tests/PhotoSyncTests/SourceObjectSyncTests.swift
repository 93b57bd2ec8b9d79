import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

/// The objects sources list the photos of (a collection, a topic, a profile), fetched for the
/// mirror: once, again after a day, and never at the cost of the run.
@Suite(.timeLimit(.minutes(5))) struct SourceObjectSyncTests {
    /// An engine polling every 5 minutes for `collection:42`, whose object the API answers 404
    /// (until the test clears `missing`) though it lists its photos.
    static func engineFailingOnCollection42(_ harness: SyncHarness) -> SyncEngine {
        harness.fake.state.withLock { $0.missing["/collections/42"] = "Couldn't find Collection" }
        return harness.engine {
            $0.sources = [.collection("42")]
            $0.pollInterval = .seconds(300)
        }
    }

    @Test func anObjectIsFetchedOnceThenAgainAfterADayAndAProfileOncePerUsername() async throws {
        // GIVEN a collection and a user whose photos and likes are both synced
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let sources: [PhotoSource] = [.collection("42"), .user("ann"), .likes("ann"), .feed]
        let engine = harness.engine { $0.sources = sources }

        // WHEN the sync runs
        try await engine.runOnce()

        // THEN each object was fetched once, the profile for both of ann's sources
        #expect(harness.fake.objectRequests == ["/collections/42", "/users/ann"])
        let collection = try #require(try await harness.store.catalog.sourceObject(ofAny: ["collection:42"]))
        #expect(String(decoding: collection, as: UTF8.self).contains(#""title":"42""#))
        let fetched = try await harness.store.ledger.sourceObjectsFetched(
            sources: ["collection:42", "user:ann", "likes:ann", "feed"])
        #expect(Set(fetched.keys) == ["collection:42", "user:ann", "likes:ann"])

        // WHEN it runs again within the day
        harness.wallClock.advance(by: 23 * 3600)
        try await engine.runOnce()
        // THEN nothing is fetched again
        #expect(harness.fake.objectRequests.count == 2)

        // WHEN it runs once the objects are a day old
        harness.wallClock.advance(by: 3600)
        try await engine.runOnce()
        // THEN each is fetched again, once
        #expect(harness.fake.objectRequests == ["/collections/42", "/users/ann", "/collections/42", "/users/ann"])
        let refreshed = try await harness.store.ledger.sourceObjectsFetched(sources: ["collection:42"])
        #expect(refreshed["collection:42"] == harness.wallClock.now)
    }

    @Test func aFailedObjectFetchWarnsOnceNeverEndsTheRunAndIsTriedAtTheNextPoll() async throws {
        // GIVEN a collection whose object the API cannot answer, though its photos it can
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let engine = Self.engineFailingOnCollection42(harness)

        // WHEN the sync runs
        let progress = try await engine.runOnce()

        // THEN the run did its pages and images, and warned once about the object
        #expect(progress.photosNew == 5)
        #expect(try await harness.store.catalog.statistics().photos == 5)
        #expect(harness.log.output.filter { $0.contains("could not be fetched") }.count == 1)
        #expect(try await harness.store.catalog.sourceObject(ofAny: ["collection:42"]) == nil)

        // WHEN the API answers again, at the next poll
        harness.fake.state.withLock { $0.missing = [:] }
        harness.wallClock.advance(by: 300)
        try await engine.runOnce()

        // THEN the object is stored
        #expect(harness.fake.objectRequests == ["/collections/42", "/collections/42"])
        #expect(try await harness.store.catalog.sourceObject(ofAny: ["collection:42"]) != nil)
    }

    @Test func anObjectThatKeepsFailingWaitsTwiceAsLongAfterEachFailureAndIsStoredOnceTheAPIAnswers() async throws {
        // GIVEN a collection whose object the API keeps failing on, polled every 5 minutes
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        let engine = Self.engineFailingOnCollection42(harness)

        // WHEN it polls 16 times, 5 minutes apart
        var triedAt: [Int] = []
        for poll in 0..<16 {
            let before = harness.fake.objectRequests.count
            try await engine.runOnce()
            if harness.fake.objectRequests.count > before { triedAt.append(poll) }
            harness.wallClock.advance(by: 300)
        }

        // THEN it was tried at the first poll, the next one, then 2, 4 and 8 polls later,
        // each failure warned about with its wait
        #expect(triedAt == [0, 1, 3, 7, 15])
        let warnings = harness.log.output.filter { $0.contains("could not be fetched") }
        #expect(warnings.count == 5)
        #expect(warnings.last?.contains("wait_s=4800") == true)

        // WHEN the API answers again and the wait has passed
        harness.fake.state.withLock { $0.missing = [:] }
        harness.wallClock.advance(by: 4800)
        try await engine.runOnce()
        // THEN it is stored
        #expect(try await harness.store.catalog.sourceObject(ofAny: ["collection:42"]) != nil)
    }

    @Test func theWaitStopsDoublingAtTheSourceRetryDelayAndStartsOverAfterASuccess() {
        let retries = ObjectRetries()
        let object = ["collections", "42"]
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let configuration = SyncConfiguration(sourceRetryDelay: .seconds(6 * 3600), pollInterval: .seconds(300))
        let waits = (0..<40).map { _ in retries.failed(object, now: start, configuration: configuration) }
        #expect(waits.prefix(4) == [.seconds(300), .seconds(600), .seconds(1200), .seconds(2400)])
        #expect(waits.last == .seconds(6 * 3600))
        #expect(!retries.isDue(object, now: start.addingTimeInterval(6 * 3600 - 1)))
        #expect(retries.isDue(object, now: start.addingTimeInterval(6 * 3600)))
        #expect(retries.isDue(["collections", "43"], now: start))

        retries.succeeded(object)
        #expect(retries.isDue(object, now: start))
        #expect(retries.failed(object, now: start, configuration: configuration) == .seconds(300))
    }

    @Test func objectsWaitWhileTheRateLimitIsLowSoThatPagesGoFirst() async throws {
        // GIVEN a budget that the pages bring within twice the reserve of its end
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.remaining = 25 }
        let engine = harness.engine {
            $0.sources = [.collection("42")]
            $0.rateLimitReserve = 12
            $0.downloadTracking = false
        }

        // WHEN the sync runs
        try await engine.runOnce()

        // THEN its pages were fetched and the object left for a later poll
        #expect(try await harness.store.catalog.statistics().photos == 5)
        #expect(harness.fake.objectRequests.isEmpty)
    }

    @Test func aDaemonFetchesAtTheHeadPollAfterAFailureAndAgainOnceADayHasPassed() async throws {
        // GIVEN a daemon polling every 12 hours, whose first fetch of the collection fails
        let harness = try SyncHarness(photos: 5)
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.missing["/collections/42"] = "Couldn't find Collection" }
        let engine = harness.engineWithWallClockFollowingItsClock {
            $0.sources = [.collection("42")]
            $0.pollInterval = .seconds(12 * 3600)
        }

        // WHEN it polls four times: at 0, 12, 24 and 36 hours
        let daemon = Task { try await engine.run() }
        var polls = 0
        for await delay in harness.clock.sleepStarted where delay == .seconds(12 * 3600) {
            polls += 1
            if polls == 1 { harness.fake.state.withLock { $0.missing = [:] } }
            if polls == 4 { break }
        }
        daemon.cancel()
        let ended = await daemon.result

        // THEN the failure ended nothing, and the object was fetched at 0 (failed), at 12 (stored)
        // and at 36 hours, a day after it was stored
        guard case .failure(SyncError.cancelled) = ended else {
            Issue.record("the daemon ended with \(ended)")
            return
        }
        #expect(harness.fake.objectRequests.count == 3)
        #expect(harness.log.output.filter { $0.contains("could not be fetched") }.count == 1)
        #expect(try await harness.store.catalog.sourceObject(ofAny: ["collection:42"]) != nil)
    }
}
