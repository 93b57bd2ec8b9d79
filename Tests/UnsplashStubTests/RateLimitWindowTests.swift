import Foundation
import Synchronization
import Testing
import UnsplashStub

@Suite(.timeLimit(.minutes(5))) struct RateLimitWindowTests {
    @Test func theBudgetRefillsWhenTheInjectedClockEntersTheNextWindow() async throws {
        try await withStub(rateLimit: 2) { stub, client in
            // GIVEN
            let clock = ManualClock()
            await stub.refillRateLimit(every: .seconds(60), clock: clock)

            // WHEN the budget is spent within the window
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await client.get(stub, "/photos").status) }
            clock.advance(by: .seconds(59))
            statuses.append(try await client.get(stub, "/photos").status)
            #expect(await stub.rateLimitRemaining == 0)

            // THEN it comes back in the next window, not before
            clock.advance(by: .seconds(1))
            #expect(await stub.rateLimitRemaining == 2)
            let refilled = try await client.get(stub, "/photos")
            #expect(statuses == [200, 200, 403, 403])
            #expect(refilled.status == 200)
            #expect(refilled.header("X-Ratelimit-Remaining") == "1")
        }
    }

    @Test func theMostRequestsOverBudgetInOneWindowAreRecorded() async throws {
        try await withStub(rateLimit: 2) { stub, client in
            for _ in 0..<2 { _ = try await client.get(stub, "/photos") }
            #expect(await stub.maximumRequestsOverBudget == 0, "spending the whole budget is not exceeding it")

            // WHEN three requests go over in one window, then one in the next
            for _ in 0..<3 { _ = try await client.get(stub, "/photos") }
            await stub.resetRateLimit()
            for _ in 0..<3 { _ = try await client.get(stub, "/photos") }
            await stub.failNextAPIRequests(count: 1, status: 429)
            await stub.resetRateLimit()
            _ = try await client.get(stub, "/photos")

            // THEN
            #expect(await stub.maximumRequestsOverBudget == 3)
            #expect(await stub.requestsOverBudget == 4, "an injected 429 is not over budget")
        }
    }
}

/// A clock that moves only when told.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: duration) }
    }

    struct CannotSleep: Error {}

    /// The stub only reads the time; nothing may wait on this clock.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        throw CannotSleep()
    }
}
