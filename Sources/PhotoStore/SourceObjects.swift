import Foundation
import GRDB

/// The object a source lists the photos of, as Unsplash describes it: a collection
/// (`GET /collections/:id`), a topic (`GET /topics/:slug`) or a user's profile
/// (`GET /users/:username`, for both `user:` and `likes:` sources), kept in the source's row as
/// the JSON text the API sent.
extension SyncLedger {
    /// When the object of each of `sources` was last stored; a source without one (or without a
    /// row) is absent.
    public func sourceObjectsFetched(sources: [String]) async throws(StoreError) -> [String: Date] {
        guard !sources.isEmpty else { return [:] }
        return try await database.read("reading when source objects were fetched") { db in
            var fetched: [String: Date] = [:]
            for source in sources {
                let row = try Row.fetchOne(
                    db, sql: "SELECT object_fetched_at FROM source WHERE name = ? AND object_json IS NOT NULL",
                    arguments: [source])
                if let row, let date = try row.decodeDateIfPresent(forColumn: "object_fetched_at") {
                    fetched[source] = date
                }
            }
            return fetched
        }
    }

    /// Stores `json` as the object of every one of `sources` (created if new), fetched `at`, in
    /// one small transaction of its own.
    /// - Throws: `StoreError.databaseFailure`, also when `json` is not valid JSON; nothing is
    ///   changed then.
    public func storeSourceObject(_ json: Data, sources: [String], at now: Date) async throws(StoreError) {
        try await database.write("storing the object of \(sources.joined(separator: ", "))") { db in
            for source in sources {
                let id = try Self.sourceID(named: source, in: db)
                try db.execute(
                    sql: "UPDATE source SET object_json = ?, object_fetched_at = ? WHERE id = ?",
                    arguments: [String(decoding: json, as: UTF8.self), now.stored, id])
            }
        }
    }
}

extension PhotoCatalog {
    /// The stored object of the first of `sources` that has one, newest fetched first when
    /// several do (`user:ann` and `likes:ann` share a profile); nil when none has.
    public func sourceObject(ofAny sources: [String]) async throws(StoreError) -> Data? {
        guard !sources.isEmpty else { return nil }
        return try await database.read("reading the object of \(sources.joined(separator: ", "))") { db in
            let placeholders = Array(repeating: "?", count: sources.count).joined(separator: ", ")
            return try Data.fetchOne(
                db,
                sql: """
                    SELECT CAST(object_json AS BLOB) FROM source
                    WHERE name IN (\(placeholders)) AND object_json IS NOT NULL
                    ORDER BY object_fetched_at DESC LIMIT 1
                    """,
                arguments: StatementArguments(sources))
        }
    }

    /// The source whose name starts with `prefix` (`topic:`) and whose stored object has `key` as
    /// its `id` or `slug`, newest fetched first: a topic synced by its slug, asked for by its id
    /// (or the other way round). Nil when none has.
    public func sourceName(prefix: String, objectIDOrSlug key: String) async throws(StoreError) -> String? {
        try await database.read("looking up the source of object \(key)") { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT name FROM source
                    WHERE substr(name, 1, length(:prefix)) = :prefix AND object_json IS NOT NULL
                      AND (CAST(json_extract(object_json, '$.id') AS TEXT) = :key
                           OR CAST(json_extract(object_json, '$.slug') AS TEXT) = :key)
                    ORDER BY object_fetched_at DESC LIMIT 1
                    """,
                arguments: ["prefix": prefix, "key": key])
        }
    }
}
