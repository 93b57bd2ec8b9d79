import Foundation

/// How many images of some variants are in each state.
public struct ImageCounts: Sendable, Equatable {
    public var stored: Int64
    /// Not stored yet, including ``retrying``.
    public var pending: Int64
    /// Failed for good (a permanent failure).
    public var failed: Int64
    /// Of ``pending``, those waiting for a retry after a transient failure.
    public var retrying: Int64
    /// The earliest next attempt among ``retrying``.
    public var nextRetryAt: Date?

    public init(stored: Int64, pending: Int64, failed: Int64, retrying: Int64 = 0, nextRetryAt: Date? = nil) {
        self.stored = stored
        self.pending = pending
        self.failed = failed
        self.retrying = retrying
        self.nextRetryAt = nextRetryAt
    }
}

/// Which failed images ``ImageQueue/requeue(_:)`` tries again.
public enum RetryRequest: Sendable, Equatable {
    /// Those waiting for a retry after a transient failure.
    case transient
    /// Those, and those that failed for good.
    case all
    /// Every image of these photos that is not stored and has failed, transient or permanent.
    case photos([String])
}

/// What ``ImageQueue/requeue(_:)`` did.
public struct RetryOutcome: Sendable, Equatable {
    /// Images requeued.
    public var requeued = 0
    /// Photos of ``RetryRequest/photos(_:)`` with no failed image (stored, or not tried yet).
    public var nothingToRetry: [String] = []

    public init(requeued: Int = 0, nothingToRetry: [String] = []) {
        self.requeued = requeued
        self.nothingToRetry = nothingToRetry
    }
}
