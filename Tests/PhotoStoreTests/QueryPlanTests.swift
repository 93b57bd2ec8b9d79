import Foundation
import GRDB
import Synchronization
import Testing
@testable import PhotoStore

@Suite("Query plans")
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

    @Test("every read that looks up a photo's images finds them by the photo's id")
    func readersFindImagesByPhoto() throws {
        // GIVEN a database with stored images, opened as query, list, status and the gallery open it
        try withStore { store, directory in
            try store.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try store.storeSample("a")
            try store.storeSample("b")
            let reader = try PhotoStore.openExisting(path: store.path)
            let log = StatementLog()
            try reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            // WHEN every reader of images runs
            _ = try reader.photo(id: "a")
            _ = try reader.photo(id: "a", variant: "regular")
            _ = try reader.photoIDs(withStoredImage: true)
            _ = try reader.photos(matching: PhotoQuery())
            _ = try reader.photos(matching: PhotoQuery(text: "photo", sort: .likes))
            _ = try reader.storedImages(photoIDs: ["a", "b", "c"])
            _ = try reader.storedImage(photoID: "a", variant: nil)
            _ = try reader.imageData(photoID: "a", variant: nil)
            _ = try reader.writeImage(photoID: "b", variant: nil, to: directory.appendingPathComponent("b.jpg"))

            // THEN none of them searches the image queue's status index, which holds every
            // stored image under one key: on 100,000 photos that made `query` take 30 ms and
            // `list` 350 ms, and an export's scan grows with the square of the photos
            let statements = Set(log.all.filter { $0.contains("image") && !$0.hasPrefix("PRAGMA") })
            #expect(statements.count >= 6, "\(statements)")
            for sql in statements {
                let plan = try reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                #expect(!plan.contains { $0.contains("USING INDEX image_queue") }, "\(sql)\n\(plan.joined(separator: "\n"))")
            }
        }
    }

    @Test("status counts photos without reading a photo's row")
    func statusReadsNoPhotoRow() throws {
        // GIVEN a database with photos in two sources, one of them Unsplash+
        try withStore { store, _ in
            var plus = Sample.photo("p")
            plus.isPlus = true
            try store.commit([Sample.photo("a"), plus])
            try store.commitPage([Sample.photo("b")], variant: Sample.variant, source: "user:ada", cursor: .backfill(next: nil), now: Instant.t0)
            let reader = try PhotoStore.openExisting(path: store.path)
            let log = StatementLog()
            try reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            // WHEN status gathers its figures
            let statistics = try reader.statistics()
            #expect(statistics.photos == 3 && statistics.plusPhotos == 1)
            #expect(statistics.sources.map(\.plusPhotos) == [1, 0])

            // THEN each photo is counted through an index: the rows hold each photo's JSON, and
            // reading them took 0.5 s of a `status` on 100,000 photos
            let statements = Set(log.all.filter { $0.contains("photo") && !$0.hasPrefix("PRAGMA") })
            #expect(statements.count >= 2, "\(statements)")
            for sql in statements {
                let plan = try reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                let photoRows = plan.filter { ($0.hasPrefix("SCAN photo") || $0.hasPrefix("SEARCH photo"))
                    && !$0.hasPrefix("SCAN photo_") && !$0.hasPrefix("SEARCH photo_") }
                for line in photoRows {
                    #expect(line.contains("COVERING INDEX") || line.contains("photo_plus"), "\(sql)\n\(plan.joined(separator: "\n"))")
                }
            }
        }
    }
}
