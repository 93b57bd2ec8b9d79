import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Migrations of existing SQLite files")
struct MigrationTests {
    /// A database as photosync left it before relative cursors: migrated to v1 only.
    private func version1Database(at path: String, backfillNext: String?, catchUpNext: String?) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v1 photos, images, sync state")
        try queue.write { db in
            try db.execute(
                sql: "UPDATE sync_state SET backfill_next = ?, catch_up_next = ?, catch_up_baseline = ? WHERE id = 1",
                arguments: [backfillNext, catchUpNext, catchUpNext == nil ? nil : 7])
        }
    }

    @Test("absolute cursors become path and query, so another API base can resume them")
    func absoluteCursorsBecomeRelative() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try version1Database(
                at: path,
                backfillNext: "https://api.unsplash.com/photos?order_by=latest&page=7&per_page=30",
                catchUpNext: "http://127.0.0.1:8080/photos?page=2&per_page=30")

            let state = try await PhotoStore(path: path).ledger.syncState(source: .feed)

            #expect(state.backfillNext?.absoluteString == "/photos?order_by=latest&page=7&per_page=30")
            #expect(state.catchUpNext?.absoluteString == "/photos?page=2&per_page=30")
            #expect(state.catchUpBaseline == 7)
        }
    }

    @Test("a cursor of no known shape restarts its walk from page 1 rather than skipping pages")
    func unknownCursorRestarts() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try version1Database(at: path, backfillNext: "https://api.unsplash.com", catchUpNext: "garbage")

            let state = try await PhotoStore(path: path).ledger.syncState(source: .feed)

            #expect(state.backfillNext == nil && !state.backfillComplete)
            #expect(state.catchUpNext == nil && state.catchUpBaseline == nil)
        }
    }

    @Test("cursors already relative, and a finished backfill, are kept as they are")
    func relativeCursorsKept() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try version1Database(at: path, backfillNext: "/photos?page=3&per_page=30", catchUpNext: nil)

            let state = try await PhotoStore(path: path).ledger.syncState(source: .feed)

            #expect(state.backfillNext?.absoluteString == "/photos?page=3&per_page=30")
            #expect(state.catchUpNext == nil)
        }
    }
}
