import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("A search ranks a bounded number of matches, on every store")
struct BoundedSearchContractTests {
    /// Six photos stored in this order (p0 first): p1, p3 and p5 mention "mountain" three
    /// times, the others once; "lake" is in p2 alone.
    static func records() -> [PhotoRecord] {
        (0..<6).map { index in
            var photo = Sample.photo("p\(index)")
            photo.description =
                index % 2 == 1 ? "mountain mountain mountain" : "a mountain" + (index == 2 ? " lake" : "")
            photo.altDescription = nil
            return photo
        }
    }

    func ids(_ catalog: PhotoCatalog, _ text: String, limit: Int? = nil, offset: Int = 0) async throws -> [String] {
        try await catalog.photos(matching: PhotoQuery(text: text, sort: .relevance, limit: limit, offset: offset))
            .map(\.id)
    }

    @Test("a ranking kept for the next page is made again once the database changes", arguments: Backend.allCases)
    func aKeptRankingFollowsTheData(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            for record in Self.records() { try await store.ledger.commit([record]) }
            let catalog = store.catalog
            #expect(try await ids(catalog, "lake", limit: 1) == ["p2"])
            #expect(try await ids(catalog, "lake", limit: 1, offset: 1) == [], "the same ranking, sliced")

            var record = Sample.photo("p6")
            record.description = "lake lake lake"
            try await store.ledger.commit([record])

            #expect(try await ids(catalog, "lake") == ["p6", "p2"])
            #expect(try await ids(catalog, "lake", limit: 1, offset: 1) == ["p2"])
        }
    }
}
