import Foundation
import GRDB
import Testing
@testable import PhotoStore

@Suite("Sources and memberships")
struct SourceStoreTests {
    @Test("a photo listed by two sources is stored once, a member of both, with one image job")
    func onePhotoManySources() throws {
        try withStore { store, _ throws in
            try store.commitPage([Sample.photo("a"), Sample.photo("b")], variant: Sample.variant, source: "feed",
                                 cursor: .backfill(next: Sample.pageURL(2)), now: Instant.t0)
            let commit = try store.commitPage([Sample.photo("b"), Sample.photo("c")], variant: Sample.variant, source: "user:ann",
                                              cursor: .backfill(next: nil), now: Instant.t(1))

            #expect(commit.existingSequences == ["b": 2], "b was stored before")
            #expect(commit.existingMemberships.isEmpty, "but user:ann had not listed it")
            #expect(try store.statistics().photos == 3)
            #expect(try store.dueImageJobs(variant: Sample.variant, now: Instant.t(2), limit: 10).map(\.photoID) == ["a", "b", "c"])
            let sources = try Dictionary(uniqueKeysWithValues: store.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.photos == 2 && sources["user:ann"]?.photos == 2)
            #expect(sources["feed"]?.state.backfillNext == Sample.pageURL(2) && sources["feed"]?.state.backfillComplete == false)
            #expect(sources["user:ann"]?.state.backfillComplete == true && sources["user:ann"]?.state.lastPageAt == Instant.t(1))
            #expect(try store.photos(matching: PhotoQuery(source: "user:ann")).map(\.id).sorted() == ["b", "c"])
            #expect(try store.photos(matching: PhotoQuery()).first { $0.id == "b" }?.sources == ["feed", "user:ann"])

            // The same page again: nothing new, and each membership is reported with its id.
            let again = try store.commitPage([Sample.photo("c")], variant: Sample.variant, source: "user:ann",
                                             cursor: .backfill(next: nil), now: Instant.t(3))
            #expect(again.existingMemberships.keys.sorted() == ["c"])
            #expect(try store.sourceStatistics().first { $0.name == "user:ann" }?.photos == 2)
        }
    }

    @Test("each source has its own cursors; the feed's are what syncState() reads by default")
    func cursorsPerSource() throws {
        try withStore { store, _ throws in
            try store.commit([Sample.photo("a")], next: 2)
            try store.commitPage([Sample.photo("x")], variant: Sample.variant, source: "topic:wallpapers",
                                 cursor: .backfill(next: Sample.pageURL(5)), now: Instant.t(1))
            #expect(try store.syncState().backfillNext == Sample.pageURL(2))
            #expect(try store.syncState(source: "topic:wallpapers").backfillNext == Sample.pageURL(5))
            #expect(try store.syncState(source: "likes:nobody") == SyncState())
        }
    }

    @Test("sources no longer configured stay, inactive; a failure is kept until a page is stored")
    func activationAndFailures() throws {
        try withStore { store, _ throws in
            try store.commit([Sample.photo("a")], next: nil)
            try store.activateSources(["collection:1", "user:nobody"])
            try store.recordSourceFailure("user:nobody", message: "Unsplash answered 404 (Couldn't find User)", at: Instant.t(1))

            var sources = try Dictionary(uniqueKeysWithValues: store.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.active == false && sources["feed"]?.photos == 1)
            #expect(sources["collection:1"]?.active == true && sources["collection:1"]?.photos == 0)
            #expect(sources["user:nobody"]?.failure == SourceFailure(message: "Unsplash answered 404 (Couldn't find User)", since: Instant.t(1)))

            try store.commitPage([Sample.photo("b")], variant: Sample.variant, source: "user:nobody",
                                 cursor: .backfill(next: nil), now: Instant.t(2))
            sources = try Dictionary(uniqueKeysWithValues: store.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["user:nobody"]?.failure == nil)
        }
    }

    @Test("an Unsplash+ photo keeps its metadata but gets no image job, now or later")
    func plusPhotosHaveNoImage() throws {
        try withStore { store, _ throws in
            var plus = Sample.photo("plus")
            plus.isPlus = true
            try store.commit([plus, Sample.photo("free")], next: nil)

            #expect(try store.photo(id: "plus") != nil)
            #expect(try store.dueImageJobs(variant: Sample.variant, now: Instant.t0, limit: 10).map(\.photoID) == ["free"])
            #expect(try store.enqueueMissingImages(variant: "small") == 1, "only the free photo gets a small job")
            let stats = try store.statistics()
            #expect(stats.plusPhotos == 1 && stats.imagesPending == 2 && stats.imagesFailed == 0)
        }
    }

    @Test("a database from before sources keeps its feed cursor, catch-up and photos as the feed's")
    func migrationCarriesTheFeedOver() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v4 full-text search")
            try queue.write { db in
                for (sequence, id) in ["a", "b", "c"].enumerated() {
                    try db.execute(sql: """
                        INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                        VALUES (?, ?, 0, '{}', '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')
                        """, arguments: [id, sequence + 1])
                }
                try db.execute(sql: """
                    UPDATE sync_state SET backfill_next = '/photos?page=7&per_page=30', catch_up_next = '/photos?page=2&per_page=30',
                        catch_up_baseline = 2, last_page_at = '2024-01-02 00:00:00.000' WHERE id = 1
                    """)
            }

            let store = try PhotoStore(path: path)

            let state = try store.syncState()
            #expect(state.backfillNext?.absoluteString == "/photos?page=7&per_page=30" && !state.backfillComplete)
            #expect(state.catchUpNext?.absoluteString == "/photos?page=2&per_page=30" && state.catchUpBaseline == 2)
            let feed = try #require(try store.sourceStatistics().first)
            #expect(feed.name == "feed" && feed.photos == 3 && feed.active)
            // The baseline still tells the photos stored before the catch-up (a, b) from c.
            let commit = try store.commitPage([Sample.photo("a"), Sample.photo("c")], variant: Sample.variant,
                                              cursor: .catchUp(next: nil, baseline: 2), now: Instant.t0)
            #expect(commit.existingMemberships.filter { $0.value <= 2 }.keys.sorted() == ["a"])
        }
    }

    @Test("a new database has no source until one is used")
    func freshDatabaseHasNoSources() throws {
        try withStore { store, _ throws in
            #expect(try store.sourceStatistics().isEmpty)
            #expect(try store.statistics().backfillComplete == false)
        }
    }
}
