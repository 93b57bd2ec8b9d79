import Foundation
import GRDB
import PhotoStore

/// The reads that serve photos back in Unsplash's own shapes: each photo's JSON as the API sent
/// it, and how many photos a listing holds.
extension SQLitePhotoCatalog {
    func count(matching query: PhotoQuery) async throws(StoreError) -> Int {
        let result = await listingRead(interruptible: false) { db, anchors in
            try Self.count(db, query, anchors: anchors)
        }
        return try listingResult(result, query, operation: "counting photos")
    }

    func originalJSONPage(matching query: PhotoQuery) async throws(StoreError) -> OriginalJSONPage {
        try await originalJSONPages(matching: [query])[0]
    }

    func originalJSONPages(matching queries: [PhotoQuery]) async throws(StoreError) -> [OriginalJSONPage] {
        let (path, limits) = (database.path, limits)
        let result = await listingRead { db, anchors in
            try queries.map { query in
                let total = try Self.count(db, query, anchors: anchors)
                guard query.offset < total else { return OriginalJSONPage(total: total, photos: []) }
                let rowIDs = try PhotoListing(db: db, path: path, query: query, anchors: anchors, limits: limits)
                    .pageRowIDs()
                let page = "[" + rowIDs.map(String.init).joined(separator: ",") + "]"
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT photo.id, CAST(photo.json AS BLOB) AS json
                        FROM json_each(?) AS page CROSS JOIN photo ON photo.rowid = page.value
                        ORDER BY page.key
                        """)
                let photos = try Row.fetchAll(statement, arguments: [page]).map { row in
                    OriginalJSONPage.Photo(id: row["id"], json: row["json"])
                }
                return OriginalJSONPage(total: total, photos: photos)
            }
        }
        // A search that FTS5 refuses is the same text in every query.
        return try listingResult(result, queries.first { $0.text != nil } ?? PhotoQuery(), operation: "listing photos")
    }

    func randomOriginalJSON(count: Int) async throws(StoreError) -> [OriginalJSONPage.Photo] {
        let result = await listingRead(interruptible: false) { db, anchors -> [OriginalJSONPage.Photo] in
            guard count > 0,
                let bounds = try Row.fetchOne(db, sql: Self.sequenceBoundsSQL),
                let lowest = bounds[0] as Int64?, let highest = bounds[1] as Int64?
            else { return [] }
            let stored = try anchors.count(db, signature: "every photo") {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM photo") ?? 0
            }
            let statement = try db.cachedStatement(
                sql: """
                    SELECT id, CAST(json AS BLOB) AS json FROM photo WHERE sequence >= ? ORDER BY sequence LIMIT 1
                    """)
            var photos: [OriginalJSONPage.Photo] = []
            var drawn = Set<String>()
            // Repeats are taken once every photo is drawn, or after many misses (a few photos
            // far apart in number): never an endless loop.
            var misses = 0
            while photos.count < count {
                // Within one snapshot the highest number always has its photo.
                guard let row = try Row.fetchOne(statement, arguments: [Int64.random(in: lowest...highest)]) else {
                    break
                }
                let photo = OriginalJSONPage.Photo(id: row["id"], json: row["json"])
                if drawn.insert(photo.id).inserted || drawn.count >= stored || misses > 100 * count {
                    photos.append(photo)
                } else {
                    misses += 1
                }
            }
            return photos
        }
        return try listingResult(result, PhotoQuery(), operation: "drawing \(count) photos")
    }

    /// The lowest and highest `sequence`, each in a query of its own: SQLite reads one end of an
    /// index for a lone min() or max(), and every row for both together.
    static let sequenceBoundsSQL = "SELECT (SELECT min(sequence) FROM photo), (SELECT max(sequence) FROM photo)"

    /// The count of ``count(matching:)``, kept in `anchors` until the database changes: a
    /// client paging through a list asks for the same count on every page.
    private static func count(_ db: Database, _ query: PhotoQuery, anchors: ListingAnchors.Reading) throws -> Int {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        // The search index alone, the source's memberships alone, or the photo table, counted
        // without the others when nothing else filters: a million matches count in a fraction
        // of the time their join takes.
        var from = "photo"
        let photoColumns =
            query.username != nil || query.orientation != nil || query.color != nil
            || (query.text != nil && query.source != nil)
        if let text = query.text {
            guard let search = try SQLiteSearch(text) else { return 0 }
            from = photoColumns ? "photo_search JOIN photo ON photo.sequence = photo_search.rowid" : "photo_search"
            conditions.append("photo_search MATCH ?")
            _ = arguments.append(contentsOf: [search.match])
        }
        if let source = query.source {
            if photoColumns {
                conditions.append(
                    """
                    photo.id IN (SELECT photo_source.photo_id FROM photo_source
                                 WHERE photo_source.source_id = (SELECT id FROM source WHERE name = ?))
                    """)
            } else {
                from = "photo_source"
                conditions.append("photo_source.source_id = (SELECT id FROM source WHERE name = ?)")
            }
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
        if let color = query.color {
            conditions.append("photo_color_matches(photo.color, ?)")
            _ = arguments.append(contentsOf: [color.rawValue])
        }
        let sql = """
            SELECT COUNT(*) FROM \(from)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """
        return try anchors.count(db, signature: "\(sql) \(arguments)") {
            try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
        }
    }
}
