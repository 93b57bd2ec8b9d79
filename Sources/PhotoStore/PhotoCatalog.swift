import Foundation
import GRDB

/// What a person looks up in the database: photos listed and searched, one photo, the sources
/// that listed it, and the statistics of `photosync status`. Every method only reads, from one
/// snapshot, on GRDB's reader queues.
public struct PhotoCatalog: Sendable {
    let database: StoreDatabase

    /// The photo with this id, with the metadata of its stored image of `variant` (of the most
    /// recently fetched stored variant when nil); nil when no such photo exists.
    public func photo(id: String, variant: String? = nil) async throws(StoreError) -> StoredPhoto? {
        try await database.read("reading photo \(id)") { db in
            // By SQL rather than by key: a key lookup first reads the table's schema, which on the
            // fresh connection of `photosync query` costs more than the lookup itself.
            guard
                let photo = try PhotoRow.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM photo WHERE id = ?"), arguments: [id])
            else { return nil }
            let image = try StoredImageRow.fetchOne(db, photoID: id, variant: variant)?.image
            return photo.stored(image: image)
        }
    }

    /// The ids of stored photos in the order they were first stored; only those with a stored
    /// image when `withStoredImage` is true.
    public func photoIDs(withStoredImage: Bool = false) async throws(StoreError) -> [String] {
        try await database.read("listing photos") { db in
            try String.fetchAll(
                db,
                sql: withStoredImage
                    ? """
                    SELECT id FROM photo
                    WHERE EXISTS (SELECT 1 FROM image WHERE photo_id = photo.id AND +status = 'stored')
                    ORDER BY sequence
                    """
                    : "SELECT id FROM photo ORDER BY sequence")
        }
    }

