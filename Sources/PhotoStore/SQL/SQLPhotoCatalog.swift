import Foundation

/// The catalog's lookups written once, for a driver's ``PhotoCatalog`` that offers its
/// ``SQLExecutor``: a photo's ids, sources and JSON, the sources' statistics and the store's,
/// the source objects. Each method is one read, every statement of it in one snapshot.
/// Listings, searches, counts and random draws stay the driver's: each database finds a page
/// through its own indexes and search.
package protocol SQLPhotoCatalog: PhotoCatalog {
    var sql: any SQLExecutor { get }
}

extension SQLPhotoCatalog {
    /// The photo's row and its newest stored image (of `variant` when there is one) in one
    /// statement, the image found among the photo's own: SQLite joins the image whose id a
    /// subquery finds, PostgreSQL the subquery's row itself (`LATERAL`), which it would otherwise
    /// join by hashing every image. The status is bound, as each driver's copy bound it: with
    /// `'stored'` in the text, PostgreSQL can walk the partial index of every stored image by
    /// date instead of the photo's few (it does on a small table).
    package func photo(id: String, variant: ImageVariant?) async throws(StoreError) -> StoredPhoto? {
        let ofVariant: SQLStatement = variant.map { "AND newest.variant = \($0.rawValue)" } ?? ""
        return try await sql.read(
            "reading photo \(id)",
            """
            SELECT photo.id, photo.sequence, photo.created_at, photo.updated_at, photo.width, photo.height,
                photo.color, photo.blur_hash, photo.description, photo.alt_description, photo.user_username,
                photo.user_name, photo.likes, photo.is_sponsored, photo.download_location, \(sql: CatalogSQL.trackedAt),
                photo.json, photo.first_seen_at, photo.last_seen_at, photo.is_plus,
                image.variant, image.content_type, image.byte_count, image.sha256, image.fetched_at
            FROM photo
            LEFT JOIN \(sqlite: "image ON image.id = (SELECT newest.id", postgres: CatalogSQL.newestImage)
                FROM image AS newest
                WHERE newest.photo_id = photo.id AND \(sql: CatalogSQL.imageStatus("newest")) = \(ImageStatus.stored.rawValue)
                    \(sql: ofVariant)
                ORDER BY newest.fetched_at DESC, newest.variant LIMIT 1
            ) \(sqlite: "", postgres: "AS image ON true")
            WHERE photo.id = \(id)
            """
        ) { rows in try rows.first.map(CatalogSQL.storedPhoto) }
    }

    package func photoIDs(withStoredImage: Bool) async throws(StoreError) -> [String] {
        try await sql.texts(
            "listing photos",
            withStoredImage
                ? """
                SELECT id FROM photo
                WHERE EXISTS (SELECT 1 FROM image WHERE photo_id = photo.id AND \(sql: CatalogSQL.imageStatus()) = \(literal: ImageStatus.stored))
                ORDER BY sequence
                """
                : "SELECT id FROM photo ORDER BY sequence")
    }

    package func sources(ofPhoto id: String) async throws(StoreError) -> [String] {
        try await sql.texts(
            "listing the sources of photo \(id)",
            """
            SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
            WHERE photo_source.photo_id = \(id) ORDER BY source.name\(sql: CatalogSQL.byBytes)
            """)
    }

    package func sourceNames() async throws(StoreError) -> [String] {
        try await sql.texts("listing the sources", "SELECT name FROM source ORDER BY name\(sql: CatalogSQL.byBytes)")
    }

    package func hasSource(_ source: PhotoSource) async throws(StoreError) -> Bool {
        try await sql.boolean(
            "looking up source \(source)", "SELECT EXISTS (SELECT 1 FROM source WHERE name = \(source.description))")
    }

    package func hasPhoto(id: String) async throws(StoreError) -> Bool {
        try await sql.boolean("looking up photo \(id)", "SELECT EXISTS (SELECT 1 FROM photo WHERE id = \(id))")
    }

    package func sourceStatistics() async throws(StoreError) -> [SourceStatistics] {
        try await sql.read("listing the sources", CatalogSQL.sources) { rows in try CatalogSQL.sources(rows) }
    }

    package func statistics() async throws(StoreError) -> StoreStatistics {
        try await sql.read("computing statistics", CatalogSQL.statistics) { results in
            try CatalogSQL.statistics(results)
        }
    }

    /// One statement for any number of ids; one id, serve's `GET /photos/:id`, is a lookup by key
    /// whose text is always the same (a statement PostgreSQL prepares once per connection).
    package func originalJSON(photoIDs: [String]) async throws(StoreError) -> [String: Data] {
        let ids = Array(Set(photoIDs))
        guard let first = ids.first else { return [:] }
        return try await sql.read(
            "reading the JSON of \(ids.count) photos",
            ids.count == 1
                ? "SELECT id, json FROM photo WHERE id = \(first)"
                : "SELECT id, json FROM photo WHERE id IN \(list: ids)"
        ) { rows in
            var json: [String: Data] = [:]
            for row in rows {
                if let id = try row.text(0) { json[id] = try row.json(1) }
            }
            return json
        }
    }

