import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Paging on SQLite: pages read as ranges of an index")
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

    @Test("a deep page and a photographer's page are read from an index in order, never sorted")
    func pagesAreRangesOfAnIndex() async throws {
        try await withStore { store, _ in
            try await store.ledger.commit(Self.records())
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
