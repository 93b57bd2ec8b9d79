import Foundation
import GRDB
import PhotoStore

extension SQLiteStorage {
    /// Copies the database with SQLite's online backup API, 1024 pages at a time, on a thread
    /// of its own: see ``backupBlocking(to:pagesPerStep:progress:)``.
    func backup(
        to destination: String, progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws(StoreError) {
        let result: Result<Void, StoreError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(StoreError) in
                        try backupBlocking(to: destination, pagesPerStep: 1024, progress: progress)
                    })
            }
        }
        try result.get()
    }

    /// Copies this database, as it stands at the first step, into the SQLite file at
    /// `destination` with SQLite's online backup API, `pagesPerStep` pages at a time.
    ///
    /// The copy is read in one read transaction: the writer (`photosync run`, in WAL mode) is
    /// never blocked, and no write made meanwhile restarts the copy; the write-ahead log cannot
    /// be checkpointed past that snapshot until the copy ends. The copy is left in rollback
    /// journal mode, one self-contained file; `photosync run` switches it back to WAL.
    ///
    /// SQLite's backup step opens a read transaction of its own when none is open, and starts
    /// the copy over when another connection wrote since the last step: beside a `run` that
    /// commits every few milliseconds, it copied the whole file again and again until the
    /// writer paused, and slowed it by half. So the snapshot is taken by a read before the
    /// first step, and every step copies from it.
    ///
    /// - Parameters:
    ///   - destination: an empty or existing SQLite file, whose content is replaced.
    ///   - progress: called after each step.
    /// - Throws: `StoreError.databaseFailure` naming the destination when it cannot be written,
    ///   or this database when it cannot be read.
    func backupBlocking(
        to destination: String, pagesPerStep: Int32, progress: (BackupProgress) -> Void
    ) throws(StoreError) {
        let copy: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.label = "PhotoStore.backup"
            copy = try DatabaseQueue(path: destination, configuration: configuration)
        } catch {
            throw StoreError(error, path: destination, operation: "opening the backup")
        }
        defer { try? copy.close() }
        do {
            try withoutActuallyEscaping(progress) { progress in
                try copy.writeWithoutTransaction { destination in
                    try database.writer.read { source in
                        _ = try Int.fetchOne(source, sql: "SELECT count(*) FROM sqlite_schema")
                        try source.backup(to: destination, pagesPerStep: pagesPerStep) { step in
                            progress(
                                BackupProgress(
                                    pagesCopied: step.totalPageCount - step.remainingPageCount,
                                    pagesTotal: step.totalPageCount))
                        }
                    }
                }
            }
        } catch {
            throw StoreError(error, path: path, operation: "copying the database to \(destination)")
        }
        do {
            try copy.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            }
        } catch {
            throw StoreError(error, path: destination, operation: "finishing the backup")
        }
    }
}
