import Foundation
import PhotoStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one-writer-per-database lock: an exclusive `flock` on `<database>.lock`, beside the
/// database, holding the PID of the process that holds it.
///
/// Only `photosync run` takes it; readers (`query`, `status`, `verify`) never look at it and are
/// never blocked. The kernel releases the lock when the process ends in any way, `kill -9`
/// included, so a stale lock file does not block the next run. The file is never removed:
/// removing a lock file while another process waits on it would let two writers in.
public final class WriterLock: Sendable {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    /// The lock file of the database at `databasePath`.
    public static func path(forDatabaseAt databasePath: String) -> String {
        databasePath + ".lock"
    }

    /// Takes the lock for the database at `databasePath` without waiting, creating the lock
    /// file (0600) if needed, and records this process's PID in it. Held until released or the
    /// process ends.
    ///
    /// - Throws: ``WriterLockError/held(path:pid:)`` when another process holds it,
    ///   ``WriterLockError/cannotLock(path:reason:)`` when the file cannot be opened or locked.
    public init(forDatabaseAt databasePath: String) throws(WriterLockError) {
        let path = Self.path(forDatabaseAt: databasePath)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .cannotLock(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.recordedPID(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .held(path: path, pid: holder) }
            throw .cannotLock(path: path, reason: String(cString: strerror(code)))
        }
        // The PID only helps a person find the holder: failing to write it leaves the lock held.
        _ = Data("\(getpid())\n".utf8).withUnsafeBytes { buffer in
            ftruncate(descriptor, 0) == 0 ? pwrite(descriptor, buffer.baseAddress, buffer.count, 0) : -1
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The PID the holder wrote, if it has written one yet.
    private static func recordedPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
