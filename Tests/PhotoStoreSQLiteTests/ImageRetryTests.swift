import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Failed images on SQLite: an old file's failures, migrated")
struct ImageRetryTests {
    let variant = Sample.variant

    @Test("v9 gives every image failed before it one more try, as a transient failure due at once")
    func migrationRetriesOldFailures() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v7 an index of Unsplash+ photos")
            try await queue.write { db in
                for (id, sequence) in [("a", 1), ("b", 2), ("c", 3)] {
                    try db.execute(
                        sql: """
                            INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                            VALUES (?, ?, 0, '{}', '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000')
                            """,
                        arguments: [id, sequence])
                }
                try db.execute(
                    sql: """
                        INSERT INTO image (photo_id, variant, source_url, status, attempts, last_error, next_attempt_at)
                        VALUES ('a', 'regular', 'u', 'failed', 5, 'HTTP 503', NULL),
                               ('b', 'regular', 'u', 'pending', 2, 'timeout', '2025-01-01 00:10:00.000'),
                               ('c', 'regular', 'u', 'pending', 0, NULL, NULL)
                        """)
            }
            try queue.close()

            let store = try PhotoStore(path: path)

            let counts = try await store.imageQueue.imageCounts(variants: [.regular])
            #expect(counts.failed == 0 && counts.pending == 3 && counts.retrying == 2)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [.regular], now: Instant.t0, limit: 10)
                    .map(\.photoID) == ["a", "c"])
        }
    }
}
