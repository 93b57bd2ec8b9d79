import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres

/// Where the mirror is, as the `database` setting says: an SQLite file (a path, the default),
/// or a PostgreSQL database (a `postgres://` or `postgresql://` URL without a password).
enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case postgres(PostgresLocation)

    /// - Throws: a `SettingProblem` for an empty value, or a URL that is not one photosync reads
    ///   (a password in it says where the password goes instead).
    init(parsing text: String) throws(SettingProblem) {
        guard !text.isEmpty else { throw SettingProblem("must not be empty") }
        guard PostgresLocation.isURL(text) else {
            self = .file(text)
            return
        }
        do {
            self = .postgres(try PostgresLocation(parsing: text))
        } catch {
            throw SettingProblem(error.description)
        }
    }

    /// The path, or the URL (which holds no password).
    var description: String {
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

    /// Opens the mirror that `run` made, changing nothing: what the reading commands open.
    /// - Throws: `StoreError.missing` when there is none yet, and as the store's `openExisting`.
    func openExisting(
        environment: [String: String], readers: Int = 1, mapped: Bool = false, forSmallWrites: Bool = false
    ) async throws -> PhotoStore {
        switch self {
        case .file(let path):
            try PhotoStore.openExisting(path: path, readers: readers, mapped: mapped, forSmallWrites: forSmallWrites)
        case .postgres(let location):
            try await PostgresStore.openExisting(
                location, password: PostgresPassword.find(for: location, environment: environment),
                logger: Self.quietLogger)
        }
    }
}

/// What makes `run` the one writer of its database, held until `run` ends: the lock file beside
/// an SQLite file, the writer lease of a PostgreSQL database.
enum DatabaseWriter: Sendable {
    case lock(WriterLock)
    case lease(PostgresWriterLease)

    /// Lets go: the lock file's lock goes with the process; the lease is given up at once, so
    /// that the next `run`, on any host, need not wait for it to expire.
    func release() async {
        switch self {
        case .lock(let lock): withExtendedLifetime(lock) {}
        case .lease(let lease): await lease.release()
        }
    }
}
