import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite

/// Where the mirror is, as the `database` setting says: an SQLite file (a path, the default),
/// or a PostgreSQL database (a `postgres://` or `postgresql://` URL without a password, its
/// missing parts from libpq's variables in `environment`).
package enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case postgres(PostgresLocation)

    /// - Throws: a `SettingProblem` for an empty value, or a URL that is not one photosync reads
    ///   (a password in it says where the password goes instead).
    package init(parsing text: String, environment: [String: String]) throws(SettingProblem) {
        guard !text.isEmpty else { throw SettingProblem("must not be empty") }
        guard PostgresLocation.isURL(text) else {
            self = .file(text)
            return
        }
        do {
            self = .postgres(try PostgresLocation(parsing: text, environment: environment))
        } catch {
            // Said after the setting's name: "database has an sslmode other than ...".
            throw SettingProblem(error.problem)
        }
    }

    /// The path, or the URL (which holds no password).
    package var description: String {
        switch self {
        case .file(let path): path
        case .postgres(let location): location.description
        }
    }

    /// The log line of libraries under a reading command: only what fails.
    private static let quietLogger: Logger = {
        var logger = Logger(label: "photosync.store")
        logger.logLevel = .error
        return logger
    }()

    /// Opens the mirror that `run` made, changing nothing: what the reading commands open. With
    /// a `lag`, totals, deep pages' starts and rankings may lag behind a writer's changes that
    /// long (the store's `openExisting`).
    /// - Throws: `StoreError.missing` when there is none yet, and as the store's `openExisting`.
    func openExisting(
        environment: [String: String], readers: Int = 1, mapped: Bool = false, forSmallWrites: Bool = false,
        lag: Duration = .zero
    ) async throws -> PhotoStore {
        switch self {
        case .file(let path):
            try PhotoStore.openExisting(
                path: path, readers: readers, mapped: mapped, forSmallWrites: forSmallWrites, lag: lag)
        case .postgres(let location):
            try await PostgresStore.openExisting(
                location, password: PostgresPassword.find(for: location, environment: environment), lag: lag,
                logger: Self.quietLogger)
        }
    }
}

extension DatabaseLocation {
    /// Opens the database for writing, as its one writer, and says whether this created it (an
    /// SQLite file that did not exist): what `run` and `copy` open.
    ///
    /// The writer's lock (the lock file; on PostgreSQL, the lease) is taken before the store is
    /// migrated, and held until ``DatabaseWriter/release()``; readers never take it.
    /// On PostgreSQL, the lease holds for `lease` unrenewed; with a `standby` handler, a lease
    /// another process holds is waited for, and `standby` is told of its holder at each look.
    /// - Throws: `WriterLockError` when another `run` writes the database (and there is no
    ///   `standby`); `CancellationError` when the wait is cancelled.
    package func openForWriting(
        environment: [String: String], lease: PostgresWriterLease.Timing = .standard,
        standby: (@Sendable (WriterLeaseHolder) -> Void)? = nil, logger: Logger
    ) async throws -> (PhotoStore, DatabaseWriter, created: Bool) {
        switch self {
        case .file(let path):
            let lock = try WriterLock(forDatabaseAt: path)
            let created = !FileManager.default.fileExists(atPath: path)
            let store = try PhotoStore(path: path) { progress in
                switch progress {
                case .indexingForSearch(let photos):
                    logger.notice(
                        "building the search index of \(photos) photos (once, for a database from before search)")
                case .indexedForSearch(let photos, let duration):
                    logger.notice(
                        "search index built: \(photos) photos in \(duration.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))"
                    )
                }
            }
            return (store, .lock(lock), created)
        case .postgres(let location):
            let (store, taken) = try await PostgresStore.openForWriting(
                location, password: PostgresPassword.find(for: location, environment: environment),
                host: ProcessInfo.processInfo.hostName, pid: getpid(), timing: lease, standby: standby, logger: logger)
            return (store, .lease(taken), false)
        }
    }
}

/// What makes `run` the one writer of its database, held until `run` ends: the lock file beside
/// an SQLite file, the writer lease of a PostgreSQL database.
package enum DatabaseWriter: Sendable {
    case lock(WriterLock)
    case lease(PostgresWriterLease)

    /// Lets go: the lock file's lock goes with the process; the lease is given up at once, so
    /// that the next `run`, on any host, need not wait for it to expire.
    package func release() async {
        switch self {
        case .lock(let lock): withExtendedLifetime(lock) {}
        case .lease(let lease): await lease.release()
        }
    }

    /// The lease, on PostgreSQL.
    var lease: PostgresWriterLease? {
        if case .lease(let lease) = self { lease } else { nil }
    }
}
