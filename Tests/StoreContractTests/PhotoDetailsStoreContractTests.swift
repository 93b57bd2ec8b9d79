import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Photos' full objects (photo_details), on every store")
struct PhotoDetailsStoreContractTests {
    static let full = Data(
        #"{"id":"a","exif":{"make":"Leica"},"location":{"name":"Cappadocia, Türkei","city":"Göreme","country":"Türkei"},"tags":[{"type":"search","title":"balloon"},{"type":"search","title":"sunrise"}]}"#
            .utf8)

    func ids(_ store: PhotoStore, _ text: String) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id)
    }

    @Test(
        "a full object is kept as sent, with when it was fetched; an unknown photo stores nothing",
        arguments: Backend.allCases)
    func storedAsSent(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await store.photoDetails.details(photoID: "a") == nil)

            #expect(try await store.photoDetails.store(Self.full, photoID: "a", at: Instant.t0))
            #expect(try await !store.photoDetails.store(Self.full, photoID: "nobody", at: Instant.t0))

            let stored = try await store.photoDetails.details(photoID: "a")
            #expect(stored == StoredPhotoDetails(json: Self.full, fetchedAt: Instant.t0))
            #expect(try await store.photoDetails.details(photoID: "nobody") == nil)
        }
    }

    @Test(
        "the full objects of several photos are read at once, by id; those without one are left out",
        arguments: Backend.allCases)
    func severalAtOnce(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await store.photoDetails.store(Self.full, photoID: "a", at: Instant.t0)
            try await store.photoDetails.store(Data(#"{"id":"c"}"#.utf8), photoID: "c", at: Instant.t0)
            // A request recorded for b stores no object for it.
            let requests = try store.storage.openPhotoDetailsRequests()
            _ = try await requests.record(photoID: "b", at: Instant.t0)
            try requests.close()

            let found = try await store.photoDetails.details(photoIDs: ["a", "b", "c", "a", "nobody"])

            #expect(found.keys.sorted() == ["a", "c"])
            #expect(found["a"] == StoredPhotoDetails(json: Self.full, fetchedAt: Instant.t0))
            #expect(found["c"]?.json == Data(#"{"id":"c"}"#.utf8))
            #expect(try await store.photoDetails.details(photoIDs: []).isEmpty)
        }
    }

    @Test("text that is not JSON is refused and changes nothing", arguments: Backend.allCases)
    func notJSONRefused(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            await #expect(throws: StoreError.self) {
                try await store.photoDetails.store(Data("{nope".utf8), photoID: "a", at: Instant.t0)
            }
            #expect(try await store.photoDetails.details(photoID: "a") == nil)
        }
    }

    @Test(
        "search finds a photo by its details' city, country and tags once they are stored", arguments: Backend.allCases)
    func searchFindsDetails(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            for word in ["goreme", "türkei", "balloon", "sunrise"] {
                #expect(try await ids(store, word).isEmpty, "\(word) is in no photo yet")
            }

            try await store.photoDetails.store(Self.full, photoID: "a", at: Instant.t0)

            #expect(try await ids(store, "goreme") == ["a"], "the city, without its diacritics")
            #expect(try await ids(store, "turkei") == ["a"], "the country")
            #expect(try await ids(store, "cappadocia") == ["a"], "the place's name")
            #expect(try await ids(store, "balloon") == ["a"], "a tag")
            #expect(try await ids(store, "\"photo a\"") == ["a"], "the list version's columns stay searchable")

            // AND a later commit of the same photo's list version keeps the details' words
            var again = Sample.photo("a", revision: 1)
            again.description = "photo a again"
            try await store.ledger.commit([again])
            #expect(try await ids(store, "balloon") == ["a"])
            #expect(try await ids(store, "again") == ["a"])
        }
    }

    @Test(
        "pending: the requested first, then with all every photo without details, newest first",
        arguments: Backend.allCases)
    func pendingOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("old"), Sample.photo("mid"), Sample.photo("new")])
            #expect(try await store.photoDetails.pending(.requested, limit: 10).isEmpty)
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["new", "mid", "old"])

            let requests = try store.storage.openPhotoDetailsRequests()
            #expect(try await requests.record(photoID: "old", at: Instant.t0))
            #expect(try await requests.record(photoID: "old", at: Instant.t(5)), "asked again: still one request")
            #expect(try await !requests.record(photoID: "nobody", at: Instant.t0))
            try requests.close()

            #expect(try await store.photoDetails.isRequested(photoID: "old"))
            #expect(try await store.photoDetails.pending(.requested, limit: 10) == ["old"])
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["old", "new", "mid"])
            #expect(try await store.photoDetails.pending(.all, limit: 2) == ["old", "new"])

            try await store.photoDetails.store(Self.full, photoID: "old", at: Instant.t0)
            try await store.photoDetails.store(Self.full, photoID: "new", at: Instant.t0)
            #expect(try await !store.photoDetails.isRequested(photoID: "old"))
            #expect(try await store.photoDetails.pending(.requested, limit: 10).isEmpty)
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["mid"])
            _ = directory
        }
    }

    @Test(
        "serve records a request on a database the sync has open, read-only store beside it",
        arguments: Backend.allCases)
    func requestBesideReadOnlyStore(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .zero) { store, reader in
            try await store.ledger.commit([Sample.photo("a")])
            let requests = try store.storage.openPhotoDetailsRequests()
            #expect(try await requests.record(photoID: "a", at: Instant.t0))
            #expect(try await reader.photoDetails.isRequested(photoID: "a"))
            try requests.close()
        }
    }
}
