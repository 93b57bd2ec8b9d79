import Foundation

/// How a committed page moves one of the two page cursors.
///
/// A cursor is a URL reference relative to the API: path and query, such as
/// `/photos?page=2&per_page=30`. The sync resolves it against the configured API base on every
/// request, so the database keeps working when the base changes. The store keeps it as given.
public enum CursorChange: Sendable, Equatable {
    /// The backfill walks the feed from the newest photo to the oldest. A nil `next` means the
    /// last page was reached: the backfill is complete.
    case backfill(next: URL?)
    /// A catch-up walks the head of the feed for photos published since `baseline`, the newest
    /// membership when it began (``SyncLedger/maxMembership()``), which also names the walk: its
    /// photos are listed before the source's older ones. A nil `next` means it finished, and
    /// clears the catch-up state.
    case catchUp(next: URL?, baseline: Int64)
}

/// What `SyncLedger.commitPage` learned while committing.
public struct PageCommit: Sendable, Equatable {
    /// For each photo of the page that existed before the commit, its sequence. Photos the
    /// commit inserted are absent, even when the page lists them twice.
    public var existingSequences: [String: Int64]
    /// For each photo of the page the source had listed before the commit, the id of that
    /// membership (compare with a catch-up's baseline, ``SyncLedger/maxMembership()``).
    public var existingMemberships: [String: Int64]
    /// The page's rejected elements that no earlier commit had recorded: each is reported once.
    public var newlyRejected: [RejectedPhoto]

    public init(
        existingSequences: [String: Int64], existingMemberships: [String: Int64] = [:],
        newlyRejected: [RejectedPhoto] = []
    ) {
        self.existingSequences = existingSequences
        self.existingMemberships = existingMemberships
        self.newlyRejected = newlyRejected
    }
}

/// Where the sync of one source stands: enough to resume it after a crash or a restart.
public struct SyncState: Sendable, Equatable {
    /// The next backfill page to fetch; nil before the first page and once complete.
    public var backfillNext: URL?
    public var backfillComplete: Bool
    /// The next catch-up page; a catch-up is in progress exactly when this is non-nil.
    public var catchUpNext: URL?
    /// The newest membership (``SyncLedger/maxMembership()``) when the catch-up in progress
    /// began; nil when none is.
    public var catchUpBaseline: Int64?
    /// When a page was last committed.
    public var lastPageAt: Date?
    /// Why the backfill could not go past ``backfillNext`` on its last try, while that page is
    /// retried; nil once a backfill page commits again.
    public var backfillStall: BackfillStall?

    public init(
        backfillNext: URL? = nil,
        backfillComplete: Bool = false,
        catchUpNext: URL? = nil,
        catchUpBaseline: Int64? = nil,
        lastPageAt: Date? = nil,
        backfillStall: BackfillStall? = nil
    ) {
        self.backfillNext = backfillNext
        self.backfillComplete = backfillComplete
        self.catchUpNext = catchUpNext
        self.catchUpBaseline = catchUpBaseline
        self.lastPageAt = lastPageAt
        self.backfillStall = backfillStall
    }
}

/// A backfill page the API answered in a way that contradicts itself (an empty page that still
/// links a next one, or `X-Total` saying more photos follow the last page). The walk does not
/// end on such a page; it is fetched again later.
public struct BackfillStall: Sendable, Equatable {
    public var reason: String
    public var since: Date

    public init(reason: String, since: Date) {
        self.reason = reason
        self.since = since
    }
}
