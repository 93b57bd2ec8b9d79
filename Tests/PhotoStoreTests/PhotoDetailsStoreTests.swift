import Foundation
import GRDB
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Photos' full objects (photo_details)")
struct PhotoDetailsStoreTests {
    static let full = Data(
        #"{"id":"a","exif":{"make":"Leica"},"location":{"name":"Cappadocia, Türkei","city":"Göreme","country":"Türkei"},"tags":[{"type":"search","title":"balloon"},{"type":"search","title":"sunrise"}]}"#
            .utf8)

    func ids(_ store: PhotoStore, _ text: String) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id)
    }

    @Test("a full object is kept as sent, with when it was fetched; an unknown photo stores nothing")
    func storedAsSent() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await store.photoDetails.details(photoID: "a") == nil)

            #expect(try await store.photoDetails.store(Self.full, photoID: "a", at: Instant.t0))
            #expect(try await !store.photoDetails.store(Self.full, photoID: "nobody", at: Instant.t0))

            let stored = try await store.photoDetails.details(photoID: "a")
            #expect(stored == StoredPhotoDetails(json: Self.full, fetchedAt: Instant.t0))
            #expect(try await store.photoDetails.details(photoID: "nobody") == nil)
        }
    }

    @Test("the full objects of several photos are read at once, by id; those without one are left out")
    func severalAtOnce() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
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

    @Test("text that is not JSON is refused and changes nothing")
    func notJSONRefused() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a")])
            await #expect(throws: StoreError.self) {
                try await store.photoDetails.store(Data("{nope".utf8), photoID: "a", at: Instant.t0)
            }
            #expect(try await store.photoDetails.details(photoID: "a") == nil)
        }
    }

    @Test("search finds a photo by its details' city, country and tags once they are stored")
    func searchFindsDetails() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
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
            try await store.commit([again])
            #expect(try await ids(store, "balloon") == ["a"])
            #expect(try await ids(store, "again") == ["a"])
        }
    }

    @Test("pending: the requested first, then with all every photo without details, newest first")
    func pendingOrder() async throws {
        try await withStore { store, directory in
            try await store.commit([Sample.photo("old"), Sample.photo("mid"), Sample.photo("new")])
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

    @Test("a v14 database migrates: its photos stay findable by their list version's tags, then by their details")
    func migratesFromV14() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("photos.sqlite").path
            let pool = try DatabasePool(path: path)
            try Schema.migrator.migrate(pool, upTo: "v14 source objects")
            try await pool.write { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try db.execute(
                    sql: """
                        INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                        VALUES ('old', 1, 0, '{"id":"old","tags":[{"title":"harbour"}]}',
                                '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')
                        """)
            }
            try pool.close()

            let store = try PhotoStore(path: path)
            #expect(try await ids(store, "harbour") == ["old"])
            try await store.photoDetails.store(Self.full, photoID: "old", at: Instant.t0)
            #expect(try await ids(store, "balloon") == ["old"])
            #expect(try await ids(store, "harbour").isEmpty, "the full object's tags replace the list's")
        }
    }

    @Test("serve records a request on a database the sync has open, read-only store beside it")
    func requestBesideReadOnlyStore() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a")])
            let reader = try PhotoStore.openExisting(path: store.path)
            let requests = try store.storage.openPhotoDetailsRequests()
            #expect(try await requests.record(photoID: "a", at: Instant.t0))
            #expect(try await reader.photoDetails.isRequested(photoID: "a"))
            try requests.close()
        }
    }
}
