import Foundation
import Logging
import PhotoStore
import UnsplashAPI

/// The first stage: walks the feed page by page and commits each page's photos (which queues
/// their images) with the cursor that records the page, so a restart re-fetches at most one page.
///
/// - Backfill walks from the backfill cursor along `rel="next"` until the end.
/// - Head catch-up, once backfill is complete, walks from page 1 until it meets a run of photos
///   that were stored before the catch-up began. Its own position is committed with each page,
///   so a restart resumes it instead of stopping early on the photos it had just stored.
/// - A page that contradicts itself never ends a walk: the walk stays on it (a backfill records
///   the stall for `status`) and throws ``SyncError/inconsistentPage(_:)``, to try it later.
/// - Before each page it waits for ``ImageBacklog`` to have room, so it never runs more than a
///   few pages of images ahead of the downloads.
struct PageWalker: Sendable {
    let repository: PhotoRepository
    let store: PhotoStore
    let configuration: SyncConfiguration
    let budget: RateLimitBudget
    let backlog: ImageBacklog
    let progress: ProgressTracker
    let now: @Sendable () -> Date
    let logger: Logger
    /// Called after each page commits: its images are due.
    let pageCommitted: @Sendable () -> Void

    /// Backfills to the end (or `maxPages` pages) and, when backfill is complete, catches up
    /// with the head. Returns whether backfill is complete.
    func walk(maxPages: Int?) async throws -> Bool {
        let complete = try await backfill(maxPages: maxPages)
        if complete {
            try await catchUp()
        }
        return complete
    }

    /// Walks the feed from the backfill cursor along `rel="next"`, committing each page with the
    /// advanced cursor. Returns whether backfill is complete.
    func backfill(maxPages: Int?) async throws -> Bool {
        var state = try storing { try store.syncState() }
        var fetched = 0
        while !state.backfillComplete {
            if let maxPages, fetched >= maxPages { return false }
            try await backlog.waitForRoom()
            await progress.update { $0.activity = "backfilling" }
            let cursor = state.backfillNext
            let page = try await fetchPage(cursor)
            if let reason = Self.contradiction(in: page, at: cursor, perPage: configuration.perPage) {
                try storing { try store.recordBackfillStall(reason: reason, at: now()) }
                throw SyncError.inconsistentPage(PageContradiction(walk: "backfill", cursor: cursor?.absoluteString, reason: reason))
            }
            let following = try nextCursor(of: page)
            try await commit(page, at: cursor) { _ in .backfill(next: following) }
            fetched += 1
            state = try storing { try store.syncState() }
        }
        return true
    }

    /// Walks from the head of the feed (or where an interrupted catch-up stopped) until a run
    /// of ``SyncConfiguration/knownRunToStop`` photos stored before this catch-up began.
    func catchUp() async throws {
        let state = try storing { try store.syncState() }
        let baseline = try state.catchUpBaseline ?? storing { try store.maxSequence() }
        var cursor = state.catchUpNext
        await progress.update { $0.activity = "catching up with the head" }
        repeat {
            try await backlog.waitForRoom()
            let page = try await fetchPage(cursor)
            if let reason = Self.contradiction(in: page, at: cursor, perPage: configuration.perPage) {
                throw SyncError.inconsistentPage(PageContradiction(walk: "the head catch-up", cursor: cursor?.absoluteString, reason: reason))
            }
            let organic = page.photos.filter { !$0.isSponsored }.count
            let next = try nextCursor(of: page)
            let knownRunToStop = configuration.knownRunToStop
            let change = try await commit(page, at: cursor) { commit in
                let reachedKnown = Self.knownRun(in: page.photos, existing: commit.existingSequences, baseline: baseline)
                    >= min(knownRunToStop, max(1, organic))
                // A page of rejected elements only is not the end of the feed.
                let following = reachedKnown || (page.photos.isEmpty && page.rejected.isEmpty) ? nil : next
                return .catchUp(next: following, baseline: baseline)
            }
            guard case .catchUp(let following, _) = change else { return }
            cursor = following
        } while cursor != nil
    }

