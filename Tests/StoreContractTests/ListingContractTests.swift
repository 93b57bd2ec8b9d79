import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Listing photos, on every store")
struct ListingContractTests {
    /// Three photos: a landscape one by ann, a portrait and a square one by bob, created a day
    /// apart, with different likes.
    static func records() -> [PhotoRecord] {
        var landscape = Sample.photo("land", likes: 5, width: 4000)
        landscape.userUsername = "ann"
        landscape.createdAt = Instant.t(0)
        var portrait = Sample.photo("port", likes: 50, width: 2000)
        portrait.userUsername = "bob"
        portrait.createdAt = Instant.t(86_400)
        var square = Sample.photo("square", likes: 20, width: 3000)
        square.userUsername = "Bob"
        square.createdAt = Instant.t(2 * 86_400)
        return [landscape, portrait, square]
    }

    @Test("filters by photographer, orientation and creation date, and sorts and pages", arguments: Backend.allCases)
    func filtersSortsAndPages(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.records())
            func ids(_ query: PhotoQuery) async throws -> [String] {
                try await store.catalog.photos(matching: query).map(\.id)
            }

            #expect(try await ids(PhotoQuery()) == ["square", "port", "land"])
            #expect(try await ids(PhotoQuery(sort: .oldest)) == ["land", "port", "square"])
            #expect(try await ids(PhotoQuery(sort: .likes)) == ["port", "square", "land"])
            #expect(try await ids(PhotoQuery(username: "BOB")) == ["square", "port"])
            #expect(try await ids(PhotoQuery(orientation: .landscape)) == ["land"])
            #expect(try await ids(PhotoQuery(orientation: .portrait)) == ["port"])
            #expect(try await ids(PhotoQuery(orientation: .squarish)) == ["square"])
            #expect(try await ids(PhotoQuery(since: Instant.t(86_400))) == ["square", "port"])
            #expect(try await ids(PhotoQuery(until: Instant.t(86_400))) == ["land"])
            #expect(try await ids(PhotoQuery(limit: 1, offset: 1)) == ["port"])
            #expect(try await ids(PhotoQuery(username: "nobody")).isEmpty)
        }
    }

    @Test("a listed photo carries its stored image, and none when it has none", arguments: Backend.allCases)
    func carriesTheStoredImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.records())
            let bytes = Data([0xFF, 0xD8, 0xFF, 1, 2, 3])
            try await store.archive.storeImage(
                photoID: "port", variant: Sample.variant, contentType: "image/jpeg", data: bytes,
                sha256: String(repeating: "ab", count: 32), fetchedAt: Instant.t(10))
            let listed = try await store.catalog.photos(matching: PhotoQuery())
            #expect(listed.first { $0.id == "port" }?.image?.byteCount == 6)
            #expect(listed.first { $0.id == "port" }?.image?.sha256 == String(repeating: "ab", count: 32))
            #expect(listed.first { $0.id == "land" }?.image == nil)
        }
    }

    @Test("a value is bound, never spliced into the SQL", arguments: Backend.allCases)
    func valuesAreBound(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.records())
            #expect(try await store.catalog.photos(matching: PhotoQuery(username: "ann' OR '1'='1")).isEmpty)
        }
    }
}
