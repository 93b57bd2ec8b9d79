import Foundation
import PhotoStore
import UnsplashAPI

extension SyncEngine {
    /// Walks the feed from the backfill cursor along `rel="next"`, committing each page with the
    /// advanced cursor. Returns whether backfill is complete.
    func backfill(maxPages: Int?) async throws -> Bool {
        var state = try storing { try store.syncState() }
        var fetched = 0
        while !state.backfillComplete {
            if let maxPages, fetched >= maxPages { return false }
            await tracker.update { $0.activity = "backfilling" }
            let next = state.backfillNext
            let page = try await fetchPage(next)
            let following = page.photos.isEmpty ? nil : page.next
            try await commit(page) { _ in .backfill(next: following) }
            fetched += 1
            try await processImages()
            state = try storing { try store.syncState() }
        }
        return true
    }

    /// Walks from the head of the feed until a run of photos that were stored before this
    /// catch-up began. The catch-up's own position is committed with each page, so a restart
    /// resumes it instead of stopping early on the photos it had just stored.
    func catchUp() async throws {
        let state = try storing { try store.syncState() }
        let baseline = try state.catchUpBaseline ?? storing { try store.maxSequence() }
        var next = state.catchUpNext
        await tracker.update { $0.activity = "catching up with the head" }
        repeat {
            let page = try await fetchPage(next)
            let organic = page.photos.filter { !$0.isSponsored }.count
            var following: URL?
            try await commit(page) { commit in
                let reachedKnown = knownRun(in: page.photos, existing: commit.existingSequences, baseline: baseline)
                    >= min(configuration.knownRunToStop, max(1, organic))
                following = reachedKnown || page.photos.isEmpty ? nil : page.next
                return .catchUp(next: following, baseline: baseline)
            }
            try await processImages()
            next = following
        } while next != nil
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

    private func fetchPage(_ url: URL?) async throws -> PhotoPage {
        let page: PhotoPage
        do {
            page = try await callingAPI {
                if let url {
                    try await repository.page(at: url)
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

    /// Stores `page` with the cursor change `cursor` decides from what the page found.
    private func commit(_ page: PhotoPage, cursor: (PageCommit) -> CursorChange) async throws {
        let records = try page.photos.map { try PhotoRecord($0, variant: configuration.variant) }
        let commit = try storing {
            try store.commitPage(records, variant: configuration.variant.rawValue, now: now(), cursor: cursor)
        }
        let newCount = Set(page.photos.map(\.id)).subtracting(commit.existingSequences.keys).count
        await tracker.update {
            $0.pages += 1
            $0.photosSeen += page.photos.count
            $0.photosNew += newCount
        }
        logger.info("page stored", metadata: [
            "photos": "\(page.photos.count)", "new": "\(newCount)",
            "next": "\(page.next.map { $0.query ?? "-" } ?? "end")",
            "rate_limit_remaining": "\(page.rateLimit.map { String($0.remaining) } ?? "-")",
        ])
    }
}
