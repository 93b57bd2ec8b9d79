import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("SQLite settings")
struct SQLiteSettingsTests {
    @Test("a new database has 16 KiB pages, WAL and synchronous NORMAL")
    func newDatabasesAreSetUpForBlobs() async throws {
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a")])
            let (pageSize, journal, synchronous) = try await store.pool.write { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA page_size"),
                    try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                    try Int.fetchOne(db, sql: "PRAGMA synchronous")
                )
            }
            #expect(pageSize == 16384)
            #expect(journal == "wal")
            #expect(synchronous == 1, "NORMAL")
        }
    }

    @Test("an idle checkpoint empties the write-ahead log")
    func checkpointTruncatesTheWAL() async throws {
        try await withStore { store, directory in
            for index in 0..<20 { try await store.ledger.commit([Sample.photo("p\(index)")]) }
            let wal = directory.appendingPathComponent("photos.sqlite-wal").path
            let before = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
            #expect(before > 0)

            try await store.files!.checkpoint()

            #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int == 0)
            #expect(try await store.catalog.photo(id: "p19") != nil)
        }
    }

    @Test("the readers' store is one read-only connection that sees the writer's commits")
    func readersOpenOneConnection() async throws {
        try await withStore { store, directory in
            try await store.ledger.commit([Sample.photo("a")])
            let reader = try PhotoStore.openExisting(path: directory.appendingPathComponent("photos.sqlite").path)
            #expect(reader.pool is DatabaseQueue)
            #expect(try await reader.catalog.photo(id: "a") != nil)
            try await store.ledger.commit([Sample.photo("b")])
            #expect(try await reader.catalog.photo(id: "b") != nil)
        }
    }
}
