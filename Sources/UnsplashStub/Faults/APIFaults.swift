/// API failures at a steady rate: every k-th request, or each request with a seeded probability.
struct PeriodicFailure: Sendable {
    enum Pattern: Sendable {
        case every(Int)
        case probability(Double, SplitMix64)
    }

    var pattern: Pattern
    let status: Int
    let retryAfter: Int?
    /// Failures still to give; nil for no end.
    var failuresLeft: Int?
    private var seen = 0

    init(pattern: Pattern, status: Int, retryAfter: Int?, failuresLeft: Int?) {
        self.pattern = pattern
        self.status = status
        self.retryAfter = retryAfter
        self.failuresLeft = failuresLeft
    }

    mutating func next() -> Faults.Countdown? {
        guard failuresLeft.map({ $0 > 0 }) ?? true else { return nil }
        seen += 1
        let strikes: Bool
        switch pattern {
        case .every(let period):
            strikes = seen % period == 0
        case .probability(let probability, var generator):
            strikes = generator.unit() < probability
            pattern = .probability(probability, generator)
        }
        guard strikes else { return nil }
        failuresLeft = failuresLeft.map { $0 - 1 }
        return Faults.Countdown(remaining: 1, status: status, retryAfter: retryAfter)
    }
}

extension UnsplashStub {
    /// Answers the next `count` API requests that pass the authorization and rate-limit checks
    /// with `status` instead (they still use up the rate limit, as Unsplash's failures do).
    /// A 429 or 403 comes with Unsplash's plain-text `Rate Limit Exceeded` body; other statuses
    /// with a JSON `{"errors": [...]}` body. `retryAfter` (seconds) adds a `Retry-After` header.
    /// Replaces any failures still pending from this method.
    public func failNextAPIRequests(count: Int, status: Int = 500, retryAfter: Int? = nil) {
        faults.api = count > 0 ? Faults.Countdown(remaining: count, status: status, retryAfter: retryAfter) : nil
    }

    /// Fails every `period`-th API request with `status`, counting from now the requests that
    /// pass the authorization and rate-limit checks and are not failed by `failNextAPIRequests`,
    /// until `count` failures were given (nil: until `clearFaults()`). Bodies as in
    /// `failNextAPIRequests`. A period below 1 stops the periodic failures.
    public func failAPIRequests(every period: Int, status: Int = 500, retryAfter: Int? = nil, count: Int? = nil) {
        faults.periodicAPI =
            period >= 1
            ? PeriodicFailure(pattern: .every(period), status: status, retryAfter: retryAfter, failuresLeft: count)
            : nil
    }

    /// Fails each API request with probability `rate` (0...1), drawn from a generator seeded with
    /// `seed`: for a given seed and order of requests, the same requests fail, run after run.
    /// Counting and bodies as in `failAPIRequests(every:)`.
    public func failAPIRequests(
        rate: Double, seed: UInt64, status: Int = 500, retryAfter: Int? = nil, count: Int? = nil
    ) {
        let generator = Determinism.generator("api-failures:\(seed)")
        faults.periodicAPI =
            rate > 0
            ? PeriodicFailure(
                pattern: .probability(min(rate, 1), generator), status: status, retryAfter: retryAfter,
                failuresLeft: count)
            : nil
    }

    /// Fails each download-tracking request (`GET /photos/:id/download`) with probability `rate`
    /// (0...1), drawn from a generator seeded with `seed`, before any other API failure; the
    /// request still uses up the rate limit. Counting and bodies as in `failAPIRequests(rate:)`.
    /// A rate of 0 stops them.
    public func failTrackingRequests(rate: Double, seed: UInt64, status: Int = 503, count: Int? = nil) {
        faults.periodicTracking =
            rate > 0
            ? PeriodicFailure(
                pattern: .probability(min(rate, 1), Determinism.generator("tracking-failures:\(seed)")),
                status: status, retryAfter: nil, failuresLeft: count)
            : nil
    }

    /// Holds every API answer for `delay` before sending it; nil stops delaying. Other requests
    /// are served meanwhile.
    public func delayAPIRequests(by delay: Duration?) {
        faults.apiDelay = delay
    }
}
