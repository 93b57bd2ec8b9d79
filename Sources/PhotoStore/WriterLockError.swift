import Foundation

/// Why this process may not be the database's one writer: SQLite's lock file, or PostgreSQL's
/// writer lease, is another's.
public enum WriterLockError: Error, Sendable, Equatable, LocalizedError {
    /// Another process holds the lock: another `photosync run` writes this database.
    case held(path: String, pid: Int32?)
    /// The lock file could not be created, opened or locked.
    case cannotLock(path: String, reason: String)
    /// Another process holds the writer lease of the PostgreSQL database `database`: another
    /// `photosync run`, on `host`, writes it.
    case leased(database: String, host: String, pid: Int32)

    public var errorDescription: String? {
        switch self {
        case .held(let path, let pid):
            "another photosync run (\(pid.map { "PID \($0)" } ?? "PID unknown")) is writing this database: it holds \(path)"
        case .cannotLock(let path, let reason):
            "cannot take the writer lock \(path): \(reason)"
        case .leased(let database, let host, let pid):
            "another photosync run (PID \(pid) on \(host)) is writing this database: it holds the writer lease of \(database)"
        }
    }
}
