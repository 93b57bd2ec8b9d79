import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("A search ranks a bounded number of matches, on every store")
struct BoundedSearchContractTests {

    func ids(_ catalog: PhotoCatalog, _ text: String, limit: Int? = nil, offset: Int = 0) async throws -> [String] {
        try await catalog.photos(matching: PhotoQuery(text: text, sort: .relevance, limit: limit, offset: offset))
            .map(\.id)
    }

    @Test("a ranking kept for the next page is made again once the database changes", arguments: Backend.allCases)
    func aKeptRankingFollowsTheData(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            for record in Sample.rankedSearchPhotos() { try await store.ledger.commit([record]) }
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
