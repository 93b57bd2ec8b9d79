import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// What `serve`'s Unsplash API reads and writes: a page's original JSON, a listing's count, a
/// source's order, and the download requests the sync forwards.
@Suite("SQLite's plans for the mirror's reads") struct MirrorReadsTests {
    @Test func thePendingTrackingQueueStillFindsImagesByPhotoWithoutASort() async throws {
        try await withStore { store, _ in
            let plan = try await store.pool.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + SQLiteSyncLedger.pendingDownloadTrackingSQL, arguments: [64]
                ).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("download_request USING PRIMARY KEY (photo_id=?)") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }
}

@Suite("SQLite's plan for a random draw") struct RandomDrawTests {
    @Test func aDrawsBoundsAreReadFromTheEndsOfAnIndexNotFromEveryRow() async throws {
        try await withStore { store, _ in
            let plan = try await store.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLitePhotoCatalog.sequenceBoundsSQL).map {
                    $0["detail"] as String
                }
            }
            #expect(plan.filter { $0.hasPrefix("SEARCH photo USING COVERING INDEX") }.count == 2, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN photo") }, "\(plan)")
        }
    }
}
