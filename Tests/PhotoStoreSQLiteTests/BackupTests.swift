import Crypto
import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Backing up a SQLite file (FileStorage)")
struct BackupTests {
    private func storeImages(_ store: PhotoStore, count: Int) async throws {
        _ = try await store.ledger.commit((0..<count).map { Sample.photo("p\($0)") })
        for index in 0..<count {
            let bytes = Sample.bytes(count: 40_000, seed: UInt64(index + 1))
            let sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            try await store.archive.storeImage(
                photoID: "p\(index)", variant: Sample.variant, contentType: "image/jpeg", data: bytes,
                sha256: sha256, fetchedAt: Instant.t(10))
        }
    }

    @Test("the copy is a photosync database with the same photos and images, and verifies clean")
    func copyVerifies() async throws {
        try await withStore { store, directory in
            // GIVEN a database with 20 images of 40 KB
            try await storeImages(store, count: 20)
            let copyPath = directory.appendingPathComponent("copy.sqlite").path
            var steps: [BackupProgress] = []

            // WHEN it is backed up a few pages at a time
            try store.sqliteStorage.backupBlocking(to: copyPath, pagesPerStep: 8) { steps.append($0) }

            // THEN the copy holds the same, verifies, and is one file in rollback-journal mode
            let copy = try PhotoStore.openExisting(path: copyPath)
            let original = try await store.catalog.statistics()
            let copied = try await copy.catalog.statistics()
            #expect(copied.photos == 20 && copied.imagesStored == 20 && copied.bytesStored == original.bytesStored)
            #expect(try await copy.archive.verify().isClean)
            let mode = try await copy.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "delete")
            #expect(!FileManager.default.fileExists(atPath: copyPath + "-wal"))
            #expect(steps.count > 2, "copied in steps of 8 pages")
            #expect(steps.last.map { $0.pagesCopied == $0.pagesTotal } == true)
        }
    }

    /// `photosync backup` reads through a read-only connection of its own (``PhotoStore/openExisting(path:readers:mapped:forSmallWrites:)``),
    /// `run` writes through another: SQLite restarts a backup whose source another connection
    /// wrote to, unless the backup's snapshot is held.
    @Test("a backup does not wait for a writer, and copies the snapshot of its first step")
    func writerGoesOnDuringTheBackup() async throws {
        try await withStore { store, directory in
            try await storeImages(store, count: 10)
            let copyPath = directory.appendingPathComponent("copy.sqlite").path
            let reader = try PhotoStore.openExisting(path: store.path)
            var wroteDuringBackup = false
            var steps: [BackupProgress] = []

            // WHEN another connection commits a photo between two steps of the backup
            try reader.sqliteStorage.backupBlocking(to: copyPath, pagesPerStep: 4) { step in
                steps.append(step)
                guard !wroteDuringBackup, step.pagesCopied < step.pagesTotal else { return }
                // The store's page commit is async; this callback is not: the same row, written directly.
                try? store.pool.write { db in
                    let late = PageCommitPlan.Planned(record: Sample.photo("late"), sequence: 1_000, isStored: false)
                    _ = try db.run([LedgerStatements.write(late, seenAt: Instant.t0)])
                }
                wroteDuringBackup = true
            }

            // THEN the write committed at once, the copy went on from where it was (it did not
            // start over) and is the consistent state before the write
            #expect(wroteDuringBackup)
            #expect(steps.map(\.pagesCopied) == steps.indices.map { min(4 * ($0 + 1), steps[0].pagesTotal) })
            #expect(try await store.catalog.statistics().photos == 11)
            let copy = try PhotoStore.openExisting(path: copyPath)
            #expect(try await copy.catalog.statistics().photos == 10)
            #expect(try await copy.archive.verify().isClean)
        }
    }
}
