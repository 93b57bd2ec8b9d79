import Foundation
import GRDB

/// The file's size on disk: the write-ahead log, and the pages pruning frees.
extension PhotoStore {
    /// The sizes of the database's files now, from the file system; a missing file counts 0.
    public var fileSizes: DatabaseFileSizes {
        func size(_ path: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return DatabaseFileSizes(database: size(path), wal: size(path + "-wal"))
    }

    /// Whether freed pages can be given back to the file system (`auto_vacuum = INCREMENTAL`).
    /// Databases created by this version are; older ones until ``enableIncrementalVacuum(freeDisk:largest:)``.
    public func hasIncrementalVacuum() async throws(StoreError) -> Bool {
        do {
            return try await pool.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 }
        } catch {
            throw StoreError(error, path: path, operation: "reading auto_vacuum")
        }
    }

    /// What ``enableIncrementalVacuum(freeDisk:largest:)`` did.
    public enum IncrementalVacuumConversion: Sendable, Equatable {
        /// The database already had it: nothing to do.
        case alreadyIncremental
        /// Converted, in this long.
        case converted(Duration)
        /// Not converted: the free disk does not hold twice the file, which a `VACUUM` needs.
        case tooLittleFreeDisk
        /// Not converted: the file is larger than `largest`, and its `VACUUM` would hold the
        /// writer for longer than a start may take.
        case tooLarge
    }

    /// Converts a database from before incremental vacuum, once: sets `auto_vacuum =
    /// INCREMENTAL` and rewrites the file with `VACUUM`, which holds the writer until it is done
    /// (about a second per 100 MB here) and needs room for a copy of the file. So it is meant
    /// for the start of `run`, before any writer stage starts, and it is skipped when `freeDisk`
    /// (the bytes free beside the file) is less than twice the file, or the file (with its log)
    /// is larger than `largest`.
    ///
    /// - Parameter starting: called with the file's size (with its log) just before the `VACUUM`,
    ///   only when there is one: for a person waiting on it.
    public func enableIncrementalVacuum(
        freeDisk: Int64, largest: Int64, starting: (Int64) -> Void = { _ in }
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

    /// Gives pages on the free list (left by pruned images) back to the file system, at most
    /// `maxPages` per transaction so that the writer is held for a few milliseconds at a time.
    /// Does nothing on a database without incremental vacuum.
    ///
    /// - Returns: the pages freed.
    @discardableResult
    public func incrementalVacuum(maxPages: Int = 1024) async throws(StoreError) -> Int {
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

    /// Copies what readers allow of the WAL into the database without waiting for anyone
    /// (`PASSIVE`), so that the log stops growing as soon as a long reader lets go.
    public func checkpointPassively() async throws(StoreError) {
        try await database.writeWithoutTransaction("checkpointing the write-ahead log") { db in
            _ = try db.checkpoint(.passive)
        }
    }
}

/// How large the database's files are on disk.
public struct DatabaseFileSizes: Sendable, Equatable {
    /// The main file.
    public var database: Int64
    /// The write-ahead log (`-wal`).
    public var wal: Int64

    public init(database: Int64, wal: Int64) {
        self.database = database
        self.wal = wal
    }
}
