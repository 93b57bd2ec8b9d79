/// The API requests left in the current window, and how far clients went over it.
///
/// Windows are fixed, not rolling (Unsplash does not document which it uses): with a window
/// length set, the budget refills to the limit when a request arrives in a later window than
/// the last refill. Without one, it refills only when a test says so.
struct RateLimitBudget: Sendable {
    struct Window: Sendable {
        let length: Duration
        /// Time since the window's clock was set, read from that clock.
        let elapsed: @Sendable () -> Duration
        var index: Int64 = 0

        var currentIndex: Int64 {
            Int64((elapsed() / length).rounded(.down))
        }
    }

    let limit: Int
    private(set) var remaining: Int
    private var window: Window?
    private var overBudgetThisWindow = 0
    /// The most requests that arrived with no budget left within one window.
    private(set) var maximumOverBudget = 0
    /// Every request that arrived with no budget left.
    private(set) var totalOverBudget = 0

    init(limit: Int, remaining: Int) {
        self.limit = limit
        self.remaining = remaining
    }

    /// What a request arriving now would find.
    var remainingNow: Int {
        if let window, window.currentIndex != window.index { return limit }
        return remaining
    }

    /// Spends one request. False when none is left: the request is over budget, and counted.
    mutating func spend() -> Bool {
        refillIfDue()
        guard remaining > 0 else {
            overBudgetThisWindow += 1
            totalOverBudget += 1
            maximumOverBudget = max(maximumOverBudget, overBudgetThisWindow)
            return false
        }
        remaining -= 1
        return true
    }

    /// Starts a new window with `remaining` (clamped to 0...limit), or the full limit.
    mutating func refill(to remaining: Int? = nil) {
        self.remaining = min(max(0, remaining ?? limit), limit)
        overBudgetThisWindow = 0
    }

    /// Refills every `length` of `elapsed`, from now on; nil stops refilling by itself.
    mutating func setWindow(length: Duration?, elapsed: @escaping @Sendable () -> Duration) {
        guard let length, length > .zero else {
            window = nil
            return
        }
        var window = Window(length: length, elapsed: elapsed)
        window.index = window.currentIndex
        self.window = window
    }

    private mutating func refillIfDue() {
        guard var window else { return }
        let index = window.currentIndex
        guard index != window.index else { return }
        window.index = index
        self.window = window
        refill()
    }
}

extension UnsplashStub {
    /// The API requests left before answers become `403 Rate Limit Exceeded` (a refill that is
    /// due by the window's clock counts as done).
    public var rateLimitRemaining: Int { budget.remainingNow }

    /// Refills the budget (the window has passed): to `remaining`, or to the full
    /// `configuration.rateLimit` when nil. Values are clamped to 0...rateLimit.
    public func resetRateLimit(remaining: Int? = nil) {
        budget.refill(to: remaining)
    }

    /// Refills the budget to `configuration.rateLimit` every `window` of `clock`'s time, counted
    /// from now, as the first request of each new window arrives; nil stops the automatic
    /// refills. Pass a test clock to move windows on without waiting.
    public func refillRateLimit<C: Clock>(every window: Duration?, clock: C) where C.Duration == Duration {
        let origin = clock.now
        budget.setWindow(length: window) { origin.duration(to: clock.now) }
    }

    /// `refillRateLimit(every:clock:)` on the real, continuous clock.
    public func refillRateLimit(every window: Duration?) {
        refillRateLimit(every: window, clock: ContinuousClock())
    }

    /// The most API requests that arrived with the budget spent (and were answered `403 Rate
    /// Limit Exceeded`) within any one window, since start. 0 means no client ever went over
    /// the budget. Injected failures (`failNextAPIRequests`) are not counted.
    public var maximumRequestsOverBudget: Int { budget.maximumOverBudget }

    /// Every API request that arrived with the budget spent, since start.
    public var requestsOverBudget: Int { budget.totalOverBudget }
}
