import Foundation
import Logging
import UnsplashAPI

/// Keeps the sync inside Unsplash's hourly request budget.
///
/// Every API answer reports what is left. Before each API request the sync asks for a permit:
/// when the last report is at or below the reserve, it waits for ``SyncConfiguration/rateLimitPause``
/// rather than spend the last requests, then lets one request through to learn the new budget.
/// Unsplash has no reset header, so waiting and asking again is all a client can do.
actor RateLimitBudget {
    private let reserve: Int
    private let pause: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    private(set) var last: RateLimit?
    private let onWait: @Sendable (Duration) async -> Void

    init(reserve: Int, pause: Duration, clock: any Clock<Duration>, logger: Logger, onWait: @escaping @Sendable (Duration) async -> Void = { _ in }) {
        self.reserve = reserve
        self.pause = pause
        self.clock = clock
        self.logger = logger
        self.onWait = onWait
    }

    /// Records what an answer said of the budget.
    func update(_ limit: RateLimit?) {
        if let limit { last = limit }
    }

    /// Returns when an API request may be sent. Throws only `CancellationError`.
    func permit() async throws {
        guard let last, last.remaining <= reserve else { return }
        logger.notice("rate limit low: waiting instead of spending the reserve", metadata: [
            "remaining": "\(last.remaining)", "limit": "\(last.limit)", "reserve": "\(reserve)", "wait_s": "\(pause.components.seconds)",
        ])
        try await wait(pause)
        // The budget is unknown until the next answer says otherwise.
        self.last = nil
    }

    /// Waits after the API refused a request for the rate limit.
    func exhausted(_ limit: RateLimit?, retryAfter: Duration?) async throws {
        let delay = retryAfter.map { max($0, .seconds(1)) } ?? pause
        logger.notice("rate limit exceeded: waiting before the next request", metadata: [
            "wait_s": "\(delay.components.seconds)",
        ])
        try await wait(delay)
        last = nil
    }

    private func wait(_ delay: Duration) async throws {
        await onWait(delay)
        try await clock.sleep(for: delay)
    }
}
