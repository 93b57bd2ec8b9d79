import ArgumentParser

/// The exit statuses photosync promises to scripts and to systemd (`RestartPreventExitStatus=`).
///
/// The values follow BSD `sysexits.h`, so a unit can tell "fix the configuration" (78) from
/// "the network was down" (69). Throw ``exitCode`` from a command's `run()`.
public struct PhotosyncExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: the command did what it was asked.
    public static let success = PhotosyncExitCode(rawValue: 0)
    /// 1: `query` found no photo with the requested id.
    public static let notFound = PhotosyncExitCode(rawValue: 1)
    /// 64 (`EX_USAGE`): bad command line, including no access key given anywhere.
    public static let usage = PhotosyncExitCode(rawValue: 64)
    /// 65 (`EX_DATAERR`): `verify` found an image whose bytes are not as recorded, or a damaged file.
    public static let dataError = PhotosyncExitCode(rawValue: 65)
    /// 69 (`EX_UNAVAILABLE`): the Unsplash API stayed unreachable after retries (`run --once`).
    public static let unavailable = PhotosyncExitCode(rawValue: 69)
    /// 73 (`EX_CANTCREAT`): another `photosync run` holds the database's writer lock.
    public static let writerLockHeld = PhotosyncExitCode(rawValue: 73)
    /// 73 (`EX_CANTCREAT`) too: `export` cannot create or write its directory.
    public static let cannotCreate = PhotosyncExitCode(rawValue: 73)
    /// 74 (`EX_IOERR`): the database could not be read or written.
    public static let ioError = PhotosyncExitCode(rawValue: 74)
    /// 75 (`EX_TEMPFAIL`): `run --once` finished, but some images are not stored, or pages paused
    /// below the disk floor; or another program kept the database locked past the wait. Try again
    /// later.
    public static let tempFailure = PhotosyncExitCode(rawValue: 75)
    /// 77 (`EX_NOPERM`): Unsplash rejected the access key (HTTP 401).
    public static let noPermission = PhotosyncExitCode(rawValue: 77)
    /// 78 (`EX_CONFIG`): a setting, the configuration file or the access key file is unusable.
    public static let config = PhotosyncExitCode(rawValue: 78)
    /// 70 (`EX_SOFTWARE`): an internal error, a bug.
    public static let internalError = PhotosyncExitCode(rawValue: 70)

    /// The same status as argument-parser's `ExitCode`, to throw from `run()`.
    public var exitCode: ExitCode { ExitCode(rawValue) }

    public var description: String { "\(rawValue)" }
}
