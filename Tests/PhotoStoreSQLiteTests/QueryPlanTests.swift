import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("SQLite's query plans")
struct QueryPlanTests {
    /// The statements a connection runs, as SQLite expands them with their arguments.
    final class StatementLog: Sendable {
        private let statements = Mutex<[String]>([])

        func record(_ event: Database.TraceEvent) {
            if case .statement(let statement) = event {
                statements.withLock { $0.append(statement.expandedSQL) }
            }
        }

        var all: [String] { statements.withLock { $0 } }
    }

    /// The statements a connection runs as written, with their parameters unbound: what SQLite's
    /// planner sees when it chooses an index (a bound value never matches a partial index's WHERE).
    final class StatementTextLog: Sendable {
        private let statements = Mutex<[String]>([])

        func record(_ event: Database.TraceEvent) {
            if case .statement(let statement) = event {
                statements.withLock { $0.append(statement.sql) }
            }
        }

        var all: [String] { statements.withLock { $0 } }
    }

    @Test("every read that looks up a photo's images finds them by the photo's id")
    func readersFindImagesByPhoto() async throws {
        // GIVEN a database with stored images, opened as query, list, status and the gallery open it
        try await withStore { store, directory in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.archive.storeSample("a")
            try await store.archive.storeSample("b")
            let reader = try PhotoStore.openExisting(path: store.path)
            let log = StatementLog()
            try await reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            // WHEN every reader of images runs
            _ = try await reader.catalog.photo(id: "a")
            _ = try await reader.catalog.photo(id: "a", variant: .regular)
            _ = try await reader.catalog.photoIDs(withStoredImage: true)
            _ = try await reader.catalog.photos(matching: PhotoQuery())
            _ = try await reader.catalog.photos(matching: PhotoQuery(text: "photo", sort: .likes))
            _ = try await reader.archive.storedImages(photoIDs: ["a", "b", "c"])
            _ = try await reader.archive.storedImage(photoID: "a", variant: nil)
            _ = try await reader.archive.imageData(photoID: "a", variant: nil)
            _ = try await reader.archive.writeImage(
                photoID: "b", variant: nil, to: directory.appendingPathComponent("b.jpg"))

            // THEN none of them searches the image queue's status index, which holds every
            // stored image under one key: on 100,000 photos that made `query` take 30 ms and
            // `list` 350 ms, and an export's scan grows with the square of the photos
            let statements = Set(log.all.filter { $0.contains("image") && !$0.hasPrefix("PRAGMA") })
            #expect(statements.count >= 6, "\(statements)")
            for sql in statements {
                let plan = try await reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                #expect(
                    !plan.contains { $0.contains("USING INDEX image_queue") }, "\(sql)\n\(plan.joined(separator: "\n"))"
                )
            }
        }
    }

    @Test("status counts photos without reading a photo's row")
    func statusReadsNoPhotoRow() async throws {
        // GIVEN a database with photos in two sources, one of them Unsplash+
        try await withStore { store, _ in
            var plus = Sample.photo("p")
            plus.isPlus = true
            try await store.ledger.commit([Sample.photo("a"), plus])
            try await store.ledger.commitPage(
                [Sample.photo("b")], variant: Sample.variant, source: .user("ada"), now: Instant.t0
            ) { _ in .backfill(next: nil) }
            let reader = try PhotoStore.openExisting(path: store.path)
            let log = StatementLog()
            try await reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            // WHEN status gathers its figures
            let statistics = try await reader.catalog.statistics()
            #expect(statistics.photos == 3 && statistics.plusPhotos == 1)
            #expect(statistics.sources.map(\.plusPhotos) == [1, 0])

            // THEN each photo is counted through an index: the rows hold each photo's JSON, and
            // reading them took 0.5 s of a `status` on 100,000 photos
            let statements = Set(log.all.filter { $0.contains("photo") && !$0.hasPrefix("PRAGMA") })
            #expect(statements.count >= 2, "\(statements)")
            for sql in statements {
                let plan = try await reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                let photoRows = plan.filter {
                    ($0.hasPrefix("SCAN photo") || $0.hasPrefix("SEARCH photo"))
                        && !$0.hasPrefix("SCAN photo_") && !$0.hasPrefix("SEARCH photo_")
                }
                for line in photoRows {
                    #expect(
                        line.contains("COVERING INDEX") || line.contains("photo_plus"),
                        "\(sql)\n\(plan.joined(separator: "\n"))")
                }
            }
        }
    }

    @Test("the image queue's due jobs and the pruner's oldest stored image are found through their indexes")
    func queueAndPrunerUseTheirIndexes() async throws {
        // GIVEN a database with a stored image and pending ones, traced as written
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.archive.storeSample("a")
            let reader = try PhotoStore.openExisting(path: store.path)
            let log = StatementTextLog()
            try await reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }
            try await store.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            // WHEN the fetchers list the due jobs and the pruner frees the oldest stored image
            let due = try await reader.imageQueue.dueImageJobs(variants: [Sample.variant], now: Instant.t0, limit: 10)
            #expect(due.map(\.photoID) == ["b", "c"])
            let pruned = try await store.archive.prune(toFit: 0)
            #expect(pruned.map(\.photoID) == ["a"])

            // THEN the due jobs come from the partial index of pending images in their photos'
            // order, with no sort of every pending image, and the oldest stored image from the
            // partial index of stored images, whose `WHERE status = 'stored'` only a statement
            // with that literal in its text can use
            let plans = try await Self.plans(of: log.all, in: store)
            let dueJobs = try #require(plans.first { $0.key.contains("image.next_attempt_at <=") })
            #expect(dueJobs.value.contains { $0.contains("USING INDEX image_due") }, "\(dueJobs)")
            #expect(!dueJobs.value.contains { $0.contains("TEMP B-TREE") }, "\(dueJobs)")
            let oldest = try #require(plans.first { $0.key.contains("ORDER BY fetched_at, id LIMIT 1") })
            #expect(oldest.value.contains { $0.contains("image_stored_by_fetch") }, "\(oldest)")
        }
    }

    /// The query plan of each statement of `statements` that reads `image`, by its text.
    private static func plans(of statements: [String], in store: PhotoStore) async throws -> [String: [String]] {
        var plans: [String: [String]] = [:]
        for sql in Set(statements) where sql.contains("FROM image") && !sql.hasPrefix("PRAGMA") {
            plans[sql] = try await store.pool.read { db in
                // The parameters stay unbound (NULL): the plan is the one the statement's text gets.
                let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
                statement.setUncheckedArguments([])
                return try Row.fetchAll(statement).map { $0["detail"] as String }
            }
        }
        return plans
    }
}
