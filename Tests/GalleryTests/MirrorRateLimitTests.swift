import Foundation
import Synchronization
import Testing

@testable import Gallery

/// The mirror's hourly limit, a budget per client key, on an injected clock.
@Suite struct MirrorRateLimitTests {
    @Test func eachKeyHasItsLimitEachClockHour() {
        // The start of a clock hour.
        let clock = Mutex(Date(timeIntervalSince1970: 1_699_999_200))
        let limit = MirrorRateLimit(hourlyLimit: 2, now: { clock.withLock { $0 } })
        #expect(limit.spend("a") == 1)
        #expect(limit.spend("a") == 0)
        #expect(limit.spend("a") == nil, "the third request of the hour")
        #expect(limit.spend("b") == 1, "another key has its own budget")
        clock.withLock { $0 += 3599 }
        #expect(limit.spend("a") == nil, "still the same clock hour")
        clock.withLock { $0 += 1 }
        #expect(limit.spend("a") == 1, "the next hour refills it")
    }
}