    package func sourceObject(ofAny sources: [PhotoSource]) async throws(StoreError) -> Data? {
        guard !sources.isEmpty else { return nil }
        let names = sources.map(\.description)
        return try await sql.read(
            "reading the object of \(names.joined(separator: ", "))",
            """
            SELECT object_json FROM source WHERE name IN \(list: names) AND object_json IS NOT NULL
            ORDER BY object_fetched_at DESC LIMIT 1
            """
        ) { rows in try rows.first?.json(0) }
    }

    /// The object's `id` and `slug` read as text whatever their JSON type, on both stores.
    package func topic(objectIDOrSlug key: String) async throws(StoreError) -> PhotoSource? {
        let name = try await sql.read(
            "looking up the topic \(key)",
            """
            SELECT name FROM source
            WHERE substr(name, 1, 6) = 'topic:' AND object_json IS NOT NULL
              AND (\(sqlite: "CAST(json_extract(object_json, '$.id') AS TEXT)", postgres: "object_json::jsonb ->> 'id'") = \(key)
                   OR \(sqlite: "CAST(json_extract(object_json, '$.slug') AS TEXT)", postgres: "object_json::jsonb ->> 'slug'") = \(key))
            ORDER BY object_fetched_at DESC LIMIT 1
            """
        ) { rows in try rows.first?.text(0) }
        // A name this version cannot read names no topic it could ask Unsplash for.
        return name.flatMap { try? PhotoSource(parsing: $0) }
    }
}

/// The catalog's statements that more than one method runs, and their rows' decoding.
private enum CatalogSQL {
    /// Names in the order of their bytes: SQLite's text order already is, PostgreSQL's is the
    /// locale's without `COLLATE "C"`.
    static let byBytes: SQLStatement = "\(sqlite: "", postgres: #" COLLATE "C""#)"

    /// An image's `status` in a lookup of a photo's images: `+status` keeps SQLite from searching
    /// the image queue's status index, where every stored image sits under one key, instead of
    /// the photo's own rows (`QueryPlanTests`).
    static func imageStatus(_ table: String = "image") -> SQLStatement {
        "\(sqlite: "+\(table).status", postgres: "\(table).status")"
    }

    /// When the photo's download was last tracked: a column of SQLite's `photo`, PostgreSQL's
    /// `download_tracking` (a row the tracker writes apart from the photo's).
    static let trackedAt: SQLStatement = """
        \(sqlite: "photo.download_tracked_at", postgres: "(SELECT tracked_at FROM download_tracking WHERE photo_id = photo.id)")
        """

    /// A row of ``SQLPhotoCatalog/photo(id:variant:)``: the photo's columns, then its image's
    /// from column 20 on (NULL without one).
    static func storedPhoto(_ row: any SQLRow) throws -> StoredPhoto {
        let never = Date(timeIntervalSince1970: 0)
        let image = try row.text(20).flatMap(ImageVariant.init(rawValue:)).map { variant in
            StoredImage(
                variant: variant, contentType: try row.text(21) ?? "", byteCount: try row.integer(22) ?? 0,
                sha256: try row.text(23) ?? "", fetchedAt: try row.date(24) ?? never)
        }
        var photo = StoredPhoto(
            id: try row.text(0) ?? "", sequence: try row.integer(1) ?? 0, createdAt: try row.date(2),
            updatedAt: try row.date(3), width: try row.integer(4).map(Int.init),
            height: try row.integer(5).map(Int.init),
            color: try row.text(6), blurHash: try row.text(7), description: try row.text(8),
            altDescription: try row.text(9), userUsername: try row.text(10), userName: try row.text(11),
            likes: try row.integer(12).map(Int.init), isSponsored: try row.boolean(13),
            downloadLocation: try row.text(14), downloadTrackedAt: try row.date(15), json: try row.json(16) ?? Data(),
            firstSeenAt: try row.date(17) ?? never, lastSeenAt: try row.date(18) ?? never, image: image)
        photo.isPlus = try row.boolean(19)
        return photo
    }

    /// The opening of PostgreSQL's join of a photo's newest image (``SQLPhotoCatalog/photo(id:variant:)``).
    static let newestImage = """
        LATERAL (SELECT newest.variant, newest.content_type, newest.byte_count, newest.sha256, newest.fetched_at
        """

    /// Unsplash+ photos, as the `photo_plus` partial index's condition is written in each
    /// database, so that the count reads the index alone.
    static let plus: SQLStatement = "\(sqlite: "is_plus = 1", postgres: "is_plus")"

