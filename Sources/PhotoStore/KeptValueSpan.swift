/// How long a value made from the data (a listing's total, where its deep pages start, a search's
/// ranking) goes on answering after the data changes: one rule for both stores.
///
/// Under a daemon that writes without pause the data changes many times a second, and a value
/// made again after every change is made again for nearly every request: a colour's count that
/// takes a second, all the time, on one connection or another. So a value outlives changes
/// for ``lag`` (a server's), and one that was costly to make for ``factor`` times its cost: it
/// is made again at most about a tenth of the time. SQLite measures a making's cost in CPU
/// time and keeps costly values so with any lag; PostgreSQL measures it by the clock, and only
/// with a lag (`PostgresChangeCache`).
public struct KeptValueSpan: Sendable, Equatable {
    /// How long any value is used past a change: zero for the writer and the commands, which
    /// read what they just wrote; a second for `serve` under a writing daemon.
    public var lag: Duration
    /// Past the lag, a value whose making took less than this is made again after any change; ...
    public var worthKeeping = Duration.milliseconds(10)
    /// ... a costlier one is kept for this many times what it cost, ...
    public var factor = 10
    /// ... and never longer than this.
    public var longest = Duration.seconds(30)

    public init(lag: Duration = .zero) {
        self.lag = lag
    }

    /// Values kept past a change for `lag`, however long their making took.
    public static func lagAlone(_ lag: Duration) -> KeptValueSpan {
        var span = KeptValueSpan(lag: lag)
        span.longest = .zero
        return span
    }

    /// How long past a change a value whose making took `cost` is used.
    public func span(costing cost: Duration) -> Duration {
        max(lag, cost < worthKeeping ? .zero : min(cost * factor, longest))
    }
}
