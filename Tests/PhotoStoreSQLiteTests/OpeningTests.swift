import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Opening a SQLite file")
struct OpeningTests {
    @Test("a fresh file is migrated, and reopening it migrates nothing and keeps the data")
    func migratesOnceAndReopens() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            try await PhotoStore(path: path).ledger.commit([Sample.photo("a")])

            let reopened = try PhotoStore(path: path)

            let applied = try await reopened.pool.read { db in try Schema.migrator.appliedMigrations(db) }
            #expect(applied == Schema.migrator.migrations)
            let stateRows = try await reopened.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state")
            }
            #expect(stateRows == 1)
            #expect(try await reopened.catalog.photo(id: "a")?.likes == 1)
            #expect(try await reopened.ledger.syncState(source: .feed).backfillNext == Sample.pageURL(2))
        }
    }

    @Test("the database file and its -wal and -shm are readable by their owner only")
    func ownerOnlyFileMode() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            let store = try PhotoStore(path: path)
            try await store.ledger.commit([Sample.photo("a")])

            #expect(try posixPermissions(path) == 0o600)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(try posixPermissions(path + "-wal") == 0o600)
            #expect(try posixPermissions(path + "-shm") == 0o600)
        }
    }

    @Test("openExisting on a missing path throws .missing and creates no file")
    func openExistingMissing() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory.appendingPathComponent("absent.sqlite").path

            #expect(throws: StoreError.missing(path: path)) { try PhotoStore.openExisting(path: path) }

            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(StoreError.missing(path: path).localizedDescription.contains("no database at \(path)"))
        }
    }

    @Test("a database that cannot be created is reported with its path and the reason")
    func cannotCreate() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory.appendingPathComponent("no-such-directory/photos.sqlite").path

            #expect(throws: StoreError.cannotOpen(path: path, reason: "No such file or directory")) {
                try PhotoStore(path: path)
            }
            #expect(
                StoreError.cannotOpen(path: path, reason: "No such file or directory").localizedDescription
                    == "cannot open database at \(path): No such file or directory")
        }
    }

    @Test("a file that is not a database is refused with its path, and left untouched")
    func notADatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("notes.txt").path
            let contents = Data(String(repeating: "not an SQLite database\n", count: 100).utf8)
            try contents.write(to: URL(fileURLWithPath: path))

            #expect(throws: StoreError.notAPhotosyncDatabase(path: path)) { try PhotoStore(path: path) }
            #expect(throws: StoreError.notAPhotosyncDatabase(path: path)) { try PhotoStore.openExisting(path: path) }

            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
            #expect(
                StoreError.notAPhotosyncDatabase(path: path).localizedDescription
                    == "\(path) is not a photosync database")
        }
    }

    @Test("another application's SQLite database is refused, not migrated")
    func foreignDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other.sqlite").path
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            }

            #expect(throws: StoreError.notAPhotosyncDatabase(path: path)) { try PhotoStore(path: path) }

            let tables = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            #expect(tables == ["note"])
        }
    }

    @Test("another application's SQLite file is refused byte for byte unchanged: no WAL switch, no migration")
    func foreignDatabaseUnchanged() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other.sqlite").path
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
                try db.execute(sql: "INSERT INTO note (text) VALUES ('keep me')")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))

            #expect(throws: StoreError.notAPhotosyncDatabase(path: path)) { try PhotoStore(path: path) }

            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("a database migrated by a newer photosync is refused")
    func newerSchema() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            try await PhotoStore(path: path).pool.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v999 from the future')")
            }

            #expect(throws: StoreError.newerSchema(path: path)) { try PhotoStore(path: path) }
            #expect(throws: StoreError.newerSchema(path: path)) { try PhotoStore.openExisting(path: path) }
        }
    }

    @Test("openExisting refuses a database that needs migrating, since it never writes")
    func openExistingUnmigrated() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("empty.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil))

            #expect(throws: StoreError.olderSchema(path: path)) { try PhotoStore.openExisting(path: path) }
        }
    }

    @Test("openExisting reads a database whose writer has closed")
    func openExistingAfterWriterClosed() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            try await PhotoStore(path: path).ledger.commit([Sample.photo("a")])

            let reader = try PhotoStore.openExisting(path: path)

            #expect(try await reader.catalog.statistics().photos == 1)
            await #expect(throws: StoreError.self) { try await reader.ledger.commit([Sample.photo("b")]) }
        }
    }

    @Test("a second store reads while the first holds a write transaction open")
    func readerIsNotBlockedByWriter() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            let writer = try PhotoStore(path: path)
            try await writer.ledger.commit([Sample.photo("a", likes: 1)])
            let reader = try PhotoStore.openExisting(path: path)

            // A transaction left open across awaits, as a long page commit holds one.
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let lock = try DatabaseQueue(path: path, configuration: configuration)
            try await lock.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE; UPDATE photo SET likes = 99 WHERE id = 'a'")
            }
            // The write lock is held here: a reader that waited for it would time out.
            #expect(try await reader.catalog.photo(id: "a")?.likes == 1)
            #expect(try await reader.catalog.statistics().photos == 1)
            try await lock.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }

            #expect(try await reader.catalog.photo(id: "a")?.likes == 99)
        }
    }
}
