import Foundation
import PhotoStore
import UnsplashAPI

extension SyncEngine {
    /// Walks the feed from the backfill cursor along `rel="next"`, committing each page with the
    /// advanced cursor. Returns whether backfill is complete.
    ///
    /// A page that contradicts itself never completes the backfill: the cursor stays on it, the
    /// stall is recorded for `status`, and ``SyncError/inconsistentPage(_:)`` is thrown so that
    /// the page is fetched again later.
    func backfill(maxPages: Int?) async throws -> Bool {
        var state = try storing { try store.syncState() }
        var fetched = 0
        while !state.backfillComplete {
            if let maxPages, fetched >= maxPages { return false }
            await tracker.update { $0.activity = "backfilling" }
            let cursor = state.backfillNext
            let page = try await fetchPage(cursor)
            if let contradiction = contradiction(in: page, at: cursor) {
                try storing { try store.recordBackfillStall(reason: contradiction, at: now()) }
                throw SyncError.inconsistentPage("backfill stays at \(cursor?.absoluteString ?? "page 1") and tries it again later: \(contradiction)")
            }
            let following = try nextCursor(of: page)
            try await commit(page, at: cursor) { _ in .backfill(next: following) }
            fetched += 1
            try await processImages()
            state = try storing { try store.syncState() }
        }
        return true
    }

    /// Walks from the head of the feed until a run of photos that were stored before this
    /// catch-up began. The catch-up's own position is committed with each page, so a restart
    /// resumes it instead of stopping early on the photos it had just stored. A page that
    /// contradicts itself throws ``SyncError/inconsistentPage(_:)`` and the catch-up resumes
    /// there later, rather than ending early and leaving photos behind it.
    func catchUp() async throws {
        let state = try storing { try store.syncState() }
        let baseline = try state.catchUpBaseline ?? storing { try store.maxSequence() }
        var cursor = state.catchUpNext
        await tracker.update { $0.activity = "catching up with the head" }
        repeat {
            let page = try await fetchPage(cursor)
            if let contradiction = contradiction(in: page, at: cursor) {
                throw SyncError.inconsistentPage("the head catch-up stays at \(cursor?.absoluteString ?? "page 1") and tries it again later: \(contradiction)")
            }
            let organic = page.photos.filter { !$0.isSponsored }.count
            let next = try nextCursor(of: page)
            var following: URL?
            try await commit(page, at: cursor) { commit in
                let reachedKnown = knownRun(in: page.photos, existing: commit.existingSequences, baseline: baseline)
                    >= min(configuration.knownRunToStop, max(1, organic))
                // A page of rejected elements only is not the end of the feed.
                following = reachedKnown || (page.photos.isEmpty && page.rejected.isEmpty) ? nil : next
                return .catchUp(next: following, baseline: baseline)
            }
            try await processImages()
            cursor = following
        } while cursor != nil
    }

    /// Why `page` cannot be trusted where it would end a walk, or nil when it can: an empty page
    /// that still links a next one, or a last page although `X-Total` says more photos follow.
    /// `X-Total` may be off by one (Unsplash's own counts disagree by that much).
    func contradiction(in page: PhotoPage, at cursor: URL?) -> String? {
        if page.photos.isEmpty && page.rejected.isEmpty && page.next != nil {
            return "the page is empty but links a next page"
        }
        guard page.next == nil, let total = page.total else { return nil }
        let perPage = page.perPage ?? configuration.perPage
        guard let number = Self.pageNumber(cursor), perPage > 0 else { return nil }
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
    func knownRun(in photos: [Photo], existing: [String: Int64], baseline: Int64) -> Int {
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
        let page: PhotoPage
        do {
            page = try await callingAPI {
                if let cursor {
                    try await repository.page(atCursor: cursor.absoluteString)
                } else {
                    try await repository.firstPage(perPage: configuration.perPage)
                }
            }
        } catch let error as UnsplashError {
            throw SyncError.apiUnavailable(error.errorDescription ?? "\(error)")
        }
        await recordRateLimit(page.rateLimit)
        return page
    }

    /// The cursor to store for the page's `rel="next"`: a reference relative to the API (path
    /// and query), so a database is not tied to one base URL. A `next` on another origin is
    /// refused here, before anything stores it, so the key is never sent there.
    private func nextCursor(of page: PhotoPage) throws -> URL? {
        guard let next = page.next else { return nil }
        do {
            return URL(string: try repository.api.cursor(for: next))
        } catch {
            throw SyncError.apiUnavailable(error.errorDescription ?? "\(error)")
        }
    }

    /// Stores `page` with the cursor change `cursor` decides from what the page found, and its
    /// rejected elements; each element not seen before is logged once.
    private func commit(_ page: PhotoPage, at location: URL?, cursor: (PageCommit) -> CursorChange) async throws {
        let records = try page.photos.map { try PhotoRecord($0, variant: configuration.variant) }
        let rejected = try page.rejected.map { element in
            RejectedPhoto(photoID: element.photoID, json: try element.encodedJSON(), reason: element.reason)
        }
        let commit = try storing {
            try store.commitPage(records, rejected: rejected, variant: configuration.variant.rawValue, now: now(), cursor: cursor)
        }
        for element in commit.newlyRejected {
            logger.warning("rejected a photo the API sent: \(element.reason); it is kept in rejected_photo", metadata: [
                "photo": "\(element.photoID ?? "-")", "page": "\(location?.absoluteString ?? "page 1")",
            ])
        }
        let newCount = Set(page.photos.map(\.id)).subtracting(commit.existingSequences.keys).count
        await tracker.update {
            $0.pages += 1
            $0.photosSeen += page.photos.count
            $0.photosNew += newCount
        }
        logger.info("page stored", metadata: [
            "photos": "\(page.photos.count)", "new": "\(newCount)", "rejected": "\(page.rejected.count)",
            "next": "\(page.next.map { $0.query ?? "-" } ?? "end")",
            "rate_limit_remaining": "\(page.rateLimit.map { String($0.remaining) } ?? "-")",
        ])
    }
}
