import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("The image queue on SQLite: its rows, indexes and writes")
struct ImageQueueTests {
    let variant = Sample.variant

    @Test("the tracking queue finds each photo's images by its id, not by scanning stored images")
    func trackingQueuePlan() async throws {
        try await withStore { store, _ in
            let plan = try await store.pool.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + SQLiteSyncLedger.pendingDownloadTrackingSQL, arguments: [64]
                ).map { $0["detail"] as String }
            }
            #expect(
                plan.contains { $0.contains("SEARCH image USING INDEX sqlite_autoindex_image_1 (photo_id=?)") },
                "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("marking a download tracked leaves the photo's search entry alone")
    func trackingDoesNotReindex() async throws {
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a")
            try await store.archive.storeSample("b")
            let changes = try await store.totalChanges {
                try await store.ledger.markDownloadsTracked(photoIDs: ["a", "b"], at: Instant.t(30))
            }
            // Two rows updated; under v4's trigger the search index was rewritten too (22).
            #expect(changes == 2)
        }
    }
}
