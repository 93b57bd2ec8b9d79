import Foundation

/// How a committed page moves one of the two page cursors.
public enum CursorChange: Sendable, Equatable {
    /// The backfill walks the feed from the newest photo to the oldest. A nil `next` means the
    /// last page was reached: the backfill is complete.
    case backfill(next: URL?)
    /// A catch-up walks the head of the feed for photos published since `baseline`, the highest
    /// sequence when it began. A nil `next` means it finished, and clears the catch-up state.
    case catchUp(next: URL?, baseline: Int64)
}

/// What `PhotoStore.commitPage` learned while committing.
public struct PageCommit: Sendable, Equatable {
    /// For each photo of the page that existed before the commit, its sequence. Photos the
    /// commit inserted are absent, even when the page lists them twice.
    public var existingSequences: [String: Int64]

    public init(existingSequences: [String: Int64]) {
        self.existingSequences = existingSequences
    }
}

/// Where the sync stands: enough to resume after a crash or a restart.
public struct SyncState: Sendable, Equatable {
    /// The next backfill page to fetch; nil before the first page and once complete.
    public var backfillNext: URL?
    public var backfillComplete: Bool
    /// The next catch-up page; a catch-up is in progress exactly when this is non-nil.
    public var catchUpNext: URL?
    /// The highest sequence when the catch-up in progress began; nil when none is.
    public var catchUpBaseline: Int64?
    /// When a page was last committed.
    public var lastPageAt: Date?

    public init(
        backfillNext: URL? = nil,
        backfillComplete: Bool = false,
        catchUpNext: URL? = nil,
        catchUpBaseline: Int64? = nil,
        lastPageAt: Date? = nil
    ) {
        self.backfillNext = backfillNext
        self.backfillComplete = backfillComplete
        self.catchUpNext = catchUpNext
        self.catchUpBaseline = catchUpBaseline
        self.lastPageAt = lastPageAt
    }
}
