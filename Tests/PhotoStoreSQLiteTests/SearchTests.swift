import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Full-text search on SQLite: FTS5's index follows commits and migrations")
struct SearchTests {

    func ids(_ store: PhotoStore, _ text: String, sort: PhotoQuery.Sort = .relevance) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: sort)).map(\.id)
    }

    @Test("the index follows every commit, and a migrated database is indexed whole")
    func indexFollowsCommitsAndMigration() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            // A database of the version before search, holding photos already.
            let pool = try DatabasePool(path: path)
            try Schema.migrator.migrate(pool, upTo: "v3 rejected photos, backfill stalls")
            try await pool.write { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try db.execute(
                    sql: """
                        INSERT INTO photo (id, sequence, description, is_sponsored, json, first_seen_at, last_seen_at)
                        VALUES ('old', 1, 'an old harbour', 0, '{}', '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')
                        """)
            }
            try pool.close()

            let progress = Mutex<[PhotoStore.OpeningProgress]>([])
            let store = try PhotoStore(path: path) { step in progress.withLock { $0.append(step) } }
            #expect(try await ids(store, "harbour") == ["old"])
            let steps = progress.withLock { $0 }
            #expect(steps.first == .indexingForSearch(photos: 1), "it says what it is about to do")
            if steps.count == 2, case .indexedForSearch(photos: 1, _) = steps[1] {
            } else {
                Issue.record("then that it is done: \(steps)")
            }
            let reopened = Mutex(0)
            _ = try PhotoStore(path: path) { _ in reopened.withLock { $0 += 1 } }
            #expect(reopened.withLock { $0 } == 0, "the index is built once")
            try await store.ledger.commit(Sample.searchPhotos())
            #expect(try await ids(store, "dawn") == ["lake"])
            var changed = Sample.searchPhotos()[0]
            changed.description = "A loud seaside"
            try await store.ledger.commit([changed])
            #expect(try await ids(store, "dawn").isEmpty, "an updated photo is searched by its new words")
            #expect(try await ids(store, "seaside") == ["lake"])
        }
    }
}
