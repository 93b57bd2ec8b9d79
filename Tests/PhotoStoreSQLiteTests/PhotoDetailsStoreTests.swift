import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Photos' full objects on SQLite: a version 14 file, migrated")
struct PhotoDetailsStoreTests {
    static let full = Data(
        #"{"id":"a","exif":{"make":"Leica"},"location":{"name":"Cappadocia, Türkei","city":"Göreme","country":"Türkei"},"tags":[{"type":"search","title":"balloon"},{"type":"search","title":"sunrise"}]}"#
            .utf8)

    func ids(_ store: PhotoStore, _ text: String) async throws -> [String] {
        try await store.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id)
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
}
