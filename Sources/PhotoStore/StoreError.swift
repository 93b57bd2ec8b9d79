import Foundation
import PhotosyncModel

/// Everything that can go wrong in the store, each case naming the file concerned so that a user
/// can act on the message alone. The failures a user can act on differently are cases of their
/// own, told apart by the database's result code, never by its message: a full disk, a database
/// another process keeps locked, a damaged file, a search the index cannot parse. The command
/// line gives each its exit code (README's table).
public enum StoreError: Error, Sendable, Equatable, LocalizedError {
    /// `openExisting` found no file at `path` (and created none).
    case missing(path: String)
    /// The database file could not be created or opened (permissions, missing directory, ...).
    case cannotOpen(path: String, reason: String)
    /// The file is not an SQLite database, or is one that photosync did not create.
    case notAPhotosyncDatabase(path: String)
    /// The database was migrated by a newer photosync whose schema this build does not know.
    case newerSchema(path: String)
    /// `openExisting` (which never writes) found a database that still needs migrating.
    case olderSchema(path: String)
    /// No photo with this id exists.
    case unknownPhoto(path: String, photoID: String)
    /// No image job exists for this photo and variant: jobs are created by `commitPage` and
    /// `enqueueMissingImages`.
    case unknownImageJob(path: String, photoID: String, variant: ImageVariant)
    /// SQLite's incremental blob I/O addresses bytes with 32-bit offsets.
    case imageTooLarge(photoID: String, variant: ImageVariant, byteCount: Int64)
    /// The downloaded file did not hold the announced number of bytes; nothing was stored.
    case imageSizeMismatch(file: String, expected: Int64, actual: Int64)
    /// The downloaded file could not be read.
    case cannotReadImageFile(file: String, reason: String)
    /// The destination of `writeImage` could not be created or written.
    case cannotWriteImageFile(file: String, reason: String)
    /// The disk (or the database's size limit) has no room for a write (SQLite's `SQLITE_FULL`);
    /// the transaction was rolled back.
    case diskFull(path: String, operation: String)
    /// Another connection kept the database locked for longer than the store waits
    /// (`SQLITE_BUSY`, `SQLITE_LOCKED`): nothing was changed, and trying again may pass.
    case busy(path: String, operation: String)
    /// SQLite found the file damaged (`SQLITE_CORRUPT`): a page or an index does not read as
    /// written.
    case corrupt(path: String, operation: String)
    /// Any other database failure, with what the store was doing at the time: `code` is the
    /// database's own code for it (SQLite's extended result code), nil when the failure was not
    /// the database's; `reason` is its message, without the statement.
    case databaseFailure(path: String, operation: String, code: Int32?, reason: String)
    /// A full-text search not in the search syntax (``SearchExpression``): a mistake in the
    /// input, not the database.
    case invalidSearch(String)
    /// A read stopped because the task that asked for it was cancelled (a client that left).
    case interrupted(path: String)
    /// The database's server could not be reached, or lost the connection, for longer than the
    /// store waits for it to come back: trying again later may pass.
    case unavailable(path: String, reason: String)
    /// The database's server refused the login (a wrong password, or a user it does not know).
    case loginRefused(path: String, reason: String)
    /// Another `photosync run` took the writer lease of the database at `path` (a standby, after
    /// this process stopped renewing it): this process wrote nothing since, and writes no more.
    case writerLeaseLost(path: String)
    /// A connection to the database's server cannot be made as configured, and trying again
    /// will not change that: TLS that does not check out (a certificate signed by no CA given,
    /// for another host, a client certificate the server refuses), a certificate file that
    /// cannot be read, a connection pooler photosync cannot work behind.
    case connectionMisconfigured(path: String, reason: String)
    /// The database is a read-only standby (a replica), and what was asked writes: `serve` on a
    /// replica without `primary_database` records no requests.
    case readOnlyStandby(path: String, operation: String)

    public var errorDescription: String? {
        switch self {
        case .missing(let path):
            return "no database at \(path) (`photosync run` creates it)"
        case .cannotOpen(let path, let reason):
            return "cannot open database at \(path): \(reason)"
        case .notAPhotosyncDatabase(let path):
            return "\(path) is not a photosync database"
        case .newerSchema(let path):
            return "the database at \(path) was written by a newer photosync; upgrade photosync to use it"
        case .olderSchema(let path):
            return
                "the database at \(path) has not been set up or upgraded for this photosync; run `photosync run` once to migrate it"
        case .unknownPhoto(let path, let photoID):
            return "no photo \(photoID) in the database at \(path)"
        case .unknownImageJob(let path, let photoID, let variant):
            return "no \(variant) image job for photo \(photoID) in the database at \(path)"
        case .imageTooLarge(let photoID, let variant, let byteCount):
            return
                "the \(variant) image of photo \(photoID) is \(byteCount) bytes, more than the 2 GiB SQLite can store in one blob"
        case .imageSizeMismatch(let file, let expected, let actual):
            return "\(file) holds \(actual) bytes, expected \(expected); the image was not stored"
        case .cannotReadImageFile(let file, let reason):
            return "cannot read image file \(file): \(reason)"
        case .cannotWriteImageFile(let file, let reason):
            return "cannot write image to \(file): \(reason)"
        case .diskFull(let path, let operation):
            return "the disk holding the database at \(path) is full: nothing was written while \(operation)"
        case .busy(let path, let operation):
            return
                "the database at \(path) stayed locked by another connection while \(operation); nothing was changed, try again"
        case .corrupt(let path, let operation):
            return
                "the database at \(path) is damaged (found while \(operation)); `photosync verify` checks it, a backup restores it"
        case .databaseFailure(let path, let operation, _, let reason):
            return "database error at \(path) while \(operation): \(reason)"
        case .invalidSearch(let text):
            return "cannot search for '\(text.prefix(200))': use words, \"quoted phrases\", prefix* and AND, OR, NOT"
        case .interrupted(let path):
            return "a read of the database at \(path) was interrupted: its caller no longer waited for it"
        case .unavailable(let path, let reason):
            return "the database server of \(path) cannot be reached: \(reason); try again once it is back"
        case .loginRefused(let path, let reason):
            return
                "the database server of \(path) refused the login: \(reason) (the password comes from PGPASSWORD, "
                + "the systemd credential database-password, or ~/.pgpass)"
        case .writerLeaseLost(let path):
            return "another photosync run took the writer lease of \(path): this one no longer writes it"
        case .connectionMisconfigured(let path, let reason):
            return "cannot connect to the database server of \(path): \(reason)"
        case .readOnlyStandby(let path, let operation):
            return "the database at \(path) is a read-only standby: nothing was written while \(operation)"
        }
    }
}
