import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The photosync database: photos, their image download queue and bytes, and the sync cursors.
///
/// The database is an SQLite file in WAL mode, so `photosync query` and `status` read while
/// `run` writes. Every method is synchronous, runs in one transaction, and throws only
/// `StoreError`. Whatever one call changes commits together or not at all: a page's photos with
/// the cursor that records them, an image's bytes with its job's status.
public final class PhotoStore: Sendable {
    /// The file this store was opened on; every `StoreError` names it.
    public let path: String
    let pool: DatabasePool

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
    public convenience init(path: String) throws {
        try Self.createOwnerOnlyFile(at: path)
        try Self.checkIdentityBeforeWriting(path: path)
        let pool = try Self.openPool(path: path, readonly: false)
        do {
            try Schema.migrator.migrate(pool)
        } catch {
            throw StoreError(error, path: path, operation: "migrating the schema")
        }
        self.init(path: path, pool: pool)
    }

    /// Opens an existing database without creating or changing anything: for `query` and
    /// `status`, which may run while `photosync run` writes.
    ///
    /// - Throws: `StoreError.missing` when there is no file at `path` (none is created),
    ///   `.notAPhotosyncDatabase` for any other kind of file, `.olderSchema` when the database
    ///   needs a migration (which only `init(path:)` performs), `.newerSchema`, `.cannotOpen`.
    public static func openExisting(path: String) throws -> PhotoStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.missing(path: path)
        }
        let pool = try openPool(path: path, readonly: true)
        try checkIdentity(of: pool, path: path, requireCurrentSchema: true)
        return PhotoStore(path: path, pool: pool)
    }

    private init(path: String, pool: DatabasePool) {
        self.path = path
        self.pool = pool
    }

    /// Creating the file ourselves, before SQLite does, is what makes it 0600 from its first
    /// instant: O_EXCL never touches an existing file, and the mode does not depend on the
    /// process-wide umask being strict.
    private static func createOwnerOnlyFile(at path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(code)))
    }

    private static func openPool(path: String, readonly: Bool) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "PhotoStore"
        configuration.readonly = readonly
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening")
        }
    }

    /// Checks the file with a plain connection, which neither opening nor reading writes to:
    /// opening the pool would switch the file to WAL, a write, before any check could run.
    private static func checkIdentityBeforeWriting(path: String) throws {
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
    private static func checkIdentity(of reader: some DatabaseReader, path: String, requireCurrentSchema: Bool) throws {
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

    // MARK: - Transactions

    /// Runs `body` in a write transaction, reporting any failure as a `StoreError`.
    func write<T>(_ operation: @autoclosure () -> String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch {
            throw StoreError(error, path: path, operation: operation())
        }
    }

    /// Runs `body` in a read transaction: one consistent snapshot, never blocked by the writer.
    func read<T>(_ operation: @autoclosure () -> String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw StoreError(error, path: path, operation: operation())
        }
    }
}

extension StoreError {
    /// Wraps any error thrown under the store as a `StoreError`, keeping those that already are.
    init(_ error: any Error, path: String, operation: String) {
        if let error = error as? StoreError {
            self = error
        } else if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                self = .notAPhotosyncDatabase(path: path)
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                self = .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
            default:
                self = .databaseFailure(path: path, operation: operation, reason: error.message ?? "\(error)")
            }
        } else {
            self = .databaseFailure(path: path, operation: operation, reason: "\(error)")
        }
    }
}
