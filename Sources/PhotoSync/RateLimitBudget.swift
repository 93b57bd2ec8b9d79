import Foundation
import Logging
import Synchronization
import UnsplashAPI

/// Keeps the sync inside Unsplash's hourly request budget, with requests in flight.
///
/// Every API request holds a permit from ``permit()`` until its answer is back (``release(_:reporting:)``).
/// A permit is granted only while the last reported `remaining`, less the requests already in
/// flight, stays above the reserve; so however many requests run at once, a known budget is
/// never overdrawn. While the budget is unknown (at the start, after a pause) one request at a
/// time goes out to learn it. At the reserve, with nothing in flight, it waits for
/// ``SyncConfiguration/rateLimitPause`` rather than spend the last requests: Unsplash has no reset
/// header, so waiting and asking again is all a client can do.
///
/// Permits are granted first come, first served, so the page walker and the download tracker
/// share the budget fairly: a page waits behind at most the requests queued before it.
actor RateLimitBudget {
    /// A granted request, to hand back with ``release(_:reporting:)`` or ``exhausted(_:retryAfter:)``.
    struct Permit: Sendable {
        /// How many reports had been recorded when it was granted.
        fileprivate let reportsBefore: UInt64
    }

    private let reserve: Int
    private let pause: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let onWait: @Sendable (Duration) async -> Void
    /// The budget as last known: from the answers, as ``record(_:from:)`` weighs them, less one
    /// for each answer that said nothing.
    private(set) var last: RateLimit?
    /// Reports recorded so far: a permit granted after the current one was sent after it.
    private var reports: UInt64 = 0
    /// Requests granted and not yet answered.
    private(set) var inFlight = 0
    private var pausing = false
    private var line: [UInt64] = []
    private var nextTicket: UInt64 = 0
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

    init(
        reserve: Int, pause: Duration, clock: any Clock<Duration>, logger: Logger,
        onWait: @escaping @Sendable (Duration) async -> Void = { _ in }
    ) {
        self.reserve = reserve
        self.pause = pause
        self.clock = clock
        self.logger = logger
        self.onWait = onWait
    }

    /// Requests waiting for a permit.
    var waiting: Int { line.count }

    /// Returns when one more API request may be sent, and counts it in flight until released.
    func permit() async throws(CancellationError) -> Permit {
        nextTicket += 1
        let ticket = nextTicket
        line.append(ticket)
        defer {
            line.removeAll { $0 == ticket }
            wakeWaiters()
        }
        while true {
            if Task.isCancelled { throw CancellationError() }
            if line.first == ticket && !pausing {
                if mayStartRequest {
                    inFlight += 1
                    return Permit(reportsBefore: reports)
                }
                if inFlight == 0, let last {
                    logger.notice(
                        "rate limit low: waiting instead of spending the reserve",
                        metadata: [
                            "remaining": "\(last.remaining)", "limit": "\(last.limit)", "reserve": "\(reserve)",
                            "wait_s": "\(pause.components.seconds)",
                        ])
                    try await wait(pause)
                    continue
                }
            }
            await waitForChange()
        }
    }

    /// Hands a permit back with what its answer said of the budget (nil when it said nothing:
    /// the request is then counted as spent, in case it reached the API).
    ///
    /// - Returns: the budget as now known, which a stale report does not raise.
    @discardableResult
    func release(_ permit: Permit, reporting limit: RateLimit?) -> RateLimit? {
        inFlight -= 1
        if let limit {
            record(limit, from: permit)
        } else if let known = last {
            // Like a report: a higher count from a request already in flight is stale after it.
            last = RateLimit(limit: known.limit, remaining: max(0, known.remaining - 1))
            reports += 1
        }
        wakeWaiters()
        return last
    }

    /// Hands back a permit the API refused for the rate limit, and waits before anyone sends
    /// another request.
    func exhausted(_ permit: Permit, retryAfter: Duration?) async throws(CancellationError) {
        inFlight -= 1
        let delay = retryAfter.map { max($0, .seconds(1)) } ?? pause
        logger.notice(
            "rate limit exceeded: waiting before the next request",
            metadata: [
                "wait_s": "\(delay.components.seconds)"
            ])
        try await wait(delay)
    }

    /// Answers may come back out of order, and concurrent requests reach the API in any order.
    /// A lower report always counts. A higher one counts only from a request granted after the
    /// current report was recorded: that request reached the API after the one that made it, so
    /// a higher count means the limit was reset. A higher report from a request already in flight
    /// may simply have been counted earlier, and is stale.
    private func record(_ limit: RateLimit, from permit: Permit) {
        if let last, limit.remaining >= last.remaining, permit.reportsBefore < reports { return }
        last = limit
        reports += 1
    }

    private var mayStartRequest: Bool {
        guard let last else { return inFlight == 0 }
        return last.remaining - inFlight > reserve
    }

    /// Sleeps with no permit granted meanwhile; afterwards the budget is unknown until the next
    /// answer says otherwise.
    private func wait(_ delay: Duration) async throws(CancellationError) {
        pausing = true
        defer {
            pausing = false
            last = nil
            wakeWaiters()
        }
        await onWait(delay)
        do {
            try await clock.sleep(for: delay)
        } catch {
            throw CancellationError()
        }
    }

    private func waitForChange() async {
        nextTicket += 1
        let id = nextTicket
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func wakeWaiters() {
        let woken = waiters.values
        waiters = [:]
        for continuation in woken { continuation.resume() }
    }
}

extension RateLimitBudget {
    /// Sends one API request within the budget and returns its answer, waiting out an exhausted
    /// limit and trying again. `report` says what the answer told of the budget.
    ///
    /// `request` gets the function that admits its retries: each retry is a request too, so the
    /// failed attempt's permit is handed back with what it reported, and the retry waits for a
    /// permit of its own, in line with everyone else. Retries never dip into the reserve.
    ///
    /// - Throws: ``SyncError/accessKeyRejected(_:)`` for a rejected key; other
    ///   ``UnsplashError``s as they are; `CancellationError` (from the wait for a permit, or
    ///   ``UnsplashError/cancelled`` from the request).
    func spend<T: Sendable>(
        _ request:
            @Sendable (
                _ admitsRetry: @escaping @Sendable (RateLimit?) async throws(CancellationError) -> Void
            ) async throws -> T,
        report: @Sendable (T) -> RateLimit?,
        onReport: @escaping @Sendable (RateLimit) async -> Void
    ) async throws -> T {
        while true {
            let held = HeldPermit(try await permit())
            let admitsRetry: @Sendable (RateLimit?) async throws(CancellationError) -> Void = {
                reported throws(CancellationError) in
                // What the budget makes of the answer: an answer that overtook a later one
                // reports more than is left, and must not raise the figure shown.
                if let spent = held.take(), let known = await self.release(spent, reporting: reported),
                    reported != nil
                {
                    await onReport(known)
                }
                held.put(try await self.permit())
            }
            do {
                let answer = try await request(admitsRetry)
                let limit = report(answer)
                if let permit = held.take(), let known = release(permit, reporting: limit), limit != nil {
                    await onReport(known)
                }
                return answer
            } catch UnsplashError.rateLimited(let limit, let retryAfter) {
                if let limit { await onReport(limit) }
                if let permit = held.take() { try await exhausted(permit, retryAfter: retryAfter) }
            } catch UnsplashError.accessKeyRejected(let detail) {
                if let permit = held.take() { release(permit, reporting: nil) }
                throw SyncError.accessKeyRejected(.accessKeyRejected(detail: detail))
            } catch UnsplashError.cancelled {
                if let permit = held.take() { release(permit, reporting: nil) }
                throw CancellationError()
            } catch {
                if let permit = held.take() { release(permit, reporting: nil) }
                throw error
            }
        }
    }
}

/// The permit a request holds now: its retries hand one back and take another.
private final class HeldPermit: Sendable {
    private let permit: Mutex<RateLimitBudget.Permit?>

    init(_ permit: RateLimitBudget.Permit) { self.permit = Mutex(permit) }

    func take() -> RateLimitBudget.Permit? { permit.withLock { $0.take() } }
    func put(_ new: RateLimitBudget.Permit) { permit.withLock { $0 = new } }
}
