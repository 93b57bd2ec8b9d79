import Crypto
import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Verifying a SQLite file: bytes damaged behind its back")
struct VerificationTests {
    private func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Photos a, b and c, each with its regular image stored under its true SHA-256; c's is
    /// larger than one blob chunk, so hashing crosses chunk boundaries.
    private func storeThree(_ store: PhotoStore) async throws {
        try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
        for (id, count) in [("a", 1000), ("b", 2000), ("c", ImageBlob.chunkSize * 2 + 17)] {
            let bytes = Sample.bytes(count: count, seed: UInt64(count))
            try await store.archive.storeImage(
                photoID: id, variant: Sample.variant, contentType: "image/jpeg", data: bytes,
                sha256: sha256(bytes), fetchedAt: Instant.t(10))
        }
    }

    private func imageID(_ store: PhotoStore, _ photoID: String) async throws -> Int64 {
        try await store.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM image WHERE photo_id = ?", arguments: [photoID])!
        }
    }

    @Test("bytes changed behind the store's back are named with their photo")
    func corruptedBytes() async throws {
        try await withStore { store, _ in
            try await storeThree(store)
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
            try await storeThree(store)
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
            try await storeThree(store)
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
