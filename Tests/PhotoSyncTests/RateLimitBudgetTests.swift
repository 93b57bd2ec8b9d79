import Foundation
import Logging
import Synchronization
import TestSupport
import Testing
import UnsplashAPI

@testable import PhotoSync

@Suite struct RateLimitBudgetTests {
    func budget(reserve: Int, clock: TestClock = TestClock()) -> RateLimitBudget {
        RateLimitBudget(reserve: reserve, pause: .seconds(600), clock: clock, logger: Logger(label: "test"))
    }

    @Test func anUnknownBudgetLetsOneRequestOutToLearnIt() async throws {
        let budget = budget(reserve: 10)
        let first = try await budget.permit()
        let second = Task { try await budget.permit() }
        for _ in 0..<50 { await Task.yield() }
        #expect(await budget.inFlight == 1)
        #expect(await budget.waiting == 1)
        await budget.release(first, reporting: RateLimit(limit: 5000, remaining: 4000))
        _ = try await second.value
        #expect(await budget.inFlight == 1)
    }

    @Test func requestsInFlightCountAgainstTheBudget() async throws {
        // GIVEN a known budget of 15 with a reserve of 10
        let budget = budget(reserve: 10, clock: TestClock(suspendsSleeps: true))
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 50, remaining: 15))
        // WHEN 8 requests want to go at once
        let granted = Shared(0)
        let requests = (0..<8).map { _ in
            Task {
                _ = try await budget.permit()
                granted.withLock { $0 += 1 }
            }
        }
        for _ in 0..<200 { await Task.yield() }
        // THEN only 5 go; the others wait rather than spend the reserve
        #expect(granted.value == 5)
        #expect(await budget.inFlight == 5)
        for request in requests { request.cancel() }
        for request in requests { _ = await request.result }
    }

    @Test func aRetryWaitsForAPermitOfItsOwnInsteadOfSpendingTheReserve() async throws {
        // GIVEN a known budget of 12 with a reserve of 10
        let budget = budget(reserve: 10, clock: TestClock(suspendsSleeps: true))
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 50, remaining: 12))
        // WHEN a request's first attempt fails reporting 10 left, and it wants to retry
        let retried = Shared(false)
        let request = Task {
            try await budget.spend(
                { admitsRetry in
                    try await admitsRetry(RateLimit(limit: 50, remaining: 10))
                    retried.withLock { $0 = true }
                    return RateLimit(limit: 50, remaining: 9)
                }, report: { $0 }, onReport: { _ in })
        }
        for _ in 0..<200 { await Task.yield() }
        // THEN the retry is not sent: it waits for the budget, holding no permit meanwhile
        #expect(!retried.value)
        #expect(await budget.inFlight == 0)
        #expect(await budget.last?.remaining == 10)
        request.cancel()
        _ = await request.result
    }

    @Test func aHigherCountFromARequestTheAPICountedFirstIsStale() async throws {
        // GIVEN a known budget of 10, and two requests in flight, A then B
        let budget = budget(reserve: 0)
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 50, remaining: 10))
        let a = try await budget.permit()
        let b = try await budget.permit()
        // WHEN the API counted B first (9 left) and A second (8 left), and A's answer is back first
        await budget.release(a, reporting: RateLimit(limit: 50, remaining: 8))
        await budget.release(b, reporting: RateLimit(limit: 50, remaining: 9))
        // THEN B's higher count does not raise the budget again
        #expect(await budget.last?.remaining == 8)
        // AND a request sent after that report may raise it: the limit was reset
        let c = try await budget.permit()
        await budget.release(c, reporting: RateLimit(limit: 50, remaining: 50))
        #expect(await budget.last?.remaining == 50)
    }

    @Test func theProgressShowsTheLowestRemainingOfTheWindowNotTheLastAnswer() async throws {
        // GIVEN a known budget of 20
        let budget = budget(reserve: 0)
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 200, remaining: 20))
        let reported = Shared<[Int]>([])
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        func request(_ remaining: Int, waitingFor gate: AsyncStream<Void>?) -> Task<RateLimit, any Error> {
            Task {
                try await budget.spend(
                    { _ in
                        if let gate { for await _ in gate { break } }
                        return RateLimit(limit: 200, remaining: remaining)
                    }, report: { $0 },
                    onReport: { limit in reported.withLock { $0.append(limit.remaining) } })
            }
        }
        // WHEN A is sent, then B; the API counted A first (13 left) and B second (10 left), and
        // B's answer is handled first
        let a = request(13, waitingFor: gate)
        while await budget.inFlight < 1 { await Task.yield() }
        _ = try await request(10, waitingFor: nil).value
        open.yield()
        _ = try await a.value
        // THEN the figure shown stays at the lowest, 10, not the last answer's 13
        #expect(reported.value == [10, 10], "\(reported.value)")
    }

    @Test func anAnswerThatSaysNothingCountsAsSpent() async throws {
        let budget = budget(reserve: 0)
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 50, remaining: 40))
        let failed = try await budget.permit()
        await budget.release(failed, reporting: nil)
        #expect(await budget.last?.remaining == 39)
    }

    @Test func anOlderAnswerDoesNotRaiseTheBudgetAgain() async throws {
        let budget = budget(reserve: 0)
        let probe = try await budget.permit()
        await budget.release(probe, reporting: RateLimit(limit: 50, remaining: 40))
        let early = try await budget.permit()
        let late = try await budget.permit()
        await budget.release(late, reporting: RateLimit(limit: 50, remaining: 38))
        await budget.release(early, reporting: RateLimit(limit: 50, remaining: 39))
        #expect(await budget.last?.remaining == 38)
    }

    @Test func withConcurrentTrackingTheFakesBudgetIsNeverOverdrawn() async throws {
        // GIVEN 60 photos (6 pages + 60 tracking requests) and a budget of 40 with a reserve of 2,
        // and a pause that lasts until the test ends it
        let harness = try SyncHarness(photos: 60, clock: TestClock(suspending: { $0 == .seconds(600) }))
        defer { harness.removeDirectory() }
        harness.fake.state.withLock { $0.remaining = 40 }
        let engine = harness.engine {
            $0.rateLimitReserve = 2
            $0.rateLimitPause = .seconds(600)
            $0.trackingConcurrency = 8
            $0.concurrency = 8
        }
        // WHEN it syncs until it pauses for the rate limit
        let sync = Task { try await engine.runOnce() }
        for await delay in harness.clock.sleepStarted where delay == .seconds(600) { break }
        // THEN it spent the budget down to the reserve and not one request more
        #expect(harness.fake.state.withLock { $0.overdrawn } == 0)
        #expect(harness.fake.apiRequests.count == 38)
        #expect(harness.fake.state.withLock { $0.remaining } == 2)
        #expect(await engine.stageDepths.apiInFlight == 0)
        sync.cancel()
        await #expect { try await sync.value } throws: { isSyncCancellation($0) }
    }
}
