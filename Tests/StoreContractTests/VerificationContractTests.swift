import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStorePostgres
@testable import PhotoStoreSQLite

/// `verify` (``ImageArchive/verify(progress:)``) on a sound database and on one damaged behind the
/// store's back, on every store.
@Suite("Verifying a database, on every store")
struct VerificationContractTests {
    @Test("a sound database verifies clean, every stored image re-hashed, reading only", arguments: Backend.allCases)
    func clean(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .zero) { store, reader in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            var seen: [VerificationProgress] = []

            let report = try await reader.archive.verify { seen.append($0) }

            #expect(report.isClean)
            #expect(report.integrityErrors.isEmpty && report.problems.isEmpty)
            #expect(report.imagesChecked == 3)
            #expect(report.bytesChecked == Int64(1000 + 2000 + ImageBlob.chunkSize * 2 + 17))
            #expect(seen.map(\.imagesChecked) == [1, 2, 3] && seen.allSatisfy { $0.imagesTotal == 3 })
        }
    }

    /// The image of photo `id` (each photo of ``Sample/storeThree(_:largest:)`` has one).
    private static func image(_ id: String) -> String { "(SELECT id FROM image WHERE photo_id = '\(id)')" }

    @Test("bytes changed behind the store's back are named with their photo", arguments: Backend.allCases)
    func corruptedBytes(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            // Same length, one byte flipped past the first chunk (SQLite's, PostgreSQL's).
            let at = ImageBlob.chunkSize + 5
            try await behind.execute(
                sqlite: """
                    UPDATE image_data SET bytes = substr(bytes, 1, \(at))
                        || CASE WHEN substr(bytes, \(at + 1), 1) = x'00' THEN x'01' ELSE x'00' END
                        || substr(bytes, \(at + 2))
                    WHERE image_id = \(Self.image("c"))
                    """,
                postgres: """
                    UPDATE image_chunk SET bytes = set_byte(bytes, 5, get_byte(bytes, 5) # 255)
                    WHERE image_id = \(Self.image("c")) AND index = \(at / PostgresImageArchive.chunkBytes)
                    """)

            let report = try await store.archive.verify()

            #expect(!report.isClean)
            #expect(report.problems.map(\.kind) == [.sha256Mismatch])
            #expect(report.problems.first?.photoID == "c" && report.problems.first?.variant == Sample.variant)
        }
    }

    @Test("bytes of another length than recorded are a size mismatch", arguments: Backend.allCases)
    func truncatedBytes(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            try await behind.execute(
                sqlite: "UPDATE image_data SET bytes = substr(bytes, 1, 10) WHERE image_id = \(Self.image("a"))",
                postgres: """
                    UPDATE image_chunk SET bytes = substring(bytes FROM 1 FOR 10)
                    WHERE image_id = \(Self.image("a")) AND index = 0
                    """)

            let report = try await store.archive.verify()

            #expect(
                report.problems == [
                    VerificationProblem(
                        kind: .sizeMismatch, photoID: "a", variant: Sample.variant,
                        detail: "10 bytes stored, 1000 recorded")
                ])
        }
    }

    @Test(
        "bytes kept for an image that is not stored are orphaned; a stored image without bytes is missing them",
        arguments: Backend.allCases)
    func orphanedAndMissing(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await Sample.storeThree(store, largest: ImageBlob.chunkSize * 2 + 17)
            try await behind.execute("UPDATE image SET status = 'pending' WHERE photo_id = 'a'")
            try await behind.execute(
                sqlite: "DELETE FROM image_data WHERE image_id = \(Self.image("b"))",
                postgres: "DELETE FROM image_chunk WHERE image_id = \(Self.image("b"))")

            let report = try await store.archive.verify()

            #expect(report.problems.map(\.kind) == [.missingBytes, .orphanedBytes])
            #expect(report.problems.map(\.photoID) == ["b", "a"])
            #expect(report.imagesChecked == 1)
        }
    }
}
