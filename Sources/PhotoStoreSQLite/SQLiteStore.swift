import Foundation
import GRDB
import PhotoStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening the SQLite store: the file, its identity, its schema, and the parts over one
/// connection.
///
/// The database is an SQLite file in WAL mode, so `photosync query` and `status` read while
/// `run` writes. Readers, and every write, run on GRDB's queues, never on the calling thread.
extension PhotoStore {
    /// How long a writer waits for another connection's lock before failing.
    static let busyTimeout: TimeInterval = 5

    /// Opens the database at `path` for reading and writing, creating it if needed and migrating
    /// it to the current schema.
    ///
    /// A new file is created readable and writable by its owner only (0600), and SQLite gives
    /// its `-wal` and `-shm` files the same mode. The directory must exist.
    ///
    /// - Throws: `StoreError.cannotOpen` when the file cannot be created or opened,
    ///   `.notAPhotosyncDatabase` for any other kind of file, `.newerSchema` when a newer
    ///   photosync migrated it, `.databaseFailure` when a migration fails.
    ///
    /// The file's identity is checked before anything is written to it: a file that is not
    /// photosync's is refused byte for byte unchanged, never switched to WAL or migrated.
    ///
    /// - Parameter onProgress: told before and after work that takes a while on a large
    ///   database: building the search index of a database from before search (once).
    public convenience init(
        path: String, onProgress: (@Sendable (OpeningProgress) -> Void)? = nil
    ) throws(StoreError) {
        try Self.createOwnerOnlyFile(at: path)
        try Self.checkIdentityBeforeWriting(path: path)
        let pool = try Self.openPool(path: path, readonly: false)
        do {
            let photosToIndex = try Self.photosToIndex(pool)
            if photosToIndex > 0 { onProgress?(.indexingForSearch(photos: photosToIndex)) }
            let start = ContinuousClock.now
            let migrated = try pool.read { try Schema.migrator.hasCompletedMigrations($0) }
            try Schema.migrator.migrate(pool)
            if !migrated {
                // The migrations' pages go into the database file now, not into the log the first
                // page is written after: a new database starts with an empty log. Best effort: a
                // reader in another process may hold the log, and the automatic checkpoint will
                // copy it later.
                _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            }
            if photosToIndex > 0 {
                onProgress?(.indexedForSearch(photos: photosToIndex, duration: ContinuousClock.now - start))
            }
        } catch {
            throw StoreError(error, path: path, operation: "migrating the schema")
        }
        self.init(path: path, pool: pool)
    }

