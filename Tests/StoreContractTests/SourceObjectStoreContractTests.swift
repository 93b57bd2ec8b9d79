import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("The objects sources list the photos of, on every store")
struct SourceObjectStoreContractTests {
    @Test(
        "an object is kept per source with when it was fetched; the newest of several is read",
        arguments: Backend.allCases)
    func storedPerSourceNewestRead(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            // GIVEN ann's profile stored for both her sources, then a newer one for her likes only
            try await store.ledger.storeSourceObject(
                Data(#"{"id":"u1","name":"Ann"}"#.utf8), sources: [.user("ann"), .likes("ann")], at: Instant.t0)
            try await store.ledger.storeSourceObject(
                Data(#"{"id":"u1","name":"Ann B."}"#.utf8), sources: [.likes("ann")], at: Instant.t(1))

            // THEN each source knows when its object was fetched; a source without one is absent
            let fetched = try await store.ledger.sourceObjectsFetched(sources: [.user("ann"), .likes("ann"), .feed])
            #expect(fetched == [.user("ann"): Instant.t0, .likes("ann"): Instant.t(1)])
            // AND the newest of the two is the one served, the text as it was given
            let newest = try await store.catalog.sourceObject(ofAny: [.user("ann"), .likes("ann")])
            #expect(newest == Data(#"{"id":"u1","name":"Ann B."}"#.utf8))
            #expect(try await store.catalog.sourceObject(ofAny: [.collection("1")]) == nil)
        }
    }

    @Test("text that is not JSON is refused and changes nothing", arguments: Backend.allCases)
    func notJSONIsRefused(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            await #expect(throws: StoreError.self) {
                try await store.ledger.storeSourceObject(
                    Data("{not json".utf8), sources: [.collection("1")], at: Instant.t0)
            }
            #expect(try await store.ledger.sourceObjectsFetched(sources: [.collection("1")]).isEmpty)
        }
    }
}
