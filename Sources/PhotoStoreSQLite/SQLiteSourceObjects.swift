import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The object a source lists the photos of, as Unsplash describes it: a collection
/// (`GET /collections/:id`), a topic (`GET /topics/:slug`) or a user's profile
/// (`GET /users/:username`, for both `user:` and `likes:` sources), kept in the source's row as
/// the JSON text the API sent.
extension SQLiteSyncLedger {

}

extension SQLitePhotoCatalog {
    func sourceObject(ofAny sources: [PhotoSource]) async throws(StoreError) -> Data? {
        guard !sources.isEmpty else { return nil }
        let names = sources.map(\.description)
        return try await database.read("reading the object of \(names.joined(separator: ", "))") { db in
            let placeholders = Array(repeating: "?", count: sources.count).joined(separator: ", ")
            return try Data.fetchOne(
                db,
                sql: """
                    SELECT CAST(object_json AS BLOB) FROM source
                    WHERE name IN (\(placeholders)) AND object_json IS NOT NULL
                    ORDER BY object_fetched_at DESC LIMIT 1
                    """,
                arguments: StatementArguments(names))
        }
    }

    func topic(objectIDOrSlug key: String) async throws(StoreError) -> PhotoSource? {
        let name = try await database.read("looking up the topic \(key)") { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT name FROM source
                    WHERE substr(name, 1, length(:prefix)) = :prefix AND object_json IS NOT NULL
                      AND (CAST(json_extract(object_json, '$.id') AS TEXT) = :key
                           OR CAST(json_extract(object_json, '$.slug') AS TEXT) = :key)
                    ORDER BY object_fetched_at DESC LIMIT 1
                    """,
                arguments: ["prefix": "topic:", "key": key])
        }
        // A name this version cannot read names no topic it could ask Unsplash for.
        return name.flatMap { try? PhotoSource(parsing: $0) }
    }
}
