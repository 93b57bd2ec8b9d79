import Crypto
import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// `verify` (``ImageArchive/verify(progress:)``) on a sound database, on every store.
@Suite("Verifying a database, on every store")
struct VerificationContractTests {
    private func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Photos a, b and c, each with its regular image stored under its true SHA-256; c's is
    /// larger than one of SQLite's blob chunks, so hashing crosses chunk boundaries.
    private func storeThree(_ store: PhotoStore) async throws {
        try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
        for (id, count) in [("a", 1000), ("b", 2000), ("c", ImageBlob.chunkSize * 2 + 17)] {
            let bytes = Sample.bytes(count: count, seed: UInt64(count))
            try await store.archive.storeImage(
                photoID: id, variant: Sample.variant, contentType: "image/jpeg", data: bytes,
                sha256: sha256(bytes), fetchedAt: Instant.t(10))
        }
    }

    @Test("a sound database verifies clean, every stored image re-hashed, reading only", arguments: Backend.allCases)
    func clean(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .zero) { store, reader in
            try await storeThree(store)
            var seen: [VerificationProgress] = []

            let report = try await reader.archive.verify { seen.append($0) }

            #expect(report.isClean)
            #expect(report.integrityErrors.isEmpty && report.problems.isEmpty)
            #expect(report.imagesChecked == 3)
            #expect(report.bytesChecked == Int64(1000 + 2000 + ImageBlob.chunkSize * 2 + 17))
            #expect(seen.map(\.imagesChecked) == [1, 2, 3] && seen.allSatisfy { $0.imagesTotal == 3 })
        }
    }
}
