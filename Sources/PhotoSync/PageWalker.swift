import Foundation
import Logging
import PhotoStore
import Synchronization
import UnsplashAPI

/// The first stage: walks each configured source page by page and commits each page's photos
/// (which queues their images) with the cursor that records the page, so a restart re-fetches
/// at most one page per source.
///
/// - Sources take turns, one page each, so that they share the rate-limit budget and the image
///   pipeline fairly: a topic of 15,000 photos does not starve a collection of 40.
/// - Backfill walks from the source's backfill cursor along `rel="next"` until the end.
/// - Head catch-up, once a source's backfill is complete, walks from its page 1 until it meets
///   a run of photos the source listed before the catch-up began. Its own position is
///   committed with each page, so a restart resumes it instead of stopping early on the photos
///   it had just stored.
/// - A page that contradicts itself never ends a walk: the walk stays on it (a backfill records
///   the stall for `status`) and throws ``SyncError/inconsistentPage(_:)``, to try it later.
/// - A source the API does not know (404) is recorded and left out of the walk; the others go
///   on, and the walk reports it (``WalkReport/notFound``). Within ``backoff`` it is skipped.
/// - Before each page it waits for ``ImageBacklog`` to have room, so it never runs more than a
///   few pages of images ahead of the downloads, and for ``floor`` (free disk above half the
///   reserve), so that metadata does not fill the disk either.
package struct PageWalker: RoundStage, Sendable {
    let round: RoundContext
    let backlog: ImageBacklog
    /// Called after each page commits: its images are due.
    let pageCommitted: @Sendable () -> Void
    /// When a source that answered 404 may be tried again.
    var backoff = SourceBackoff()
    /// Whether the engine was reconfigured since this walk began: it then stops before its next
    /// page, so the round can end and a new one begin with the new configuration.
    var reconfigured: @Sendable () -> Bool = { false }
    /// Holds each page back while the free disk is below the floor; nil: never.
    var floor: PageFloor?

    /// What a walk of every source found.
    struct WalkReport: Sendable {
        /// Whether every source walked has completed its backfill.
        var complete = true
        /// Sources the API answered 404 for, this walk or (still backing off) an earlier one.
        var notFound: [SourceNotFound] = []
        /// The first page that contradicted itself, if any; its source was left for later.
        var contradiction: PageContradiction?
        /// Set when the walk ended early because the free disk is below the floor (`runOnce`).
        var pagesPaused = false
    }

    /// Backfills every source to its end (or `maxPages` pages each) and, for each source whose
    /// backfill is complete, catches up with its head. Returns whether backfill is complete.
    func walk(maxPages: Int?) async throws -> Bool {
        let report = try await walkSources(maxPages: maxPages)
        if let contradiction = report.contradiction { throw SyncError.inconsistentPage(contradiction) }
        return report.complete
    }

    /// Walks every source, one page of each in turn (see the type's contract).
    /// - Throws: ``SyncError`` for what ends the whole walk (the key, an outage, the database).
    func walkSources(maxPages: Int?) async throws -> WalkReport {
        var report = WalkReport()
        var walks: [SourceWalk] = []
        for source in configuration.sources {
            if let failure = backoff.failure(of: source.description, now: now()) {
                report.notFound.append(failure)
                report.complete = false
            } else {
                walks.append(SourceWalk(source: source))
            }
        }
        while !walks.isEmpty {
            var remaining: [SourceWalk] = []
            for var walk in walks {
                let room = try await floor?.waitForRoom(unless: reconfigured) ?? true
                if !room {
                    report.complete = false
                    report.pagesPaused = true
                    return report
                }
                if reconfigured() {
                    report.complete = false
                    return report
                }
                do {
                    if try await step(&walk, maxPages: maxPages) {
                        remaining.append(walk)
                    } else if !walk.backfillComplete {
                        report.complete = false
                    }
                } catch SyncError.sourceNotFound(let failure) {
                    try await writingStore { () async throws(StoreError) in
                        try await store.ledger.recordSourceFailure(walk.source, message: failure.detail, at: now())
                    }
                    backoff.failed(
                        failure, until: now().addingTimeInterval(configuration.sourceRetryDelay.timeInterval))
                    logger.error("\(failure.description); the other sources go on")
                    report.notFound.append(failure)
                    report.complete = false
                } catch SyncError.inconsistentPage(let contradiction) {
                    report.contradiction = report.contradiction ?? contradiction
                    report.complete = false
                }
            }
            walks = remaining
        }
        return report
    }

    /// Backfills the first configured source to the end (or `maxPages` pages), one page after
    /// another. Returns whether its backfill is complete.
    func backfill(maxPages: Int?) async throws -> Bool {
        var walk = SourceWalk(source: configuration.sources.first ?? .feed)
        walk.backfillOnly = true
        while try await step(&walk, maxPages: maxPages) {}
        return walk.backfillComplete
    }

    /// Catches up with the head of the first configured source, and returns when it has.
    func catchUp() async throws {
        var walk = SourceWalk(source: configuration.sources.first ?? .feed)
        walk.backfillComplete = true
        while try await step(&walk, maxPages: nil) {}
    }

    /// One source's walk within a round.
    struct SourceWalk: Sendable {
        let source: PhotoSource
        var name: String { source.description }
        var backfillPages = 0
        var backfillComplete = false
        var backfillOnly = false
        /// Set once this round's catch-up has begun: its next page and baseline.
        var catchUp: (next: URL?, baseline: Int64)?
    }

    /// Fetches and commits the next page of `walk`. Returns whether it has more to do this round.
    private func step(_ walk: inout SourceWalk, maxPages: Int?) async throws -> Bool {
        if !walk.backfillComplete {
            let state = try await readingStore { () async throws(StoreError) in
                try await store.ledger.syncState(source: walk.source)
            }
            if state.backfillComplete {
                // Straight on to the head: a turn is a page.
                walk.backfillComplete = true
                if walk.backfillOnly { return false }
                return try await catchUpStep(&walk)
            }
            if let maxPages, walk.backfillPages >= maxPages { return false }
            try await backlog.waitForRoom()
            await progress.update { $0.activity = "backfilling" }
            let cursor = state.backfillNext
            let page = try await fetchPage(walk.source, at: cursor)
            if let reason = Self.contradiction(
                in: page, at: cursor, perPage: configuration.perPage, source: walk.source)
            {
                try await writingStore { () async throws(StoreError) in
                    try await store.ledger.recordBackfillStall(reason: reason, source: walk.source, at: now())
                }
                throw SyncError.inconsistentPage(
                    PageContradiction(
                        walk: "backfill", source: walk.name, cursor: cursor?.absoluteString, reason: reason))
            }
            let following = try nextCursor(of: page)
            try await commit(page, of: walk.source, at: cursor) { _ in .backfill(next: following) }
            walk.backfillPages += 1
            return true
        }
        return try await catchUpStep(&walk)
    }

    /// Fetches and commits the next page of `walk`'s head catch-up. Returns whether it goes on.
    private func catchUpStep(_ walk: inout SourceWalk) async throws -> Bool {
        let name = walk.name
        let (cursor, baseline): (URL?, Int64)
        if let catchUp = walk.catchUp {
            (cursor, baseline) = catchUp
        } else {
            let state = try await readingStore { () async throws(StoreError) in
                try await store.ledger.syncState(source: walk.source)
            }
            if let stateBaseline = state.catchUpBaseline {
                baseline = stateBaseline
            } else {
                baseline = try await readingStore { () async throws(StoreError) in
                    try await store.ledger.maxMembership()
                }
            }
            cursor = state.catchUpNext
            await progress.update { $0.activity = "catching up with the head" }
        }
        try await backlog.waitForRoom()
        let page = try await fetchPage(walk.source, at: cursor)
        if let reason = Self.contradiction(in: page, at: cursor, perPage: configuration.perPage, source: walk.source) {
            throw SyncError.inconsistentPage(
                PageContradiction(
                    walk: "the head catch-up", source: name, cursor: cursor?.absoluteString, reason: reason))
        }
        let organic = page.photos.filter { !$0.isSponsored }.count
        let next = try nextCursor(of: page)
        let knownRunToStop = configuration.knownRunToStop
        let change = try await commit(page, of: walk.source, at: cursor) { commit in
            let reachedKnown =
                Self.knownRun(in: page.photos, existing: commit.existingMemberships, baseline: baseline)
                >= min(knownRunToStop, max(1, organic))
            // A page of rejected elements only is not the end of the list.
            let following = reachedKnown || (page.photos.isEmpty && page.rejected.isEmpty) ? nil : next
            return .catchUp(next: following, baseline: baseline)
        }
        guard case .catchUp(let following, _) = change, following != nil else { return false }
        walk.catchUp = (following, baseline)
        return true
    }

    /// Why `page` cannot be trusted where it would end a walk, or nil when it can: an empty page
    /// that still links a next one, or a last page although `X-Total` says more photos follow.
    /// `X-Total` may be off by one (Unsplash's own counts disagree by that much).
    /// A search's total is an estimate of matches, not a promise of pages, so it is not held
    /// against a search's last page.
    static func contradiction(
        in page: PhotoPage, at cursor: URL?, perPage defaultPerPage: Int, source: PhotoSource = .feed
    ) -> String? {
        if page.photos.isEmpty && page.rejected.isEmpty && page.next != nil {
            return "the page is empty but links a next page"
        }
        switch source {
        case .search: return nil
        case .feed, .user, .likes, .collection, .topic: break
        }
        guard page.next == nil, let total = page.total else { return nil }
        let perPage = page.perPage ?? defaultPerPage
        guard let number = pageNumber(cursor), perPage > 0 else { return nil }
        if number * perPage < total - 1 {
            return
                "page \(number) has no next page, but X-Total says \(total) photos, more than \(number) pages of \(perPage) hold"
        }
        return nil
    }

    /// The `page` parameter of a cursor; 1 for the first page (no cursor).
    static func pageNumber(_ cursor: URL?) -> Int? {
        guard let cursor else { return 1 }
        return URLComponents(url: cursor, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "page" }?
            .value.flatMap { Int($0) }
    }

    /// The longest run of consecutive photos the source listed at or before `baseline` (a
    /// membership id). Sponsored photos repeat on
    /// every page and photos this catch-up stored itself (pushed down by newer ones) neither
    /// count nor break a run.
    package static func knownRun(in photos: [Photo], existing: [String: Int64], baseline: Int64) -> Int {
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

    private func fetchPage(_ source: PhotoSource, at cursor: URL?) async throws -> PhotoPage {
        let repository = repository
        let perPage = configuration.perPage
        let progress = progress
        do {
            return try await budget.spend(
                { admitsRetry in
                    let repository = repository.admitting(admitsRetry)
                    return if let cursor {
                        try await repository.page(of: source, atCursor: cursor.absoluteString)
                    } else {
                        try await repository.firstPage(of: source, perPage: perPage)
                    }
                }, report: { $0.rateLimit }, onReport: { limit in await progress.update { $0.rateLimit = limit } })
        } catch UnsplashError.api(let status, let messages, _) where status == 404 || status == 410 {
            // The source, not the API, is the problem: the other sources go on.
            let detail =
                "Unsplash answered \(status)" + (messages.isEmpty ? "" : " (\(messages.joined(separator: "; ")))")
            throw SyncError.sourceNotFound(SourceNotFound(source: source.description, detail: detail, status: status))
        } catch UnsplashError.cancelled {
            throw CancellationError()
        } catch let error as UnsplashError {
            throw SyncError(unsplash: error)
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
    private func commit(
        _ page: PhotoPage, of source: PhotoSource, at location: URL?,
        cursor: @escaping @Sendable (PageCommit) -> CursorChange
    ) async throws -> CursorChange {
        let variants = configuration.variants
        let records = page.photos.map { PhotoRecord($0, variant: configuration.variants.first) }
        let rejected = page.rejected.map { element in
            RejectedPhoto(photoID: element.photoID, json: element.json, reason: element.reason)
        }
        let change = Mutex<CursorChange?>(nil)
        let commit = try await writingStore { () async throws(StoreError) in
            try await store.ledger.commitPage(
                records, rejected: rejected, variant: variants.first ?? .regular,
                moreVariants: Array(variants.dropFirst()), source: source, now: now()
            ) { commit in
                let decided = cursor(commit)
                change.withLock { $0 = decided }
                return decided
            }
        }
        pageCommitted()
        for element in commit.newlyRejected {
            logger.warning(
                "rejected a photo the API sent: \(element.reason); it is kept in rejected_photo",
                metadata: [
                    "photo": "\(element.photoID ?? "-")", "source": "\(source)",
                    "page": "\(location?.absoluteString ?? "page 1")",
                ])
        }
        let newCount = Set(page.photos.map(\.id)).subtracting(commit.existingSequences.keys).count
        await progress.update {
            $0.pages += 1
            $0.photosSeen += page.photos.count
            $0.photosNew += newCount
        }
        logger.info(
            "page stored",
            metadata: [
                "source": "\(source)", "photos": "\(page.photos.count)", "new": "\(newCount)",
                "rejected": "\(page.rejected.count)",
                "next": "\(page.next.map { $0.query ?? "-" } ?? "end")",
                "rate_limit_remaining": "\(page.rateLimit.map { String($0.remaining) } ?? "-")",
            ])
        return change.withLock { $0 } ?? .backfill(next: nil)
    }
}
