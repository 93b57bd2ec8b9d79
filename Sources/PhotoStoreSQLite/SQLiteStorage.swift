import Foundation
import GRDB
import PhotoStore

/// The SQLite file's storage: its size on disk, the write-ahead log, the pages pruning frees,
/// backups, and the connection itself.
struct SQLiteStorage: StoreStorage, FileStorage {
    let database: StoreDatabase
    var path: String { database.path }

    var fileSizes: DatabaseFileSizes {
        func size(_ path: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return DatabaseFileSizes(database: size(path), wal: size(path + "-wal"))
    }

    func hasIncrementalVacuum() async throws(StoreError) -> Bool {
        try await database.read("reading auto_vacuum") { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 }
    }

    func enableIncrementalVacuum(
        freeDisk: Int64, largest: Int64, starting: (Int64) -> Void
    ) async throws(StoreError) -> IncrementalVacuumConversion {
        let operation = "converting to incremental vacuum"
        let mode = try await database.read(operation) { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0 }
        guard mode != 2 else { return .alreadyIncremental }
        let sizes = fileSizes
        guard sizes.database + sizes.wal <= largest else { return .tooLarge }
        guard freeDisk > 2 * (sizes.database + sizes.wal) else { return .tooLittleFreeDisk }
        starting(sizes.database + sizes.wal)
        let start = ContinuousClock.now
        try await database.writeWithoutTransaction(operation) { db in
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute(sql: "VACUUM")
            _ = try db.checkpoint(.truncate)
        }
        return .converted(ContinuousClock.now - start)
    }

    @discardableResult
    func incrementalVacuum(maxPages: Int) async throws(StoreError) -> Int {
        var freed = 0
        while true {
            let step = try await database.writeWithoutTransaction("freeing pages") { db -> Int in
                guard try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 else { return 0 }
                let before = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                guard before > 0 else { return 0 }
                // The pragma frees pages as its rows are stepped through: run it to the end.
                _ = try Row.fetchAll(db, sql: "PRAGMA incremental_vacuum(\(max(1, maxPages)))")
                return before - (try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
            }
            guard step > 0 else { return freed }
            freed += step
        }
    }

    func checkpoint() async throws(StoreError) {
        try await database.writeWithoutTransaction("checkpointing the write-ahead log") { db in
            _ = try db.checkpoint(.truncate)
        }
    }

    func checkpointPassively() async throws(StoreError) {
        try await database.writeWithoutTransaction("checkpointing the write-ahead log") { db in
            _ = try db.checkpoint(.passive)
        }
    }

    func openDownloadRequests() throws(StoreError) -> any DownloadRequests {
        let connection = try RequestConnection(
            path: path, label: "PhotoStore.downloadRequests", purpose: "download requests")
        return SQLDownloadRequests(sql: SQLiteExecutor(database: connection.database), close: connection.close)
    }

    func openPhotoDetailsRequests() throws(StoreError) -> any PhotoDetailsRequests {
        let connection = try RequestConnection(
            path: path, label: "PhotoStore.photoDetailsRequests", purpose: "photo details requests")
        return SQLPhotoDetailsRequests(sql: SQLiteExecutor(database: connection.database), close: connection.close)
    }

    /// A database file's writer holds its lock file: no lease.
    func writerLease() async throws(StoreError) -> WriterLeaseHolder? { nil }

    /// A file has no standby of its own.
    func standby() async throws(StoreError) -> StandbyState? { nil }

    func close() throws(StoreError) {
        try database.close()
    }
}
