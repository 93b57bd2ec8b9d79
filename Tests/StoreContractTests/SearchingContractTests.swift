import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Full-text search, on every store")
struct SearchingContractTests {

    func ids(_ store: PhotoStore, _ text: String, sort: PhotoQuery.Sort = .relevance) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: sort)).map(\.id)
    }

    @Test("words, phrases, prefixes, names, locations and tags, best match first", arguments: Backend.allCases)
    func searches(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Sample.searchPhotos())
            #expect(Set(try await ids(store, "mountain")) == ["lake", "city"])
            #expect(try await ids(store, "mountains") == ["forest", "lake"], "the most mentions rank first")
            #expect(try await ids(store, "\"mountain lake\"") == ["lake"])
            #expect(Set(try await ids(store, "mount*")) == ["lake", "city", "forest"])
            #expect(try await ids(store, "stone") == ["city"], "the photographer's name")
            #expect(try await ids(store, "zurich") == ["city"], "the location, without its diacritics")
            #expect(try await ids(store, "neon") == ["city"], "a tag title")
            #expect(try await ids(store, "dawn water") == ["lake"], "every word must match, across fields")
            #expect(try await ids(store, "volcano").isEmpty)
        }
    }

    @Test("input FTS5 cannot parse is an invalid search, not a database failure", arguments: Backend.allCases)
    func badInput(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Sample.searchPhotos())
            for text in ["\"unclosed", "AND", "mount* OR", "("] {
                await #expect(throws: StoreError.invalidSearch(text)) { try await ids(store, text) }
            }
        }
    }

    @Test(
        "FTS5's column filters are no syntax of photosync's: their words are searched, in every listing",
        arguments: Backend.allCases)
    func columnFilter(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            var photo = Sample.photo("a")
            photo.description = "nosuchcolumn, word"
            try await store.ledger.commit([photo, Sample.photo("b")])
            // As on PostgreSQL, which has no column filters: the words, not an invalid search.
            let text = "nosuchcolumn: word"
            for sort in [PhotoQuery.Sort.relevance, .newest] {
                #expect(try await store.catalog.photos(matching: PhotoQuery(text: text, sort: sort)).map(\.id) == ["a"])
            }
            #expect(try await store.catalog.count(matching: PhotoQuery(text: text)) == 1)
        }
    }
}
