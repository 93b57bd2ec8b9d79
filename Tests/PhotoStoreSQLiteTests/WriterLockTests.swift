import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("SQLite's writer lock file")
struct WriterLockTests {
    @Test("a second writer is refused at once, naming the PID that holds the lock")
    func secondWriterRefused() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("photos.sqlite").path
            let first = try WriterLock(forDatabaseAt: database)

            #expect(throws: WriterLockError.held(path: database + ".lock", pid: getpid())) {
                try WriterLock(forDatabaseAt: database)
            }
            #expect(WriterLockError.held(path: first.path, pid: 42).localizedDescription.contains("PID 42"))
            #expect(try posixPermissions(first.path) == 0o600)
            withExtendedLifetime(first) {}
        }
    }

    @Test("the lock is free again once its holder lets go, and the lock file stays")
    func releasedOnClose() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("photos.sqlite").path
            do {
                _ = try WriterLock(forDatabaseAt: database)
            }

            let second = try WriterLock(forDatabaseAt: database)

            #expect(FileManager.default.fileExists(atPath: second.path))
        }
    }

    @Test("a lock file that cannot be created is reported with its path")
    func cannotCreate() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("missing/photos.sqlite").path

            #expect(throws: WriterLockError.cannotLock(path: database + ".lock", reason: "No such file or directory")) {
                try WriterLock(forDatabaseAt: database)
            }
        }
    }
}
