import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The object a source lists the photos of, as Unsplash describes it: a collection
/// (`GET /collections/:id`), a topic (`GET /topics/:slug`) or a user's profile
/// (`GET /users/:username`, for both `user:` and `likes:` sources), kept in the source's row as
/// the JSON text the API sent.
extension SQLiteSyncLedger {
    func sourceObjectsFetched(sources: [PhotoSource]) async throws(StoreError) -> [PhotoSource: Date] {
        guard !sources.isEmpty else { return [:] }
        return try await database.read("reading when source objects were fetched") { db in
            var fetched: [PhotoSource: Date] = [:]
            for source in sources {
                let row = try Row.fetchOne(
                    db, sql: "SELECT object_fetched_at FROM source WHERE name = ? AND object_json IS NOT NULL",
                    arguments: [source.description])
                if let row, let date = try row.decodeDateIfPresent(forColumn: "object_fetched_at") {
                    fetched[source] = date
                }
            }
            return fetched
        }
    }

    func storeSourceObject(_ json: Data, sources: [PhotoSource], at now: Date) async throws(StoreError) {
        let names = sources.map(\.description)
        try await database.write("storing the object of \(names.joined(separator: ", "))") { db in
            for name in names {
                let id = try Self.sourceID(named: name, in: db)
                try db.execute(
                    sql: "UPDATE source SET object_json = ?, object_fetched_at = ? WHERE id = ?",
                    arguments: [String(decoding: json, as: UTF8.self), now.stored, id])
            }
        }
    }
}
