import Foundation

/// What the sync engine records of its walk: the pages it stored with their cursors, the
/// sources it walks, the feed elements it rejected, and the download tracking it owes Unsplash.
///
/// A source is named as it is configured (`feed`, `user:ann`, `search:red fox`). Its row is
/// created by its first page, or by ``activateSources(_:)``; it is never deleted, so a source
/// that stops being configured keeps its cursors and its photos, and resumes when it comes back.
///
/// Every method runs in one transaction and throws only `StoreError`; whatever one call changes
/// commits together or not at all. The SQLite implementation is `SQLiteSyncLedger`.
public protocol SyncLedger: Sendable {
    /// Stores one fetched page of `source` and moves its cursor, in a single write transaction:
    /// after a crash either the page and its cursor are both there, or neither is and the page
    /// is fetched again (at-least-once fetching, exactly-once storing).
    ///
    /// For each photo, by id: a new one gets the next sequence and `firstSeenAt = now`; a known
    /// one keeps both and has its metadata and JSON replaced. `lastSeenAt = now` for all. Each
    /// photo becomes a member of `source` (created if new), once, and keeps its place in the
    /// source's own order (``PhotoQuery/inSourceOrder``): the new members of a backfill page
    /// go after every member, in the page's order; those of a catch-up walk (named by its
    /// baseline) before every member the source had when the walk began, in the walk's page
    /// order, a newer walk's before an older one's. When `imageURL` is non-nil,
    /// a pending image job for `variant` is created if missing; an existing job that is not yet
    /// stored gets the new URL (its status is kept). For each of `moreVariants`, a job is
    /// queued the same way, with the URL of that size in the photo's JSON (`urls.<variant>`).
    /// An Unsplash+ photo gets no job.
    ///
    /// `rejected` elements are kept in `rejected_photo`, one row per distinct JSON text: a new
    /// one is added and listed in ``PageCommit/newlyRejected``, a known one has its last-seen
    /// time moved. Storing a usable photo clears the rejections recorded under its id.
    ///
    /// Finally `cursor` decides, from what the page found and inside the same transaction, how
    /// the source's cursor moves (a catch-up that meets photos it already had ends in the
    /// commit that stores the page), and `lastPageAt = now`.
    ///
    /// - Returns: what the commit found: the sequences and memberships of the page's photos
    ///   that existed before this call, and the newly rejected elements.
    /// - Throws: `StoreError.databaseFailure` (e.g. a photo violating a constraint: empty id,
    ///   negative size, invalid JSON), or what `cursor` throws wrapped in one; nothing is
    ///   changed then.
    @discardableResult
    func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto], variant: ImageVariant,
        moreVariants: [ImageVariant],
        source: PhotoSource, now: Date, cursor: @escaping @Sendable (PageCommit) throws -> CursorChange
    ) async throws(StoreError) -> PageCommit

    /// The cursors of `source` as last committed; a source never committed has none.
    func syncState(source: PhotoSource) async throws(StoreError) -> SyncState

    /// Records that the backfill page at the current cursor of `source` contradicted itself and
    /// will be fetched again; the cursor itself does not move. The next backfill commit clears it.
    func recordBackfillStall(reason: String, source: PhotoSource, at now: Date) async throws(StoreError)

    /// Records that `run` loaded its configuration `at`: when it started, or (`reload`) on SIGHUP.
    func recordConfigurationLoaded(at date: Date, reload: Bool) async throws(StoreError)

    /// Marks `sources` as the configured ones (creating rows for new ones), and every other
    /// source as inactive.
    func activateSources(_ sources: [PhotoSource]) async throws(StoreError)

    /// Records why `source` could not be read (an unknown user answers 404); cleared by its
    /// next stored page.
    func recordSourceFailure(_ source: PhotoSource, message: String, at now: Date) async throws(StoreError)

    /// The rejected feed elements, oldest first, at most `limit`.
    func rejectedPhotos(limit: Int) async throws(StoreError) -> [RejectedPhoto]

    /// The highest sequence assigned so far, 0 for an empty store.
    func maxSequence() async throws(StoreError) -> Int64

    /// The newest membership so far, 0 for none: the baseline of a catch-up. A photo whose
    /// membership of a source is at or below it was listed by that source before.
    func maxMembership() async throws(StoreError) -> Int64

    /// Photos that have a stored image (any variant) or whose download a client of the mirror
    /// requested (``DownloadRequests``), and a download location, and whose download was not
    /// tracked yet, in the order they were first stored, at most `limit`.
    func pendingDownloadTracking(limit: Int) async throws(StoreError) -> [DownloadTrackingJob]

    /// Records that Unsplash was told about these photos' downloads, in one transaction. The first
    /// time is kept for each. Marking a photo touches neither its search entry nor its metadata.
    ///
    /// - Throws: `StoreError.unknownPhoto` when one of them does not exist; nothing is marked then.
    func markDownloadsTracked(photoIDs: [String], at date: Date) async throws(StoreError)

    /// When the object of each of `sources` was last stored; a source without one (or without a
    /// row) is absent.
    func sourceObjectsFetched(sources: [PhotoSource]) async throws(StoreError) -> [PhotoSource: Date]

    /// Stores `json` as the object of every one of `sources` (created if new), fetched `at`, in
    /// one small transaction of its own.
    /// - Throws: `StoreError.databaseFailure`, also when `json` is not valid JSON; nothing is
    ///   changed then.
    func storeSourceObject(_ json: Data, sources: [PhotoSource], at now: Date) async throws(StoreError)
}

extension SyncLedger {
    /// Stores a page with no further variants: see
    /// ``commitPage(_:rejected:variant:moreVariants:source:now:cursor:)``.
    @discardableResult
    public func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: ImageVariant,
        source: PhotoSource, now: Date, cursor: @escaping @Sendable (PageCommit) throws -> CursorChange
    ) async throws(StoreError) -> PageCommit {
        try await commitPage(
            photos, rejected: rejected, variant: variant, moreVariants: [], source: source, now: now, cursor: cursor)
    }
}