    /// Why `page` cannot be trusted where it would end a walk, or nil when it can: an empty page
    /// that still links a next one, or a last page although `X-Total` says more photos follow.
    /// `X-Total` may be off by one (Unsplash's own counts disagree by that much).
    static func contradiction(in page: PhotoPage, at cursor: URL?, perPage defaultPerPage: Int) -> String? {
        if page.photos.isEmpty && page.rejected.isEmpty && page.next != nil {
            return "the page is empty but links a next page"
        }
        guard page.next == nil, let total = page.total else { return nil }
        let perPage = page.perPage ?? defaultPerPage
        guard let number = pageNumber(cursor), perPage > 0 else { return nil }
        if number * perPage < total - 1 {
            return "page \(number) has no next page, but X-Total says \(total) photos, more than \(number) pages of \(perPage) hold"
        }
        return nil
    }

    /// The `page` parameter of a cursor; 1 for the first page (no cursor).
    static func pageNumber(_ cursor: URL?) -> Int? {
        guard let cursor else { return 1 }
        return URLComponents(url: cursor, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) }
    }

    /// The longest run of consecutive photos stored before `baseline`. Sponsored photos repeat on
    /// every page and photos this catch-up stored itself (pushed down by newer ones) neither
    /// count nor break a run.
    static func knownRun(in photos: [Photo], existing: [String: Int64], baseline: Int64) -> Int {
        var run = 0
        var longest = 0
        for photo in photos where !photo.isSponsored {
            guard let sequence = existing[photo.id] else {
                run = 0
                continue
            }
            if sequence <= baseline {
                run += 1
                longest = max(longest, run)
            }
        }
        return longest
    }

    private func fetchPage(_ cursor: URL?) async throws -> PhotoPage {
        let repository = repository
        let perPage = configuration.perPage
        let progress = progress
        do {
            return try await budget.spend({ admitsRetry in
                let repository = repository.admitting(admitsRetry)
                return if let cursor {
                    try await repository.page(atCursor: cursor.absoluteString)
                } else {
                    try await repository.firstPage(perPage: perPage)
                }
            }, report: { $0.rateLimit }, onReport: { limit in await progress.update { $0.rateLimit = limit } })
        } catch let error as UnsplashError {
            throw SyncError.apiUnavailable(error)
        }
    }

    /// The cursor to store for the page's `rel="next"`: a reference relative to the API (path
    /// and query), so a database is not tied to one base URL. A `next` on another origin is
    /// refused here, before anything stores it, so the key is never sent there.
    private func nextCursor(of page: PhotoPage) throws -> URL? {
        guard let next = page.next else { return nil }
        do throws(UnsplashError) {
            return URL(string: try repository.api.cursor(for: next))
        } catch {
            throw SyncError.apiUnavailable(error)
        }
    }

    /// Stores `page` with the cursor change `cursor` decides from what the page found, and its
    /// rejected elements; each element not seen before is logged once. Returns the change made.
    @discardableResult
    private func commit(_ page: PhotoPage, at location: URL?, cursor: (PageCommit) -> CursorChange) async throws -> CursorChange {
        let records = page.photos.map { PhotoRecord($0, variant: configuration.variant) }
        let rejected = page.rejected.map { element in
            RejectedPhoto(photoID: element.photoID, json: element.json, reason: element.reason)
        }
        var change: CursorChange?
        let commit = try storing {
            try store.commitPage(records, rejected: rejected, variant: configuration.variant.rawValue, now: now()) { commit in
                let decided = cursor(commit)
                change = decided
                return decided
            }
        }
        pageCommitted()
        for element in commit.newlyRejected {
            logger.warning("rejected a photo the API sent: \(element.reason); it is kept in rejected_photo", metadata: [
                "photo": "\(element.photoID ?? "-")", "page": "\(location?.absoluteString ?? "page 1")",
            ])
        }
        let newCount = Set(page.photos.map(\.id)).subtracting(commit.existingSequences.keys).count
        await progress.update {
            $0.pages += 1
            $0.photosSeen += page.photos.count
            $0.photosNew += newCount
        }
        logger.info("page stored", metadata: [
            "photos": "\(page.photos.count)", "new": "\(newCount)", "rejected": "\(page.rejected.count)",
            "next": "\(page.next.map { $0.query ?? "-" } ?? "end")",
            "rate_limit_remaining": "\(page.rateLimit.map { String($0.remaining) } ?? "-")",
        ])
        return change ?? .backfill(next: nil)
    }
}
