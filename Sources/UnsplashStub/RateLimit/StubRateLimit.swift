import Basics

/// The API requests left in the current window, and how far clients went over it.
///
/// Windows are fixed, not rolling (Unsplash does not document which it uses), counted by the
/// same ``FixedWindowBudget`` that `serve`'s mirror limits its clients with: with a window
/// length set, the budget refills to the limit when a request arrives in a later window than
/// the last refill. Without one, it refills only when a test says so.
struct StubRateLimit: Sendable {
    struct Window: Sendable {
        let length: Duration
        /// Time since the window's clock was set, read from that clock.
        let elapsed: @Sendable () -> Duration

        var current: Int64 { FixedWindowBudget.window(at: elapsed(), length: length) }
    }

    private var budget: FixedWindowBudget
    private var window: Window?
    private var overBudgetThisWindow = 0
    /// The most requests that arrived with no budget left within one window.
    private(set) var maximumOverBudget = 0
    /// Every request that arrived with no budget left.
    private(set) var totalOverBudget = 0

    init(limit: Int, remaining: Int) {
        budget = FixedWindowBudget(limit: limit, remaining: remaining)
    }

    var limit: Int { budget.limit }
    var remaining: Int { budget.remaining }

    /// What a request arriving now would find.
    var remainingNow: Int { budget.remaining(in: window?.current ?? budget.window) }

    /// Spends one request. False when none is left: the request is over budget, and counted.
    mutating func spend() -> Bool {
        let before = budget.window
        let spent = budget.spend(in: window?.current ?? before)
        if budget.window != before { overBudgetThisWindow = 0 }
        guard spent else {
            overBudgetThisWindow += 1
            totalOverBudget += 1
            maximumOverBudget = max(maximumOverBudget, overBudgetThisWindow)
            return false
        }
        return true
    }

    /// Starts a new window with `remaining` (clamped to 0...limit), or the full limit.
    mutating func refill(to remaining: Int? = nil) {
        budget.refill(to: remaining)
        overBudgetThisWindow = 0
    }

    /// Refills every `length` of `elapsed`, from now on; nil stops refilling by itself.
    mutating func setWindow(length: Duration?, elapsed: @escaping @Sendable () -> Duration) {
        guard let length, length > .zero else {
            window = nil
            return
        }
        let window = Window(length: length, elapsed: elapsed)
        budget.restart(at: window.current)
        self.window = window
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
