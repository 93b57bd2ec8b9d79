import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// `verify` (``ImageArchive/verify(progress:)``) on a sound database, on every store.
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
}
