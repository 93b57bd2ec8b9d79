import Foundation
import GRDB
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Paging through a listing")
struct PagingTests {
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

    /// The store's catalog with an anchor every 2 photos, so that a few photos have many anchors.
    static func catalog(_ store: PhotoStore, smallSource: Int = 2_000) -> SQLitePhotoCatalog {
        var catalog = store.sqliteCatalog
        catalog.limits.anchorInterval = 2
        catalog.limits.smallSource = smallSource
        return catalog
    }

    func ids(_ catalog: PhotoCatalog, _ query: PhotoQuery) async throws -> [String] {
        try await catalog.photos(matching: query).map(\.id)
    }

    @Test("every page by number holds the photos the whole listing has at its offset")
    func pagesByNumberMatchTheWholeListing() async throws {
        try await withStore { store, _ in
            try await store.commit(Self.records())
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

    @Test("a page after or before a photo is the one next to it, and an unknown photo is an error")
    func pagesByKey() async throws {
        try await withStore { store, _ in
            try await store.commit(Self.records())
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

    @Test("a deep page follows the photos committed since the last one")
    func anchorsFollowCommits() async throws {
        try await withStore { store, _ in
            let records = Self.records()
            try await store.commit(Array(records.prefix(15)))
            let reader = try PhotoStore.openExisting(path: store.path)
            let catalog = Self.catalog(reader)
            let before = try await ids(catalog, PhotoQuery(limit: 3, offset: 9))
            #expect(before == Array(try await ids(catalog, PhotoQuery()).dropFirst(9).prefix(3)))

            try await store.commit(Array(records.dropFirst(15)))

            let all = try await ids(catalog, PhotoQuery())
            #expect(all.count == 23)
            #expect(try await ids(catalog, PhotoQuery(limit: 3, offset: 9)) == Array(all.dropFirst(9).prefix(3)))
        }
    }

    @Test("a source's pages are right whether it is small, large or holds every photo")
    func sourcePages() async throws {
        try await withStore { store, _ in
            let records = Self.records()
            try await store.commit(records)
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

    @Test("a deep page and a photographer's page are read from an index in order, never sorted")
    func pagesAreRangesOfAnIndex() async throws {
        try await withStore { store, _ in
            try await store.commit(Self.records())
            let reader = try PhotoStore.openExisting(path: store.path)
            let catalog = Self.catalog(reader)
            let log = QueryPlanTests.StatementLog()
            try await reader.pool.writeWithoutTransaction { db in db.trace { log.record($0) } }

            _ = try await catalog.photos(matching: PhotoQuery(limit: 3, offset: 20))
            _ = try await catalog.photos(matching: PhotoQuery(limit: 3, after: "p05"))
            _ = try await catalog.photos(matching: PhotoQuery(limit: 3, before: "p05"))
            _ = try await catalog.photos(matching: PhotoQuery(sort: .oldest, limit: 3, offset: 20))
            _ = try await catalog.photos(matching: PhotoQuery(sort: .likes, limit: 3, offset: 20))
            _ = try await catalog.photos(matching: PhotoQuery(username: "bob", limit: 3, offset: 8))

            let pages = Set(log.all.filter { $0.hasPrefix("SELECT photo.rowid") })
            #expect(pages.count >= 6, "\(pages)")
            for sql in pages {
                let plan = try await reader.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                let text = plan.joined(separator: "\n")
                #expect(!text.contains("TEMP B-TREE"), "\(sql)\n\(text)")
                #expect(text.contains("USING COVERING INDEX photo_"), "\(sql)\n\(text)")
                // A page that starts at a key (an anchor, a cursor) seeks it in the index.
                if sql.contains("(photo.created_at, photo.sequence) ") {
                    #expect(text.contains("SEARCH photo USING COVERING INDEX photo_"), "\(sql)\n\(text)")
                }
            }
        }
    }
}