    /// Checks that `path` can be a database file before anything is created beside it (`run`'s
    /// writer lock, its download directory): an existing entry must be a regular file, and a
    /// new one needs its directory. Nothing is created or changed.
    ///
    /// - Throws: `StoreError.cannotOpen` naming what is wrong with the path.
    public static func checkDatabasePath(_ path: String) throws(StoreError) {
        var status = stat()
        if stat(path, &status) == 0 {
            let kind = status.st_mode & S_IFMT
            guard kind == S_IFREG else {
                let what = kind == S_IFDIR ? "it is a directory" : "it is not a regular file"
                throw StoreError.cannotOpen(path: path, reason: what)
            }
            return
        }
        let code = errno
        guard code == ENOENT else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(code))) }
        let directory = (path as NSString).deletingLastPathComponent
        var directoryStatus = stat()
        guard stat(directory.isEmpty ? "." : directory, &directoryStatus) == 0,
            directoryStatus.st_mode & S_IFMT == S_IFDIR
        else {
            throw StoreError.cannotOpen(path: path, reason: "its directory \(directory) does not exist")
        }
    }

    /// What opening a database is busy with, for a person waiting on it.
    public enum OpeningProgress: Sendable, Equatable {
        /// The search index of a database from before search is being built over this many photos.
        case indexingForSearch(photos: Int64)
        /// It is built.
        case indexedForSearch(photos: Int64, duration: Duration)
    }

    /// The photos the search migration is about to index: 0 when it already ran, or the
    /// database is new.
    private static func photosToIndex(_ pool: DatabasePool) throws -> Int64 {
        try pool.read { db in
            guard try db.tableExists("photo"),
                try !Schema.migrator.appliedIdentifiers(db).contains(Schema.searchMigration)
            else { return 0 }
            return try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
        }
    }

    /// Opens an existing database without creating or changing anything: for `query` and
    /// `status`, which may run while `photosync run` writes.
    ///
    /// It opens one read-only connection, no pool and no migration work: `query` is a command a
    /// person waits for, and a pool's connections cost more than the lookup itself.
    ///
    /// - Throws: `StoreError.missing` when there is no file at `path` (none is created),
    ///   `.notAPhotosyncDatabase` for any other kind of file, `.olderSchema` when the database
    ///   needs a migration (which only `init(path:)` performs), `.newerSchema`, `.cannotOpen`.
    ///
    /// - Parameters:
    ///   - readers: connections that read at once. A server answering many requests (`serve`)
    ///     wants several: one connection answers one read at a time. More than one needs a
    ///     database in WAL mode, which `photosync run` makes every database it creates.
    ///   - mapped: read the file through a memory map, for a command that counts many index
    ///     entries and reads no image (`status`). Mapped pages count in the process's resident
    ///     memory, so a reader of images keeps this off.
    ///   - forSmallWrites: the connection may also write: for `retry`, whose one short
    ///     transaction runs beside `photosync run` (SQLite's lock keeps the two writers apart),
    ///     and which neither creates nor migrates a database.
    ///   - lag: how long a listing's total, the start of a deep page and a search's ranking may
    ///     lag behind changes: for a server under a writing daemon, whose every commit would
    ///     otherwise have each of them made again for the next request.
    public static func openExisting(
        path: String, readers: Int = 1, mapped: Bool = false, forSmallWrites: Bool = false, lag: Duration = .zero
    ) throws(StoreError) -> PhotoStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.missing(path: path)
        }
        var configuration = Configuration()
        configuration.label = "PhotoStore.reader"
        configuration.readonly = !forSmallWrites
        configuration.busyMode = .timeout(busyTimeout)
        configuration.maximumReaderCount = max(1, readers)
        configuration.prepareDatabase { db in
            db.add(function: PhotoColor.sqlFunction)
            if mapped {
                // Pages read through a memory map rather than copied in by read(2): a count over
                // a million index entries in a fresh process fell from about 20 ms to 2. SQLite
                // maps at most 2 GiB, the start of the file; the rest is read as before.
                // The file shrinks (incremental_vacuum under a storage_limit) only when a
                // checkpoint has copied the whole log, which an open read transaction prevents;
                // `status` holds one short read, so its map does not outlive the file's length.
                try db.execute(sql: "PRAGMA mmap_size = 2147418112")
            }
        }
        let reader: any DatabaseWriter
        do {
            reader =
                readers > 1
                ? try DatabasePool(path: path, configuration: configuration)
                : try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening")
        }
        try checkIdentity(of: reader, path: path, requireCurrentSchema: true)
        return PhotoStore(path: path, pool: reader, lag: lag)
    }

    /// The SQLite store's parts over `pool`, opened and checked.
    private convenience init(path: String, pool: any DatabaseWriter, lag: Duration = .zero) {
        let database = StoreDatabase(path: path, writer: pool)
        let storage = SQLiteStorage(database: database)
        self.init(
            path: path, ledger: SQLiteSyncLedger(database: database), imageQueue: SQLiteImageQueue(database: database),
            archive: SQLiteImageArchive(database: database), catalog: SQLitePhotoCatalog(database: database, lag: lag),
            photoDetails: SQLPhotoDetailsStore(sql: SQLiteExecutor(database: database)), storage: storage,
            files: storage,
            transfer: SQLiteStoreTransfer(database: database))
    }

    /// The SQLite connection under the parts, when SQLite is the store: for its own tests.
    var sqlite: StoreDatabase? { (files as? SQLiteStorage)?.database }

    /// The SQLite connection, for this module's tests.
    var pool: any DatabaseWriter { sqlite!.writer }

    /// Creating the file ourselves, before SQLite does, is what makes it 0600 from its first
    /// instant: O_EXCL never touches an existing file, and the mode does not depend on the
    /// process-wide umask being strict.
    private static func createOwnerOnlyFile(at path: String) throws(StoreError) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(code)))
    }

    private static func openPool(path: String, readonly: Bool) throws(StoreError) -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "PhotoStore"
        configuration.readonly = readonly
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            db.add(function: PhotoColor.sqlFunction)
            let isNew = try Int.fetchOne(db, sql: "PRAGMA page_count") == 0
            // 16 KiB pages: SQLite's "Internal Versus External BLOBs" measured 8-16 KiB pages
            // best for blobs of 100 KB and more, which is what most of this file holds. Only a
            // new, empty database takes it: this runs before GRDB switches the file to WAL,
            // and an existing file keeps its page size.
            try db.execute(sql: "PRAGMA page_size = 16384")
            // Pages freed by pruning go to a free list that `incrementalVacuum` gives back to the
            // file system. Only a new, empty database takes it (an older one is converted once
            // by `enableIncrementalVacuum`), and only the writer sets it: the pragma writes the
            // file's first page (so it comes after the page size), which a reader may not.
            if isNew && !db.configuration.readonly {
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            }
            // 4 MiB of page cache (the default is 2 MiB): a page commit touches the photo
            // table and its indexes, the image queue and the cursors at once. Not more: image
            // blobs pass through the writer's cache too and fill any size of it (16 MiB held
            // 12 MiB of a sync's 64 MB budget; Benchmarks/HISTORY.md, issue 32).
            try db.execute(sql: "PRAGMA cache_size = -4096")
            // The WAL is folded back into the database every 1000 pages (16 MiB), SQLite's
            // default count; ``checkpoint()`` also empties it when the sync goes idle.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 1000")
            // A reader that holds a snapshot for long makes the WAL grow past its checkpoints;
            // once the reader lets go and a checkpoint resets the log, the file is cut back to
            // this size instead of staying at its high-water mark.
            try db.execute(sql: "PRAGMA journal_size_limit = \(PhotoStore.walSizeLimit)")
        }
        // GRDB opens the pool in WAL mode with `synchronous = NORMAL`: a kill -9 loses nothing
        // committed, and a power loss may lose the last transactions but never corrupts the file.
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening")
        }
    }

    /// Checks the file with a plain connection, which neither opening nor reading writes to:
    /// opening the pool would switch the file to WAL, a write, before any check could run.
    private static func checkIdentityBeforeWriting(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.label = "PhotoStore.identity"
        configuration.busyMode = .timeout(busyTimeout)
        let probe: DatabaseQueue
        do {
            probe = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening")
        }
        defer { try? probe.close() }
        try checkIdentity(of: probe, path: path, requireCurrentSchema: false)
    }

    /// Refuses files that photosync did not create before anything is written into them, and
    /// schemas this build cannot use.
    private static func checkIdentity(
        of reader: some DatabaseReader, path: String, requireCurrentSchema: Bool
    ) throws(StoreError) {
        let migrator = Schema.migrator
        do {
            try reader.read { db in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                if applicationID != Schema.applicationID {
                    let objects = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") ?? 0
                    // An empty database is one init(path:) just created, or one whose first
                    // migration never committed.
                    guard applicationID == 0 && objects == 0 else {
                        throw StoreError.notAPhotosyncDatabase(path: path)
                    }
                    if requireCurrentSchema { throw StoreError.olderSchema(path: path) }
                    return
                }
                if try migrator.hasBeenSuperseded(db) {
                    throw StoreError.newerSchema(path: path)
                }
                if try requireCurrentSchema && !migrator.hasCompletedMigrations(db) {
                    throw StoreError.olderSchema(path: path)
                }
            }
        } catch {
            throw StoreError(error, path: path, operation: "opening")
        }
    }

    /// The size the write-ahead log is cut back to after a checkpoint (`journal_size_limit`).
    public static let walSizeLimit: Int64 = 64 << 20
}

/// The C library's `close`, which `PhotoStore.close()` hides inside the type.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
