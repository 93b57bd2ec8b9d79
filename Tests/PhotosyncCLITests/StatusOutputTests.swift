import Foundation
import PhotoStore
import PhotoStoreSQLite
import Testing

@testable import PhotosyncCLI

@Suite struct StatusOutputTests {
    let since = Date(timeIntervalSince1970: 1_750_000_000)

    var stalled: StoreStatistics {
        var stats = StoreStatistics(
            photos: 30, imagesStored: 30, imagesPending: 0, imagesFailed: 0, bytesStored: 1000,
            backfillNext: URL(string: "/photos?page=2&per_page=30"), backfillComplete: false, lastPageAt: since)
        stats.rejectedPhotos = 2
        stats.backfillStall = BackfillStall(reason: "the page is empty but links a next page", since: since)
        return stats
    }

    @Test func textSaysTheBackfillIsStalledAndCountsRejectedPhotos() {
        let rejected = [RejectedPhoto(photoID: nil, json: Data("{}".utf8), reason: "\"id\" is missing")]

        let text = StatusCommand.text(stalled, failures: [], rejected: rejected)

        #expect(text.contains("photos rejected 2\n"))
        #expect(
            text.contains(
                "backfill        in progress, next /photos?page=2&per_page=30; stalled since 2025-06-15T15:06:40Z, retrying: the page is empty but links a next page"
            ))
        #expect(text.contains("  rejected (no id): \"id\" is missing"))
    }

    @Test func jsonCarriesTheSameFacts() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(StatusCommand.json(stalled).utf8)) as? [String: Any])

        #expect(object["version"] as? String == PhotosyncVersion.number)
        #expect(object["photos_rejected"] as? Int == 2)
        #expect(object["backfill_cursor"] as? String == "/photos?page=2&per_page=30")
        let stall = try #require(object["backfill_stalled"] as? [String: Any])
        #expect(stall["reason"] as? String == "the page is empty but links a next page")
        #expect(stall["since"] as? String == "2025-06-15T15:06:40Z")
    }

    @Test func textAndJSONSayHowManyImagesWaitForARetryAndWhenTheFirstIsDue() throws {
        var stats = stalled
        stats.imagesPending = 7
        stats.imagesRetrying = 5
        stats.nextImageRetryAt = since
        stats.imagesFailed = 2
        let retrying = [
            ImageFailure(photoID: "abc", variant: .regular, attempts: 3, lastError: "HTTP 503", nextAttemptAt: since)
        ]

        let text = StatusCommand.text(stats, failures: [], retrying: retrying)

        #expect(text.contains("images pending  7 (5 to retry after failing, the next at 2025-06-15T15:06:40Z;"))
        #expect(text.contains("images failed   2 (for good; 'photosync retry --all' tries them again)"))
        #expect(text.contains("  retrying abc (regular, 3 attempts, next 2025-06-15T15:06:40Z): HTTP 503"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(StatusCommand.json(stats).utf8)) as? [String: Any])
        #expect(object["images_retrying"] as? Int == 5)
        #expect(object["next_image_retry_at"] as? String == "2025-06-15T15:06:40Z")
    }

    var withSources: StoreStatistics {
        var stats = stalled
        stats.plusPhotos = 3
        stats.sources = [
            SourceStatistics(
                name: "collection:3773378", active: true, photos: 40, plusPhotos: 0,
                state: SyncState(backfillComplete: true, lastPageAt: since)),
            SourceStatistics(
                name: "feed", active: false, photos: 300,
                state: SyncState(backfillNext: URL(string: "/photos?page=2&per_page=30"), lastPageAt: since)),
            SourceStatistics(
                name: "user:nobody", active: true, photos: 0, state: SyncState(),
                failure: SourceFailure(message: "Unsplash answered 404 (Couldn't find User)", since: since)),
        ]
        return stats
    }

    @Test func textShowsEachSourceInactiveOrFailing() {
        let text = StatusCommand.text(withSources, failures: [])

        #expect(text.contains("images skipped  3 (Unsplash+, which needs a paid licence)\n"))
        #expect(
            text.contains(
                "\nsources\n  collection:3773378: 40 photos, backfill complete, last page 2025-06-15T15:06:40Z\n"))
        #expect(text.contains("  feed: 300 photos, backfill in progress, last page 2025-06-15T15:06:40Z, inactive\n"))
        #expect(
            text.contains(
                "  user:nobody: 0 photos, backfill not started, last page never, failing since 2025-06-15T15:06:40Z: Unsplash answered 404 (Couldn't find User)"
            ))
    }

    @Test func jsonListsTheSources() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(StatusCommand.json(withSources).utf8)) as? [String: Any])

        #expect(object["images_skipped_plus"] as? Int == 3)
        let sources = try #require(object["sources"] as? [[String: Any]])
        #expect(sources.map { $0["source"] as? String } == ["collection:3773378", "feed", "user:nobody"])
        #expect(sources[0]["photos"] as? Int == 40 && sources[0]["backfill_complete"] as? Bool == true)
        #expect(sources[0]["last_page_at"] as? String == "2025-06-15T15:06:40Z" && sources[0]["error"] is NSNull)
        #expect(sources[1]["active"] as? Bool == false)
        #expect(
            sources[2]["error"] as? String == "Unsplash answered 404 (Couldn't find User)"
                && sources[2]["last_page_at"] is NSNull)
    }

    /// Every source complete but one the API answers 404 for, as `status` reads them from the store.
    func statistics(_ sources: [SourceStatistics]) -> StoreStatistics {
        var stats = StoreStatistics(
            photos: 70, imagesStored: 70, imagesPending: 0, imagesFailed: 0, bytesStored: 1000, backfillNext: nil,
            backfillComplete: false, lastPageAt: since)
        stats.sources = sources
        return stats
    }

    func source(_ name: String, _ state: SyncState, failing: Bool = false, active: Bool = true) -> SourceStatistics {
        SourceStatistics(
            name: name, active: active, photos: failing ? 0 : 30, state: state,
            failure: failing ? SourceFailure(message: "Unsplash answered 404 (Couldn't find User)", since: since) : nil)
    }

    @Test func aSourceAnswering404AmongCompleteOnesLeavesTheBackfillCompleteButForIt() {
        let complete = SyncState(backfillComplete: true, lastPageAt: since)
        let stats = statistics([
            source("feed", complete), source("collection:3773378", complete),
            source("user:nobody", SyncState(), failing: true),
        ])

        let text = StatusCommand.text(stats, failures: [])

        #expect(text.contains("backfill        complete but for 1 failing source: user:nobody\n"), "\(text)")
        #expect(!text.contains("not started\n"))
    }

    @Test func theBackfillIsNotStartedOnlyWhenNoSourceHasBegun() {
        let complete = SyncState(backfillComplete: true, lastPageAt: since)
        let begun = SyncState(backfillNext: URL(string: "/users/ann/photos?page=2"), lastPageAt: since)
        let cases: [([SourceStatistics], String)] = [
            ([source("feed", SyncState()), source("user:ann", SyncState())], "not started"),
            ([source("feed", complete), source("user:ann", begun)], "in progress"),
            (
                [
                    source("feed", complete), source("user:ann", begun),
                    source("user:nobody", SyncState(), failing: true),
                ],
                "in progress"
            ),
            ([source("user:nobody", SyncState(), failing: true)], "not started: every source is failing (user:nobody)"),
            (
                [
                    source("feed", complete, active: false), source("likes:ann", complete),
                    source("user:x", SyncState(), failing: true),
                ],
                "complete but for 1 failing source: user:x"
            ),
        ]
        for (sources, expected) in cases {
            #expect(StatusCommand.backfill(statistics(sources)) == expected, "\(sources.map(\.name))")
        }
    }
}
