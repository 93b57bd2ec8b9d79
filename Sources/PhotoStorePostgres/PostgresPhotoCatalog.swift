import Foundation
import PhotoStore
import PostgresNIO

/// The catalog in PostgreSQL: listings over the orders' indexes (``PostgresListing``), search
/// through the `tsvector` column, each method one read-only snapshot.
struct PostgresPhotoCatalog: SQLPhotoCatalog {
    let database: PostgresDatabase
    var sql: any SQLExecutor { PostgresExecutor(database: database) }
    /// Counts kept until the data may have changed (and for a lag past that): listings' totals,
    /// and how many photos a search matches up to the rank limit (``PostgresListing``).
    let counts: PostgresChangeCache<Int>
    /// Listings' anchors (``PostgresListing``), kept as counts are.
    let anchors: PostgresChangeCache<[String]>
    /// Every source's name and id, kept as counts are: each page of the gallery lists the
    /// sources, and each of the Unsplash API's answers and source filters looks one up.
    let sources: PostgresChangeCache<SourceIndex>
    /// The sizes at which a listing reads otherwise, the same as SQLite's.
    var limits = ListingLimits()
    var rankLimit: Int { limits.rankLimit }

    /// How far a listing's kept values may lag behind the data (``PostgresChangeCache``).
    let lag: Duration

    init(database: PostgresDatabase, lag: Duration = .zero) {
        self.database = database
        self.lag = lag
        let keeping = KeptValueSpan(lag: lag)
        counts = PostgresChangeCache(keeping: keeping, aside: Self.aside(database))
        anchors = PostgresChangeCache(keeping: keeping, aside: Self.aside(database))
        // The index is cheap, and a source's "holds every photo" is not to outlive its lag,
        // however long it took.
        sources = PostgresChangeCache(keeping: .lagAlone(lag))
    }

    /// A read of its own, for a value a server's request left to be made again
    /// (``PostgresChangeCache``).
    private static func aside<Value: Sendable>(_ database: PostgresDatabase) -> PostgresChangeCache<Value>.Aside {
        { make in try await database.read("making a listing's value again") { connection in try await make(connection) }
        }
    }

    /// An image's columns, as ``PostgresImageArchive/storedRow(_:column:)`` reads them.
    static let imageColumns = "id, variant, content_type, byte_count, sha256, fetched_at"

    // The sources' names, and whether one exists, from the index kept in `sources` rather
    // than by a statement each: every gallery page lists them, every API answer looks one up.
    // A read of one statement runs outside a transaction: the statement sees one snapshot by
    // itself, and `BEGIN` and `COMMIT` would be two more round trips to the server, each through
    // NIO's event loop and the server's process, for every request `serve` answers.

    func sourceNames() async throws(StoreError) -> [String] {
        let (logger, sources) = (database.logger, sources)
        return try await database.read("listing the sources") { connection in
            try await SourceIndex.kept(in: sources, connection, logger).names
        }
    }

    func photos(matching query: PhotoQuery) async throws(StoreError) -> [PhotoSummary] {
        let (logger, name, limits, anchors, counts, sources) = (
            database.logger, database.name, limits, anchors, counts, sources
        )
        return try await listing { connection in
            guard
                let page = try await PostgresListing(
                    query: query, limits: limits, anchors: anchors, matches: counts, sources: sources,
                    connection: connection, logger: logger, name: name
                ).page()
            else { return [] }
            return try await Self.summaries(page, withSmallest: query.withSmallestImage, connection, logger)
        }
    }

    /// Runs a listing's statements in one snapshot, so that its count, anchors and page agree;
    /// or, with a lag, each in its own: its kept values may be a lag old anyway, and with them
    /// kept, a page is one statement, which `BEGIN` and `COMMIT` would make three round trips.
    /// A cancelled calling task ends it (`interruptible`, a request whose client left), as
    /// SQLite's listings.
    private func listing<T: Sendable>(
        _ operation: @autoclosure () -> String = "listing photos", interruptible: Bool = true,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        lag > .zero
            ? try await database.read(operation(), interruptible: interruptible, body)
            : try await database.snapshot(operation(), interruptible: interruptible, body)
    }

