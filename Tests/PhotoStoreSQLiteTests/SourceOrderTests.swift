import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// A source's own order (``PhotoQuery/inSourceOrder``) is the one Unsplash lists it in: the
/// photos a head catch-up finds come before the backfill's, the newest walk's first.
@Suite("A source's own order on SQLite: resumed and migrated files, index ranges")
struct SourceOrderTests {
    static let source = PhotoSource.user("ann")

    /// Commits `ids` as one backfill page of ``source``.
    static func backfill(_ ids: [String], _ store: PhotoStore, next: Int? = nil) async throws {
        try await store.ledger.commitPage(
            ids.map { Sample.photo($0) }, variant: Sample.variant, source: source, now: Instant.t0
        ) { _ in .backfill(next: next.map(Sample.pageURL)) }
    }

    /// Commits `ids` as a page of the catch-up walk that began at `baseline`, followed by `next`.
    static func catchUp(_ ids: [String], _ store: PhotoStore, baseline: Int64, next: Int?) async throws {
        try await store.ledger.commitPage(
            ids.map { Sample.photo($0) }, variant: Sample.variant, source: source, now: Instant.t0
        ) { _ in .catchUp(next: next.map(Sample.pageURL), baseline: baseline) }
    }

    static func inSourceOrder(
        _ catalog: PhotoCatalog, limit: Int? = nil, offset: Int = 0, after: String? = nil, before: String? = nil
    ) async throws -> [String] {
        var query = PhotoQuery(source: source.description, limit: limit, offset: offset)
        query.inSourceOrder = true
        query.after = after
        query.before = before
        return try await catalog.photos(matching: query).map(\.id)
    }

    @Test("a database from before positions lists its sources as it did: in membership order")
    func migratedMembershipsKeepTheirOrder() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            do {
                let queue = try DatabaseQueue(path: path)
                try Schema.migrator.migrate(queue, upTo: "v12 operations")
                try await queue.write { db in
                    try db.execute(sql: "INSERT INTO source (id, name, backfill_complete) VALUES (1, 'user:ann', 1)")
                    for (sequence, id) in ["x", "y", "z"].enumerated() {
                        try db.execute(
                            sql: """
                                INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                                VALUES (?, ?, 0, '{}', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')
                                """,
                            arguments: [id, sequence + 1])
                    }
                    // Membership ids out of the photos' order, as several sources interleave them.
                    for (membership, id) in [(7, "z"), (9, "x"), (12, "y")] {
                        try db.execute(
                            sql: """
                                INSERT INTO photo_source (id, photo_id, source_id, first_seen_at)
                                VALUES (?, ?, 1, '2026-01-01 00:00:00.000')
                                """,
                            arguments: [membership, id])
                    }
                }
            }
            let store = try PhotoStore(path: path)
            #expect(try await Self.inSourceOrder(store.catalog) == ["z", "x", "y"])
            // A backfill page after the migration still goes last.
            try await Self.backfill(["w"], store)
            #expect(try await Self.inSourceOrder(store.catalog) == ["z", "x", "y", "w"])
            let indexes = try await store.pool.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'photo_source'")
            }
            #expect(indexes.contains("photo_source_position") && !indexes.contains("photo_source_order"))
        }
    }

    @Test("a commit finds where to place its photos, and a page of the order its photos, by the position index")
    func positionsAreRangesOfTheIndex() async throws {
        try await withStore { store, _ in
            // GIVEN a source backfilled and caught up, read and written with every statement traced
            let writes = QueryPlanTests.StatementLog()
            try await store.pool.writeWithoutTransaction { db in db.trace { writes.record($0) } }
            try await Self.backfill((0..<8).map { "b\($0)" }, store)
            let baseline = try await store.ledger.maxMembership()
            try await Self.catchUp(["c1", "c2"], store, baseline: baseline, next: 2)
            try await Self.catchUp(["c3", "b0"], store, baseline: baseline, next: nil)
            let reader = try PhotoStore.openExisting(path: store.path)
            let reads = QueryPlanTests.StatementLog()
            try await reader.pool.writeWithoutTransaction { db in db.trace { reads.record($0) } }
            var catalog = reader.sqliteCatalog
            catalog.limits.anchorInterval = 2

            // WHEN pages of its own order are read: the first, a deep one (from anchors), by cursor
            #expect(try await Self.inSourceOrder(catalog, limit: 2) == ["c1", "c2"])
            #expect(try await Self.inSourceOrder(catalog, limit: 2, offset: 7) == ["b4", "b5"])
            #expect(try await Self.inSourceOrder(catalog, limit: 2, after: "c3") == ["b0", "b1"])

            // THEN each is a range of photo_source_position, never a sort of the source's members
            let statements = Set(
                (writes.all + reads.all).filter {
                    $0.contains("photo_source") && $0.contains("position") && $0.contains("ORDER BY")
                })
            #expect(statements.count >= 4, "\(statements)")
            for sql in statements {
                let plan = try await reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                let described = "\(sql)\n\(plan.joined(separator: "\n"))"
                #expect(plan.contains { $0.contains("photo_source_position") }, "\(described)")
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(described)")
            }
        }
    }
}
