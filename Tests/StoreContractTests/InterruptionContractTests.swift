import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Interrupting a read whose caller has gone, on every store")
struct InterruptionContractTests {
    /// Counts without end: a read that only an interruption stops.
    static let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"

    @Test("a listing whose task is cancelled before it reads answers interrupted", arguments: Backend.allCases)
    func cancelledListing(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            let listing = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await store.catalog.photos(matching: PhotoQuery())
            }
            await #expect(throws: StoreError.interrupted(path: store.path)) { try await listing.value }
            #expect(try await store.catalog.photos(matching: PhotoQuery()).count == 1)
        }
    }
}
