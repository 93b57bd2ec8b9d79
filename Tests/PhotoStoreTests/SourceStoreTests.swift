import Foundation
import GRDB
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Sources and memberships")
struct SourceStoreTests {
    @Test("a photo listed by two sources is stored once, a member of both, with one image job")
    func onePhotoManySources() async throws {
        try await withStore { store, _ throws in
            try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("b")], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }
            let commit = try await store.ledger.commitPage(
                [Sample.photo("b"), Sample.photo("c")], variant: Sample.variant, source: .user("ann"), now: Instant.t(1)
            ) { _ in .backfill(next: nil) }

            #expect(commit.existingSequences == ["b": 2], "b was stored before")
            #expect(commit.existingMemberships.isEmpty, "but user:ann had not listed it")
            #expect(try await store.catalog.statistics().photos == 3)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: Instant.t(2), limit: 10).map(
                    \.photoID) == ["a", "b", "c"])
            let sources = try Dictionary(
                uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.photos == 2 && sources["user:ann"]?.photos == 2)
            #expect(
                sources["feed"]?.state.backfillNext == Sample.pageURL(2)
                    && sources["feed"]?.state.backfillComplete == false)
            #expect(
                sources["user:ann"]?.state.backfillComplete == true
                    && sources["user:ann"]?.state.lastPageAt == Instant.t(1))
            #expect(
                try await store.catalog.photos(matching: PhotoQuery(source: "user:ann")).map(\.id).sorted() == [
                    "b", "c",
                ])
            #expect(
                try await store.catalog.photos(matching: PhotoQuery()).first { $0.id == "b" }?.sources == [
                    "feed", "user:ann",
                ])

            // The same page again: nothing new, and each membership is reported with its id.
            let again = try await store.ledger.commitPage(
                [Sample.photo("c")], variant: Sample.variant, source: .user("ann"), now: Instant.t(3)
            ) { _ in .backfill(next: nil) }
            #expect(again.existingMemberships.keys.sorted() == ["c"])
            #expect(try await store.catalog.sourceStatistics().first { $0.name == "user:ann" }?.photos == 2)
        }
    }

    @Test("each source has its own cursors; the feed's are what syncState(source: feed) reads")
    func cursorsPerSource() async throws {
        try await withStore { store, _ throws in
            try await store.commit([Sample.photo("a")], next: 2)
            try await store.ledger.commitPage(
                [Sample.photo("x")], variant: Sample.variant, source: .topic("wallpapers"), now: Instant.t(1)
            ) { _ in .backfill(next: Sample.pageURL(5)) }
            #expect(try await store.ledger.syncState(source: .feed).backfillNext == Sample.pageURL(2))
            #expect(try await store.ledger.syncState(source: .topic("wallpapers")).backfillNext == Sample.pageURL(5))
            #expect(try await store.ledger.syncState(source: .likes("nobody")) == SyncState())
        }
    }

    @Test("sources no longer configured stay, inactive; a failure is kept until a page is stored")
    func activationAndFailures() async throws {
        try await withStore { store, _ throws in
            try await store.commit([Sample.photo("a")], next: nil)
            try await store.ledger.activateSources([.collection("1"), .user("nobody")])
            try await store.ledger.recordSourceFailure(
                .user("nobody"), message: "Unsplash answered 404 (Couldn't find User)", at: Instant.t(1))

            var sources = try Dictionary(
                uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.active == false && sources["feed"]?.photos == 1)
            #expect(sources["collection:1"]?.active == true && sources["collection:1"]?.photos == 0)
            #expect(
                sources["user:nobody"]?.failure
                    == SourceFailure(message: "Unsplash answered 404 (Couldn't find User)", since: Instant.t(1)))

            try await store.ledger.commitPage(
                [Sample.photo("b")], variant: Sample.variant, source: .user("nobody"), now: Instant.t(2)
            ) { _ in .backfill(next: nil) }
            sources = try Dictionary(uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["user:nobody"]?.failure == nil)
        }
    }

    @Test("an Unsplash+ photo keeps its metadata but gets no image job, now or later")
    func plusPhotosHaveNoImage() async throws {
        try await withStore { store, _ throws in
            var plus = Sample.photo("plus")
            plus.isPlus = true
            try await store.commit([plus, Sample.photo("free")], next: nil)

            #expect(try await store.catalog.photo(id: "plus") != nil)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: Instant.t0, limit: 10).map(
                    \.photoID) == ["free"])
            #expect(
                try await store.imageQueue.enqueueMissingImages(variant: .small) == 1,
                "only the free photo gets a small job"
            )
            let stats = try await store.catalog.statistics()
            #expect(stats.plusPhotos == 1 && stats.imagesPending == 2 && stats.imagesFailed == 0)
        }
    }

    @Test("a database from before sources keeps its feed cursor, catch-up and photos as the feed's")
    func migrationCarriesTheFeedOver() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v4 full-text search")
            try await queue.write { db in
                for (sequence, id) in ["a", "b", "c"].enumerated() {
                    try db.execute(
                        sql: """
                            INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                            VALUES (?, ?, 0, '{}', '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')
                            """, arguments: [id, sequence + 1])
                }
                try db.execute(
                    sql: """
                        UPDATE sync_state SET backfill_next = '/photos?page=7&per_page=30', catch_up_next = '/photos?page=2&per_page=30',
                            catch_up_baseline = 2, last_page_at = '2024-01-02 00:00:00.000' WHERE id = 1
                        """)
            }

            let store = try PhotoStore(path: path)

            let state = try await store.ledger.syncState(source: .feed)
            #expect(state.backfillNext?.absoluteString == "/photos?page=7&per_page=30" && !state.backfillComplete)
            #expect(state.catchUpNext?.absoluteString == "/photos?page=2&per_page=30" && state.catchUpBaseline == 2)
            let feed = try #require(try await store.catalog.sourceStatistics().first)
            #expect(feed.name == "feed" && feed.photos == 3 && feed.active)
            // The baseline still tells the photos stored before the catch-up (a, b) from c.
            let commit = try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("c")], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .catchUp(next: nil, baseline: 2) }
            #expect(commit.existingMemberships.filter { $0.value <= 2 }.keys.sorted() == ["a"])
        }
    }

    @Test("a new database has no source until one is used")
    func freshDatabaseHasNoSources() async throws {
        try await withStore { store, _ throws in
            #expect(try await store.catalog.sourceStatistics().isEmpty)
            #expect(try await store.catalog.statistics().backfillComplete == false)
        }
    }
}
