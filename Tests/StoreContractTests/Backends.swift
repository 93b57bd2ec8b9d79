import Foundation
import GRDB
import Logging
import PhotoStore
import PhotoStorePostgres
import TestSupport
import Testing

@testable import PhotoStoreSQLite

/// The stores every contract test runs on: SQLite in a temporary file, and PostgreSQL in a
/// database of its own on the tests' throwaway cluster (`PostgresTestCluster`), reached straight
/// and through PgBouncer in transaction pooling (`PgBouncerTestPool`), where each transaction may
/// run on another server connection and prepared statements do not follow a client.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres
    case pgbouncer = "postgres through PgBouncer, transaction pooling"

    var testDescription: String { rawValue }

    /// A new, empty PostgreSQL database reached as this backend reaches it.
    private func makeDatabase() async throws -> PostgresLocation {
        let setup: StoreSetup = self == .pgbouncer ? .pgbouncerTransaction : .postgres
        return try PostgresLocation(parsing: try await setup.makeDatabase())
    }

    /// Runs `body` with the ledger of a new, empty store of this kind, and closes the store.
    func withLedger(_ body: (any SyncLedger) async throws -> Void) async throws {
        try await withParts { ledger, _ in try await body(ledger) }
    }

    /// Runs `body` with the ledger and the image queue of a new, empty store of this kind.
    func withParts(_ body: (any SyncLedger, any ImageQueue) async throws -> Void) async throws {
        try await withStore { ledger, queue, _ in try await body(ledger, queue) }
    }

    /// Runs `body` with the ledger, the image queue and the archive of a new, empty store.
    func withStore(_ body: (any SyncLedger, any ImageQueue, any ImageArchive) async throws -> Void) async throws {
        try await withPhotoStore { store in try await body(store.ledger, store.imageQueue, store.archive) }
    }

    /// Runs `body` with a new, empty store of this kind, and closes it.
    func withPhotoStore(_ body: (PhotoStore) async throws -> Void) async throws {
        try await withPhotoStoreBehindItsBack { store, _ in try await body(store) }
    }

    /// Changes a store's database behind its back, as another program would: a test's damage.
    struct BehindItsBack: Sendable {
        /// Runs a statement for SQLite or for PostgreSQL, and returns the integer it selects.
        fileprivate let run: @Sendable (_ sqlite: String, _ postgres: String) async throws -> Int?

        /// Runs `sqlite` on a SQLite store's file, or `postgres` on a PostgreSQL store's database.
        func execute(sqlite: String, postgres: String) async throws {
            _ = try await run(sqlite, postgres)
        }

        /// Runs `sql`, the same on both databases.
        func execute(_ sql: String) async throws {
            _ = try await run(sql, sql)
        }

        /// The integer `sql` selects, the same on both databases: what the store wrote, read as
        /// another program would.
        func integer(_ sql: String) async throws -> Int? {
            try await run(sql, sql)
        }
    }

    /// Runs `body` with a new, empty store of this kind and a way to change its database
    /// behind its back (``BehindItsBack``), and closes the store.
    func withPhotoStoreBehindItsBack(_ body: (PhotoStore, BehindItsBack) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await Self.withSQLitePath { path in
                let store = try PhotoStore(path: path)
                defer { try? store.close() }
                let writer = store.pool
                try await body(
                    store, BehindItsBack { sql, _ in try await writer.write { try Int.fetchOne($0, sql: sql) } })
            }
        case .postgres, .pgbouncer:
            let location = try await makeDatabase()
            let url = location.description
            let store = try await PostgresStore.open(
                location, password: nil, logger: Logger(label: "photosync.contract"))
            defer { try? store.close() }
            try await body(
                store, BehindItsBack { _, sql in Int(try await PostgresTestCluster.shared.query(sql, in: url)) })
        }
    }

    /// Runs `body` with a new, empty store of this kind and an empty directory for the files a
    /// test writes beside it, and removes both.
    func withPhotoStoreAndFolder(_ body: (PhotoStore, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-contract-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withPhotoStore { store in try await body(store, directory) }
    }

    /// Runs `body` with the path of a database file in a temporary directory, then removes it.
    private static func withSQLitePath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("photos.sqlite").path)
    }

    /// Runs `body` with a new, empty store of this kind and a second one open on the same
    /// database as `serve` opens it: read-only, its listings' values kept for `lag` past changes.
    func withStoreAndReader(lag: Duration, _ body: (PhotoStore, PhotoStore) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await Self.withSQLitePath { path in
                let store = try PhotoStore(path: path)
                defer { try? store.close() }
                let reader = try PhotoStore.openExisting(path: path, readers: 2, lag: lag)
                defer { try? reader.close() }
                try await body(store, reader)
            }
        case .postgres, .pgbouncer:
            let location = try await makeDatabase()
            let logger = Logger(label: "photosync.contract")
            let store = try await PostgresStore.open(location, password: nil, logger: logger)
            defer { try? store.close() }
            let reader = try await PostgresStore.openExisting(location, password: nil, lag: lag, logger: logger)
            defer { try? reader.close() }
            try await body(store, reader)
        }
    }
}