    /// Every source, in the order of its name's bytes, with its counts, failure and
    /// ``SyncState`` (columns 7 on).
    ///
    /// A source's photos come from PostgreSQL's `source_tally`, one row. SQLite has no tally:
    /// counting a source's photos steps through its entries of an index, about 30 ms a
    /// million, so the feed, which holds nearly every photo, is left NULL there and counted as
    /// what the other sources leave of every membership (column 4, which SQLite reads from the
    /// table's pages alone). The Unsplash+ members are counted through `photo_plus` (`IN`): a
    /// join to `photo` read every member's photo row instead.
    static let sources: SQLStatement = """
        SELECT name, active, \(sqlite: countedPhotos, postgres: tallied),
            (SELECT COUNT(*) FROM photo_source
             WHERE photo_source.source_id = source.id
               AND photo_source.photo_id IN (SELECT id FROM photo WHERE \(sql: plus))),
            \(sqlite: "(SELECT COUNT(*) FROM photo_source)", postgres: "0"),
            error, error_at, \(sql: SyncState.columns)
        FROM source ORDER BY name\(sql: byBytes)
        """
    private static let countedPhotos = """
        CASE WHEN source.name = '\(PhotoSource.feed)' THEN NULL
             ELSE (SELECT COUNT(*) FROM photo_source WHERE source_id = source.id) END
        """
    private static let tallied = "coalesce((SELECT photos FROM source_tally WHERE source_id = source.id), 0)"

    /// The rows of ``sources``.
    static func sources(_ rows: [any SQLRow]) throws -> [SourceStatistics] {
        let memberships = try rows.first?.integer(4) ?? 0
        let others = try rows.compactMap { try $0.integer(2) }.reduce(0, +)
        return try rows.map { row in
            let errorAt = try row.date(6)
            return SourceStatistics(
                name: try row.text(0) ?? "", active: try row.boolean(1),
                photos: try row.integer(2) ?? memberships - others, plusPhotos: try row.integer(3) ?? 0,
                state: try SyncState(row, from: 7),
                failure: try row.text(5).map {
                    SourceFailure(message: $0, since: errorAt ?? Date(timeIntervalSince1970: 0))
                })
        }
    }

    /// The statements of ``PhotoCatalog/statistics()``, in one snapshot: each a tally or an
    /// index's count, never a photo's row or an image's bytes. Photos are PostgreSQL's
    /// `photo_total`, SQLite's count of the table (which it reads from an index); images by
    /// status are `image_tally`, which triggers keep in both.
    static let statistics: [SQLStatement] = [
        "\(sqlite: "SELECT COUNT(*) FROM photo", postgres: "SELECT photos FROM photo_total")",
        "SELECT status, CAST(sum(images) AS bigint), CAST(sum(bytes) AS bigint) FROM image_tally GROUP BY status",
        sources,
        "SELECT COUNT(*) FROM rejected_photo",
        "SELECT COUNT(*) FROM photo WHERE \(sql: plus)",
        """
        SELECT COUNT(*), min(next_attempt_at) FROM image
        WHERE status = \(literal: ImageStatus.pending) AND failure_class = \(literal: ImageFailureClass.transient)
        """,
        "SELECT loaded_at, reason FROM configuration_load WHERE id = 1",
    ]

    /// The results of ``statistics``. The backfill's facts are the feed's, as before there were
    /// sources; it is complete when every active source is.
    static func statistics(_ results: [[any SQLRow]]) throws -> StoreStatistics {
        var counts: [ImageStatus: (count: Int64, bytes: Int64)] = [:]
        for row in results[1] {
            if let status = try row.text(0).flatMap(ImageStatus.init(rawValue:)) {
                counts[status] = (try row.integer(1) ?? 0, try row.integer(2) ?? 0)
            }
        }
        let sources = try sources(results[2])
        let feed = sources.first { $0.name == PhotoSource.feed.description }?.state ?? SyncState()
        let active = sources.filter(\.active)
        var statistics = StoreStatistics(
            photos: try results[0].first?.integer(0) ?? 0, imagesStored: counts[.stored]?.count ?? 0,
            imagesPending: counts[.pending]?.count ?? 0, imagesFailed: counts[.failed]?.count ?? 0,
            bytesStored: counts[.stored]?.bytes ?? 0, backfillNext: feed.backfillNext,
            backfillComplete: !active.isEmpty && active.allSatisfy(\.state.backfillComplete),
            lastPageAt: sources.compactMap(\.state.lastPageAt).max())
        statistics.rejectedPhotos = try results[3].first?.integer(0) ?? 0
        statistics.backfillStall = feed.backfillStall ?? active.lazy.compactMap(\.state.backfillStall).first
        statistics.sources = sources
        statistics.plusPhotos = try results[4].first?.integer(0) ?? 0
        if let retrying = results[5].first {
            statistics.imagesRetrying = try retrying.integer(0) ?? 0
            statistics.nextImageRetryAt = try retrying.date(1)
        }
        statistics.imagesPruned = counts[.pruned]?.count ?? 0
        statistics.bytesPruned = counts[.pruned]?.bytes ?? 0
        if let load = results[6].first, let at = try load.date(0) {
            statistics.configurationLoaded = ConfigurationLoad(at: at, reload: try load.text(1) == "reload")
        }
        return statistics
    }
}
