import Foundation
import GRDB

/// The reads that serve photos back in Unsplash's own shapes: each photo's JSON as the API sent
/// it, and how many photos a listing holds.
extension PhotoCatalog {
    /// The stored original JSON of each of `photoIDs` that exists, by id, from one snapshot and
    /// one statement (a page's ids: at most a few dozen).
    public func originalJSON(photoIDs: [String]) async throws(StoreError) -> [String: Data] {
        let ids = Array(Set(photoIDs))
        guard !ids.isEmpty else { return [:] }
        return try await database.read("reading the JSON of \(ids.count) photos") { db in
            // One placeholder per id: every value is bound, the SQL is only "?, ?, ...".
            let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            var json: [String: Data] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT id, CAST(json AS BLOB) AS json FROM photo WHERE id IN (\(placeholders))",
                arguments: StatementArguments(ids))
            {
                json[row["id"]] = row["json"]
            }
            return json
        }
    }

    /// How many photos ``photos(matching:)`` would list for `query` without its limit and offset,
    /// counted once per connection until the database changes.
    /// Reads the filters `text`, `source`, `username` and `orientation`; the others are not
    /// counted.
    /// - Throws: `StoreError.invalidSearch` when FTS5 cannot parse ``PhotoQuery/text``.
    public func count(matching query: PhotoQuery) async throws(StoreError) -> Int {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        var from = "photo"
        if let text = query.text {
            from = "photo_search JOIN photo ON photo.sequence = photo_search.rowid"
            conditions.append("photo_search MATCH ?")
            _ = arguments.append(contentsOf: [text])
        }
        if let source = query.source {
            conditions.append(
                """
                photo.id IN (SELECT photo_source.photo_id FROM photo_source
                             WHERE photo_source.source_id = (SELECT id FROM source WHERE name = ?))
                """)
            _ = arguments.append(contentsOf: [source])
        }
        if let username = query.username {
            conditions.append("photo.user_username = ? COLLATE NOCASE")
            _ = arguments.append(contentsOf: [username])
        }
        switch query.orientation {
        case .landscape?: conditions.append("photo.width > photo.height")
        case .portrait?: conditions.append("photo.width < photo.height")
        case .squarish?: conditions.append("photo.width = photo.height")
        case nil: break
        }
        let sql = """
            SELECT COUNT(*) FROM \(from)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """
        let statementArguments = arguments
        let anchors = anchors
        let result = await database.readResult { db in
            // A client paging through a list asks for the same count on every page: it is kept,
            // like the listing's anchors, until the database changes.
            try anchors.count(db, signature: "\(sql) \(statementArguments)") {
                try Int.fetchOne(db, sql: sql, arguments: statementArguments) ?? 0
            }
        }
        switch result {
        case .success(let count):
            return count
        case .failure(let error as DatabaseError)
        where query.text != nil && error.resultCode == .SQLITE_ERROR && !(error.message ?? "").hasPrefix("no such"):
            throw .invalidSearch(query.text ?? "")
        case .failure(let error):
            throw StoreError(error, path: database.path, operation: "counting photos")
        }
    }

    /// Whether a source of this name was ever configured or synced (`user:ann`).
    public func hasSource(named name: String) async throws(StoreError) -> Bool {
        try await database.read("looking up source \(name)") { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM source WHERE name = ?)", arguments: [name])
                ?? false
        }
    }
}
