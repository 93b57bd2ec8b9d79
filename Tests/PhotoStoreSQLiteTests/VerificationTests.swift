import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Verifying a SQLite file: bytes damaged behind its back")
struct VerificationTests {
    private func imageID(_ store: PhotoStore, _ photoID: String) async throws -> Int64 {
        try await store.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM image WHERE photo_id = ?", arguments: [photoID])!
        }
    }

    @Test("bytes changed behind the store's back are named with their photo")
    func corruptedBytes() async throws {
        try await withStore { store, _ in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            let id = try await imageID(store, "c")
            // Same length, one byte flipped past the first chunk.
            try await store.pool.write { db in
                var bytes = try Data.fetchOne(
                    db, sql: "SELECT bytes FROM image_data WHERE image_id = ?", arguments: [id])!
                bytes[ImageBlob.chunkSize + 5] ^= 0xFF
                try db.execute(sql: "UPDATE image_data SET bytes = ? WHERE image_id = ?", arguments: [bytes, id])
            }

            let report = try await store.archive.verify()

            #expect(!report.isClean)
            #expect(report.problems.map(\.kind) == [.sha256Mismatch])
            #expect(report.problems.first?.photoID == "c" && report.problems.first?.variant == Sample.variant)
        }
    }

    @Test("bytes of another length than recorded are a size mismatch")
    func truncatedBytes() async throws {
        try await withStore { store, _ in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            let id = try await imageID(store, "a")
            try await store.pool.write { db in
                try db.execute(
                    sql: "UPDATE image_data SET bytes = substr(bytes, 1, 10) WHERE image_id = ?", arguments: [id])
            }

            let report = try await store.archive.verify()

            #expect(
                report.problems == [
                    VerificationProblem(
                        kind: .sizeMismatch, photoID: "a", variant: Sample.variant,
                        detail: "10 bytes stored, 1000 recorded")
                ])
        }
    }

    @Test("bytes kept for an image that is not stored are orphaned; a stored image without bytes is missing them")
    func orphanedAndMissing() async throws {
        try await withStore { store, _ in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            let a = try await imageID(store, "a")
            let b = try await imageID(store, "b")
            try await store.pool.write { db in
                try db.execute(sql: "UPDATE image SET status = 'pending' WHERE id = ?", arguments: [a])
                try db.execute(sql: "DELETE FROM image_data WHERE image_id = ?", arguments: [b])
            }

            let report = try await store.archive.verify()

            #expect(report.problems.map(\.kind) == [.missingBytes, .orphanedBytes])
            #expect(report.problems.map(\.photoID) == ["b", "a"])
            #expect(report.imagesChecked == 1)
        }
    }
}
