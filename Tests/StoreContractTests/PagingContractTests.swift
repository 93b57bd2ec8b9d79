import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Paging through a listing, on every store")
struct PagingContractTests {
    /// 23 photos by three photographers, created on 8 distinct days (so that many share a date and
    /// the sequence breaks the tie), one without a date, with likes that repeat, one without likes.
    static func records() -> [PhotoRecord] {
        (0..<23).map { index in
            var photo = Sample.photo(String(format: "p%02d", index), likes: index % 5)
            photo.createdAt = index == 7 ? nil : Instant.t(Double((index * 5) % 8) * 86_400)
            if index == 11 { photo.likes = nil }
            photo.userUsername = ["ann", "Bob", "bob"][index % 3]
            return photo
        }
    }

    /// The store's catalog; on SQLite, whose listing limits a test may set, with an anchor every
    /// 2 photos, so that a few photos have many anchors.
    static func catalog(_ store: PhotoStore, smallSource: Int = 2_000) -> any PhotoCatalog {
        guard var catalog = store.catalog as? SQLitePhotoCatalog else { return store.catalog }
        catalog.limits.anchorInterval = 2
        catalog.limits.smallSource = smallSource
        return catalog
    }

    func ids(_ catalog: PhotoCatalog, _ query: PhotoQuery) async throws -> [String] {
        try await catalog.photos(matching: query).map(\.id)
    }

    @Test("every page by number holds the photos the whole listing has at its offset", arguments: Backend.allCases)
    func pagesByNumberMatchTheWholeListing(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.records())
            let catalog = Self.catalog(store)
            for sort in [PhotoQuery.Sort.newest, .oldest, .likes] {
                for username in [nil, "BOB"] {
                    let all = try await ids(catalog, PhotoQuery(username: username, sort: sort))
                    #expect(all.count == (username == nil ? 23 : 15))
                    for offset in 0...all.count + 3 {
                        let page = try await ids(
                            catalog, PhotoQuery(username: username, sort: sort, limit: 3, offset: offset))
                        #expect(page == Array(all.dropFirst(offset).prefix(3)), "\(sort) \(username ?? "") \(offset)")
                    }
                }
            }
        }
    }

    @Test(
        "a page after or before a photo is the one next to it, and an unknown photo is an error",
        arguments: Backend.allCases)
    func pagesByKey(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.records())
            let catalog = Self.catalog(store)
            for sort in [PhotoQuery.Sort.newest, .oldest, .likes] {
                let all = try await ids(catalog, PhotoQuery(sort: sort))
                for (index, id) in all.enumerated() {
                    let after = try await ids(catalog, PhotoQuery(sort: sort, limit: 4, after: id))
                    #expect(after == Array(all.dropFirst(index + 1).prefix(4)), "\(sort) after \(id)")
                    let before = try await ids(catalog, PhotoQuery(sort: sort, limit: 4, before: id))
                    #expect(before == Array(all.prefix(index).suffix(4)), "\(sort) before \(id)")
                }
            }
            await #expect(throws: StoreError.unknownPhoto(path: store.path, photoID: "nope")) {
                try await ids(catalog, PhotoQuery(limit: 4, after: "nope"))
            }
        }
    }

    @Test("a source's pages are right whether it is small, large or holds every photo", arguments: Backend.allCases)
    func sourcePages(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let records = Self.records()
            try await store.ledger.commit(records)
            try await store.ledger.commitPage(
                records.filter { $0.userUsername == "ann" }, variant: Sample.variant, source: .user("ann"),
                now: Instant.t0
            ) { _ in .backfill(next: nil) }
            for smallSource in [2_000, 1] {
                let catalog = Self.catalog(store, smallSource: smallSource)
                let all = try await ids(catalog, PhotoQuery())
                let ann = try await ids(catalog, PhotoQuery(username: "ann"))
                #expect(ann.count == 8)
                for offset in 0...9 {
                    let feed = try await ids(catalog, PhotoQuery(source: "feed", limit: 3, offset: offset))
                    #expect(feed == Array(all.dropFirst(offset).prefix(3)), "feed \(offset) \(smallSource)")
                    let user = try await ids(catalog, PhotoQuery(source: "user:ann", limit: 3, offset: offset))
                    #expect(user == Array(ann.dropFirst(offset).prefix(3)), "user:ann \(offset) \(smallSource)")
                }
            }
        }
    }

    @Test("a deep page follows the photos committed since the last one", arguments: Backend.allCases)
    func anchorsFollowCommits(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .zero) { store, reader in
            let records = Self.records()
            try await store.ledger.commit(Array(records.prefix(15)))
            let catalog = Self.catalog(reader)
            let before = try await ids(catalog, PhotoQuery(limit: 3, offset: 9))
            #expect(before == Array(try await ids(catalog, PhotoQuery()).dropFirst(9).prefix(3)))

            try await store.ledger.commit(Array(records.dropFirst(15)))

            let all = try await ids(catalog, PhotoQuery())
            #expect(all.count == 23)
            #expect(try await ids(catalog, PhotoQuery(limit: 3, offset: 9)) == Array(all.dropFirst(9).prefix(3)))
        }
    }
}
