import Foundation
import PhotoStore
import TestSupport
import Testing

/// The storage every database has (``StoreStorage``): who writes, and whether it is a standby.
@Suite("The storage, on every store")
struct StorageContractTests {
    @Test(
        "a database no run has written has no writer lease, and one that takes writes is no standby",
        arguments: Backend.allCases)
    func noLeaseAndNoStandby(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            #expect(try await store.storage.writerLease() == nil)
            #expect(try await store.storage.standby() == nil)
        }
    }

    @Test("a closed store refuses every later read and write", arguments: Backend.allCases)
    func aClosedStoreRefusesEverything(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])

            try store.close()

            await #expect(throws: StoreError.self) { try await store.catalog.photo(id: "a") }
            await #expect(throws: StoreError.self) { try await store.ledger.commit([Sample.photo("b")]) }
            await #expect(throws: StoreError.self) { try await store.imageQueue.imageCounts(variants: [.regular]) }
        }
    }
}