    /// The sources that listed the photo `id`, by name.
    public func sources(ofPhoto id: String) async throws(StoreError) -> [String] {
        try await database.read("listing the sources of photo \(id)") { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                    WHERE photo_source.photo_id = ? ORDER BY source.name
                    """, arguments: [id])
        }
    }

    /// Every source the database knows, by name.
    public func sourceStatistics() async throws(StoreError) -> [SourceStatistics] {
        try await database.read("listing the sources") { db in try Self.sourceStatistics(db) }
    }

    /// Counts of photos and images by status, stored bytes and the backfill's progress, from
    /// one snapshot. Reads `byte_count` columns, never image blobs.
    public func statistics() async throws(StoreError) -> StoreStatistics {
        try await database.read("computing statistics") { db in
            let photos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            var counts: [String: Int64] = [:]
            var bytesStored: Int64 = 0
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT status, COUNT(*) AS count, COALESCE(SUM(byte_count), 0) AS bytes
                    FROM image GROUP BY status
                    """)
            {
                let status: String = try row.decode(forColumn: "status")
                counts[status] = try row.decode(forColumn: "count")
                if status == "stored" { bytesStored = try row.decode(forColumn: "bytes") }
            }
            // The top-level backfill facts are the feed's, as before there were sources; complete
            // means every active source is complete.
            let sources = try Self.sourceStatistics(db)
            let state = try SyncLedger.syncState(db, source: PhotoQuery.feedSource)
            let active = sources.filter(\.active)
            var statistics = StoreStatistics(
                photos: photos,
                imagesStored: counts["stored", default: 0],
                imagesPending: counts["pending", default: 0],
                imagesFailed: counts["failed", default: 0],
                bytesStored: bytesStored,
                backfillNext: state.backfillNext,
                backfillComplete: !active.isEmpty && active.allSatisfy(\.state.backfillComplete),
                lastPageAt: sources.compactMap(\.state.lastPageAt).max())
            statistics.rejectedPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM rejected_photo") ?? 0
            statistics.backfillStall = state.backfillStall ?? active.lazy.compactMap(\.state.backfillStall).first
            statistics.sources = sources
            statistics.plusPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE is_plus = 1") ?? 0
            if let load = try Row.fetchOne(db, sql: "SELECT loaded_at, reason FROM configuration_load WHERE id = 1"),
                let loadedAt = (load["loaded_at"] as StoredDate?)?.date
            {
                statistics.configurationLoaded = ConfigurationLoad(
                    at: loadedAt, reload: load["reason"] as String == "reload")
            }
            return statistics
        }
    }

    /// The stored photos `query` selects, in its order, from one snapshot. Reads columns and
    /// indexes only: neither the JSON nor the image bytes.
    /// - Throws: `StoreError.invalidSearch` when FTS5 cannot parse ``PhotoQuery/text``.
    public func photos(matching query: PhotoQuery) async throws(StoreError) -> [PhotoSummary] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        var search = ""
        if let text = query.text {
            search = "JOIN photo_search ON photo_search.rowid = photo.sequence"
            conditions.append("photo_search MATCH ?")
            _ = arguments.append(contentsOf: [text])
        }
        if let source = query.source {
            conditions.append(
                """
                EXISTS (SELECT 1 FROM photo_source JOIN source ON source.id = photo_source.source_id
                        WHERE photo_source.photo_id = photo.id AND source.name = ?)
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
        if let since = query.since {
            conditions.append("photo.created_at >= ?")
            _ = arguments.append(contentsOf: [since])
        }
        if let until = query.until {
            conditions.append("photo.created_at < ?")
            _ = arguments.append(contentsOf: [until])
        }
        let order =
            switch query.sort {
            case .relevance where query.text != nil: "bm25(photo_search), photo.created_at DESC, photo.sequence DESC"
            case .newest, .relevance: "photo.created_at DESC, photo.sequence DESC"
            case .oldest: "photo.created_at ASC, photo.sequence ASC"
            case .likes: "photo.likes DESC, photo.created_at DESC, photo.sequence DESC"
            }
        _ = arguments.append(contentsOf: [query.limit ?? -1, max(0, query.offset)])
        let statementArguments = arguments
        // The clauses are fixed text chosen above; every value is a bound argument.
        let sql = """
            SELECT photo.id, photo.created_at, photo.width, photo.height, photo.color, photo.likes,
                   photo.description, photo.alt_description, photo.user_username, photo.user_name,
                   image.variant, image.content_type, image.byte_count, image.sha256, image.fetched_at,
                   (SELECT json_group_array(name) FROM (
                        SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                        WHERE photo_source.photo_id = photo.id ORDER BY source.name)) AS sources
            FROM photo
            \(search)
            LEFT JOIN image ON image.id = (
                SELECT id FROM image WHERE image.photo_id = photo.id AND +image.status = 'stored'
                ORDER BY image.fetched_at DESC, image.variant LIMIT 1)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY \(order)
            LIMIT ? OFFSET ?
            """
        let result = await database.readResult { db in
            try Self.summaries(db, sql: sql, arguments: statementArguments)
        }
        switch result {
        case .success(let photos):
            return photos
        case .failure(let error as DatabaseError)
        where query.text != nil && error.resultCode == .SQLITE_ERROR && !(error.message ?? "").hasPrefix("no such"):
            // The statement itself is fixed and tested: an SQL error with a search in it is
            // FTS5 refusing the search text ("fts5: syntax error near", "unterminated string").
            throw .invalidSearch(query.text ?? "")
        case .failure(let error):
            throw StoreError(error, path: database.path, operation: "listing photos")
        }
    }

    private static func summaries(_ db: Database, sql: String, arguments: StatementArguments) throws -> [PhotoSummary] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let variant: String? = try row.decode(forColumn: "variant")
            var summary = PhotoSummary(
                id: try row.decode(forColumn: "id"),
                createdAt: try row.decodeDateIfPresent(forColumn: "created_at"),
                width: try row.decode(forColumn: "width"),
                height: try row.decode(forColumn: "height"),
                color: try row.decode(forColumn: "color"),
                likes: try row.decode(forColumn: "likes"),
                description: try row.decode(forColumn: "description"),
                altDescription: try row.decode(forColumn: "alt_description"),
                userUsername: try row.decode(forColumn: "user_username"),
                userName: try row.decode(forColumn: "user_name"),
                image: try variant.map { variant in
                    StoredImage(
                        variant: variant,
                        contentType: try row.decode(forColumn: "content_type"),
                        byteCount: try row.decode(forColumn: "byte_count"),
                        sha256: try row.decode(forColumn: "sha256"),
                        fetchedAt: try row.decodeDate(forColumn: "fetched_at"))
                })
            let sources: String = row["sources"] ?? "[]"
            summary.sources = (try? JSONDecoder().decode([String].self, from: Data(sources.utf8))) ?? []
            return summary
        }
    }

    /// Counts the Unsplash+ members through the `photo_plus` index (`IN`): a join to `photo`
    /// read every member's photo row instead (`QueryPlanTests`).
    static func sourceStatistics(_ db: Database) throws -> [SourceStatistics] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT source.*,
                       (SELECT COUNT(*) FROM photo_source WHERE source_id = source.id) AS photos,
                       (SELECT COUNT(*) FROM photo_source
                        WHERE photo_source.source_id = source.id
                          AND photo_source.photo_id IN (SELECT id FROM photo WHERE is_plus = 1)) AS plus_photos
                FROM source ORDER BY name
                """
        ).map { row in
            SourceStatistics(
                name: row["name"],
                active: row["active"],
                photos: row["photos"],
                plusPhotos: row["plus_photos"],
                state: SyncLedger.syncState(row),
                failure: (row["error"] as String?).map { message in
                    SourceFailure(
                        message: message,
                        since: (row["error_at"] as StoredDate?)?.date ?? Date(timeIntervalSince1970: 0))
                })
        }
    }
}
