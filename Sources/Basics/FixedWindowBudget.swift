/// A budget of `limit` requests that refills at the start of each fixed window of time, the way
/// Unsplash's hourly limit looks to a client (Unsplash documents neither a reset time nor a
/// rolling window: fixed windows are the simpler promise).
///
/// Windows are numbered from an origin (``window(at:length:)``); the budget knows only the
/// number of the window its ``remaining`` belongs to, so it needs no clock of its own. The
/// mirror keeps one per client key; the stub keeps one for the whole API.
public struct FixedWindowBudget: Sendable, Equatable {
    /// Requests a window allows.
    public let limit: Int
    /// Requests left in ``window``.
    public private(set) var remaining: Int
    /// The number of the window ``remaining`` belongs to.
    public private(set) var window: Int64

    /// A budget with `remaining` (the full limit when nil, clamped to 0...limit) left in `window`.
    public init(limit: Int, remaining: Int? = nil, window: Int64 = 0) {
        self.limit = max(0, limit)
        self.remaining = min(max(0, remaining ?? limit), max(0, limit))
        self.window = window
    }

    /// What a request arriving in `window` would find: the full limit once a later window has
    /// begun.
    public func remaining(in window: Int64) -> Int {
        window > self.window ? limit : remaining
    }

    /// Spends one request arriving in `window`, refilling first when it is a later one.
    /// - Returns: false when none is left; nothing is spent then.
    public mutating func spend(in window: Int64) -> Bool {
        if window > self.window {
            self.window = window
            remaining = limit
        }
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }

    /// Sets what is left of the current window to `remaining` (clamped to 0...limit), or to the
    /// full limit when nil.
    public mutating func refill(to remaining: Int? = nil) {
        self.remaining = min(max(0, remaining ?? limit), limit)
    }

    /// Counts windows from `window` on, keeping what is left: for a clock set anew.
    public mutating func restart(at window: Int64) {
        self.window = window
    }

    /// The number of the fixed window of `length` that `elapsed`, the time since the origin,
    /// falls in: 0 for the first `length`, 1 for the next, and so on.
    public static func window(at elapsed: Duration, length: Duration) -> Int64 {
        Int64((elapsed / length).rounded(.down))
    }
}
