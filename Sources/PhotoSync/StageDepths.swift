/// How much work waits at each stage of a running sync: where a slow sync is stuck.
public struct StageDepths: Sendable, Equatable {
    /// Image jobs read from the store and waiting for a fetcher.
    public var jobsQueued = 0
    /// Jobs handed out whose outcome is not committed yet (queued, being fetched, or written).
    public var jobsClaimed = 0
    /// Fetched images (and failures) waiting for the writer.
    public var outcomesQueued = 0
    /// Download-tracking requests being sent.
    public var trackingInFlight = 0
    /// API requests in flight, and waiting for a permit of the rate-limit budget.
    public var apiInFlight = 0
    public var apiWaiting = 0

    public init() {}
}