    /// The photos of `page`, in its order, with their latest stored image (and their smallest,
    /// `withSmallest`: a second subquery for each photo) and their sources.
    private static func summaries(
        _ page: PostgresListing.Page, withSmallest: Bool, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [PhotoSummary] {
        // The smallest image: a second subquery for each photo, only where the page shows it.
        let (smallestColumns, smallestJoin) =
            withSmallest
            ? (
                """
                ,
                    smallest.id, smallest.variant, smallest.content_type, smallest.byte_count, smallest.sha256,
                    smallest.fetched_at
                """,
                """
                LEFT JOIN LATERAL (
                    SELECT \(imageColumns) FROM image
                    WHERE image.photo_id = photo.id AND image.status = \(ImageStatus.stored.sqlLiteral)
                    ORDER BY image.byte_count, image.variant LIMIT 1
                ) AS smallest ON true
                """
            ) : ("", "")
        let rows = try await page.rows(
            """
            photo.id, photo.created_at, photo.width, photo.height, photo.color, photo.likes,
                photo.description, photo.alt_description, photo.user_username, photo.user_name,
                ARRAY(SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                      WHERE photo_source.photo_id = photo.id ORDER BY source.name COLLATE "C"),
                image.id, image.variant, image.content_type, image.byte_count, image.sha256, image.fetched_at\(smallestColumns)
            """,
            from: """
                JOIN photo ON photo.id = page.id
                LEFT JOIN LATERAL (
                    SELECT \(imageColumns) FROM image
                    WHERE image.photo_id = photo.id AND image.status = \(ImageStatus.stored.sqlLiteral)
                    ORDER BY image.fetched_at DESC, image.variant LIMIT 1
                ) AS image ON true
                \(smallestJoin)
                """, connection, logger)
        return try rows.map { row in
            let cells = Array(row)
            func stored(at column: Int) throws -> StoredImage? {
                try cells[column].decode(Int64?.self) == nil
                    ? nil : try PostgresImageArchive.storedImage(row, column: column)
            }
            let image = try stored(at: 11)
            var summary = PhotoSummary(
                id: try cells[0].decode(String.self), createdAt: try cells[1].decode(Date?.self),
                width: try cells[2].decode(Int?.self), height: try cells[3].decode(Int?.self),
                color: try cells[4].decode(String?.self), likes: try cells[5].decode(Int?.self),
                description: try cells[6].decode(String?.self), altDescription: try cells[7].decode(String?.self),
                userUsername: try cells[8].decode(String?.self), userName: try cells[9].decode(String?.self),
                image: image)
            summary.sources = try cells[10].decode([String].self)
            if withSmallest { summary.smallestImage = try stored(at: 17) }
            return summary
        }
    }

    func count(matching query: PhotoQuery) async throws(StoreError) -> Int {
        let (logger, counts) = (database.logger, counts)
        return try await database.snapshot("counting photos") { connection in
            try await Self.count(query, counts, connection, logger)
        }
    }

    /// The count of ``count(matching:)``, kept in `counts` until the data changes: a client
    /// paging through a list asks for the same count on every page.
    private static func count(
        _ query: PhotoQuery, _ counts: PostgresChangeCache<Int>, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int {
        var sql = PostgresListing.SQL()
        let statement: String
        if query.text == nil && query.username == nil && query.orientation == nil && query.color == nil {
            // A tally: one row, where a count would read every photo or membership.
            statement =
                if let source = query.source {
                    """
                    SELECT coalesce((SELECT photos FROM source_tally
                                     WHERE source_id = (SELECT id FROM source WHERE name = \(try sql.bind(source)))), 0)
                    """
                } else {
                    "SELECT photos FROM photo_total"
                }
        } else {
            if let source = query.source {
                sql.conditions.append(
                    """
                    photo.id IN (SELECT photo_id FROM photo_source
                                 WHERE photo_source.source_id = (SELECT id FROM source WHERE name = \(try sql.bind(source))))
                    """)
            }
            try PostgresListing.filter(query, source: nil, dates: false, into: &sql)
            statement = "SELECT count(*) FROM photo \(sql.whereClause())"
        }
        let signature =
            "\(statement) \(query.text ?? "") \(query.source ?? "") \(query.username ?? "") \(query.color?.rawValue ?? "")"
        return try await counts.value(for: signature, connection, logger) { [sql] connection in
            Int(
                try await connection.integer(PostgresQuery(unsafeSQL: statement, binds: sql.bindings), logger: logger))
        }
    }

    func originalJSONPage(matching query: PhotoQuery) async throws(StoreError) -> OriginalJSONPage {
        try await originalJSONPages(matching: [query])[0]
    }

    func originalJSONPages(matching queries: [PhotoQuery]) async throws(StoreError) -> [OriginalJSONPage] {
        let (logger, name, limits, counts, anchors, sources) = (
            database.logger, database.name, limits, counts, anchors, sources
        )
        return try await listing { connection in
            var pages: [OriginalJSONPage] = []
            for query in queries {
                let total = try await Self.count(query, counts, connection, logger)
                guard query.offset < total else {
                    pages.append(OriginalJSONPage(total: total, photos: []))
                    continue
                }
                let page = try await PostgresListing(
                    query: query, limits: limits, anchors: anchors, matches: counts, sources: sources,
                    connection: connection, logger: logger, name: name
                ).page()
                pages.append(OriginalJSONPage(total: total, photos: try await Self.json(page, connection, logger)))
            }
            return pages
        }
    }

    /// The stored JSON of the photos of `page`, in its order.
    private static func json(
        _ page: PostgresListing.Page?, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [OriginalJSONPage.Photo] {
        guard let page else { return [] }
        return try await page.rows("photo.id, photo.json", from: "JOIN photo ON photo.id = page.id", connection, logger)
            .map { row in
                let (id, json) = try row.decode((String, String).self)
                return OriginalJSONPage.Photo(id: id, json: Data(json.utf8))
            }
    }

    func randomOriginalJSON(count: Int) async throws(StoreError) -> [OriginalJSONPage.Photo] {
        let (logger, counts) = (database.logger, counts)
        // Under a lag, the bounds and the draws are read each in its own snapshot, as a
        // listing's statements are: a draw is the first photo at or after its number, whatever
        // was stored between the two.
        return try await listing("drawing \(count) photos", interruptible: false) { connection in
            guard count > 0,
                let bounds = try await connection.preparedRows(
                    "SELECT min(sequence), max(sequence) FROM photo", logger: logger
                ).first,
                case (let lowest?, let highest?) = try bounds.decode((Int64?, Int64?).self)
            else { return [] }
            let stored = try await counts.value(for: "every photo", connection, logger) { connection in
                Int(try await connection.integer("SELECT count(*) FROM photo", logger: logger))
            }
            var photos: [OriginalJSONPage.Photo] = []
            var drawn = Set<String>()
            // Repeats are taken once every photo is drawn, or after many misses (a few photos
            // far apart in number): never an endless loop.
            var misses = 0
            // The draws still wanted, in one statement: each the first photo at or after a random
            // number, in the order drawn.
            while photos.count < count {
                let draws = (photos.count..<count).map { _ in Int64.random(in: lowest...highest) }
                var found = false
                for row in try await connection.preparedRows(
                    """
                    SELECT photo.id, photo.json FROM unnest(\(draws)::bigint[]) WITH ORDINALITY AS draw (at, n)
                    CROSS JOIN LATERAL (
                        SELECT id, json FROM photo WHERE sequence >= draw.at ORDER BY sequence LIMIT 1
                    ) AS photo
                    ORDER BY draw.n
                    """, logger: logger)
                {
                    let (id, json) = try row.decode((String, String).self)
                    found = true
                    if drawn.insert(id).inserted || drawn.count >= stored || misses > 100 * count {
                        photos.append(OriginalJSONPage.Photo(id: id, json: Data(json.utf8)))
                    } else {
                        misses += 1
                    }
                }
                guard found else { break }
            }
            return photos
        }
    }

    func hasSource(_ source: PhotoSource) async throws(StoreError) -> Bool {
        let (logger, name) = (database.logger, source.description)
        let sources = sources
        return try await database.read("looking up source \(name)") { connection in
            try await SourceIndex.kept(in: sources, connection, logger).ids[name] != nil
        }
    }
}

/// Every source's name, in the order of their bytes (`COLLATE "C"`, as SQLite sorts them), and
/// its id. Sources are few, and are only ever added.
struct SourceIndex: Sendable {
    var names: [String] = []
    var ids: [String: Int64] = [:]
    /// The sources that held every stored photo when the index was read: a hint, which a
    /// listing's statement checks again in its own snapshot (``PostgresListing/SourceFilter``).
    var holdingEveryPhoto: Set<Int64> = []

    /// The index kept in `cache`, or read and kept.
    static func kept(
        in cache: PostgresChangeCache<SourceIndex>, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> SourceIndex {
        try await cache.value(for: "sources", connection, logger) { connection in
            var index = SourceIndex()
            for try await (name, id, holdsEveryPhoto) in try await connection.guardedQuery(
                """
                SELECT name, id,
                    coalesce((SELECT photos FROM source_tally WHERE source_id = source.id), 0)
                        = (SELECT photos FROM photo_total)
                FROM source ORDER BY name COLLATE "C"
                """, logger: logger
            ).decode((String, Int64, Bool).self) {
                index.names.append(name)
                index.ids[name] = id
                if holdsEveryPhoto { index.holdingEveryPhoto.insert(id) }
            }
            return index
        }
    }
}
