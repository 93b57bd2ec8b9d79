import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Interrupting SQLite's statement whose caller has gone")
struct InterruptionTests {
    /// Counts without end: a read that only an interruption stops.
    static let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"

    @Test("cancelling the task of an interruptible read stops its query, and the store goes on", arguments: [1, 4])
    func cancellingStopsTheQuery(readers: Int) async throws {
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a")])
            let reader = try PhotoStore.openExisting(path: store.path, readers: readers)
            let (started, didStart) = AsyncStream<Void>.makeStream()
            let read = Task {
                try await reader.sqliteCatalog.database.interruptibleRead("counting") { db in
                    didStart.yield()
                    return try Int.fetchOne(db, sql: Self.endless)
                }
            }
            // WHEN the read has started and its task is cancelled
            for await _ in started { break }
            read.cancel()

            // THEN it ends as interrupted rather than running on
            await #expect(throws: StoreError.interrupted(path: store.path)) { try await read.value }
            // AND the next reads and writes work
            try await store.ledger.commit([Sample.photo("b")])
            #expect(try await reader.catalog.photos(matching: PhotoQuery()).map(\.id).sorted() == ["a", "b"])
        }
    }
}
