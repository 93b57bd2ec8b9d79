import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("SQLite's search ranks a bounded number of matches, its limit set low")
struct BoundedSearchTests {

    func ids(_ catalog: PhotoCatalog, _ text: String, limit: Int? = nil, offset: Int = 0) async throws -> [String] {
        try await catalog.photos(matching: PhotoQuery(text: text, sort: .relevance, limit: limit, offset: offset))
            .map(\.id)
    }

    @Test("within the bound the best hits come first; beyond it the most recently stored, on every page")
    func ranksWithinTheBound() async throws {
        try await withStore { store, _ in
            // One page each, so that each photo has its own sequence in this order.
            for record in Sample.rankedSearchPhotos() { try await store.ledger.commit([record]) }
            var catalog = store.sqliteCatalog
            catalog.limits.rankLimit = 6
            let ranked = try await ids(catalog, "mountain")
            #expect(Array(ranked.prefix(3)).sorted() == ["p1", "p3", "p5"], "the most mentions rank first")
            #expect(Array(ranked.suffix(3)).sorted() == ["p0", "p2", "p4"])
            for offset in 0...7 {
                #expect(
                    try await ids(catalog, "mountain", limit: 2, offset: offset)
                        == Array(ranked.dropFirst(offset).prefix(2)), "offset \(offset)")
            }

            catalog.limits.rankLimit = 5
            let unranked = try await ids(catalog, "mountain")
            #expect(unranked == ["p5", "p4", "p3", "p2", "p1", "p0"], "too many to rank: newest first")
            for offset in 0...7 {
                #expect(
                    try await ids(catalog, "mountain", limit: 2, offset: offset)
                        == Array(unranked.dropFirst(offset).prefix(2)), "offset \(offset)")
            }
            #expect(try await ids(catalog, "lake") == ["p2"], "a rare word is ranked as before")
            #expect(try await ids(catalog, "mountain lake") == ["p2"])
        }
    }
}
