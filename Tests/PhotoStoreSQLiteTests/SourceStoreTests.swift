import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Sources on SQLite: a file from before sources, migrated")
struct SourceStoreTests {
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
}
