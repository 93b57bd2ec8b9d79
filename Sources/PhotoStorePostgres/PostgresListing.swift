import Foundation
import PhotoStore
import PostgresNIO

/// How ``PostgresPhotoCatalog`` finds a page of ``PhotoCatalog/photos(matching:)``: the page's
/// photo ids from a statement over the order's index (`photo_newest`, `photo_most_liked`, or
/// a source's memberships by position), inside the statement that reads those few photos'
/// columns (``Page``). A cursor (`after`, `before`) is one row comparison against the cursor
/// photo's key, so a page after a photo costs the same at any depth. A deep page number starts from the nearest anchor
/// (``ListingLimits/anchor(forOffset:)``): the id of every `anchorInterval`-th photo of the listing, found in one pass
/// over its index and kept until the data changes (``PostgresChangeCache``), so that an `OFFSET`
/// never skips more than that many rows.
///
/// Each order's keys are never NULL (see ``PostgresSchema/version1Reads``), and sort as
/// SQLite's listing sorts: photos without a creation date after the others newest first, before
/// them oldest first.
struct PostgresListing {
    let query: PhotoQuery
    let limits: ListingLimits
    let anchors: PostgresChangeCache<[String]>
    /// How many photos a search matches, up to ``ListingLimits/rankLimit`` + 1, kept as anchors are: counting
    /// them takes a millisecond or more at a million photos, the page itself a third of that.
    let matches: PostgresChangeCache<Int>
    /// The sources' ids by name, for a listing of one source.
    let sources: PostgresChangeCache<SourceIndex>
    let connection: PostgresConnection
    let logger: Logger
    /// The database's name, for errors.
    let name: String

    /// The creation date as the orders sort it.
    static let createdKey = "coalesce(photo.created_at, '-infinity'::timestamptz)"

    /// A statement's text and the values of its `$n` placeholders, built together.
    struct SQL {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        var types: [PostgresDataType] = []
        /// Whether a condition's best plan depends on its value (``PreparableQuery/prepare``).
        var plannedPerValue = false

        /// The placeholder of `value`, bound.
        mutating func bind(_ value: some PostgresEncodable) throws -> String {
            try bindings.append(value)
            types.append(value.psqlType)
            return "$\(bindings.count)"
        }

        /// `text`, whose placeholders are these, ready to be sent.
        func statement(_ text: String) -> PreparableQuery {
            PreparableQuery(
                query: PostgresQuery(unsafeSQL: text, binds: bindings), types: types, prepare: !plannedPerValue)
        }

        func whereClause(_ extra: [String] = []) -> String {
            let all = conditions + extra
            return all.isEmpty ? "" : "WHERE " + all.joined(separator: " AND ")
        }
    }

    /// The photos are listed in the order their source listed them (``PhotoQuery/inSourceOrder``).
    private var inSourceOrder: Bool { query.inSourceOrder && query.source != nil }

    /// A statement whose rows are the page's photo ids, and which way they run: read inside the
    /// statement that reads the page's photos (`ARRAY(...)`), so that the page costs one round
    /// trip to the server, not two.
    struct Page {
        var statement: String
        /// The values of the statement's placeholders.
        var sql: SQL
        /// The rows run from the page's last photo to its first (a page before a cursor).
        var reversed: Bool

        /// A statement whose rows are `columns` of the page's photos, in the page's order, from
        /// `from`: `unnest(...) WITH ORDINALITY AS page (id, position)`, joined by the caller.
        private func select(_ columns: String, from joins: String) -> PreparableQuery {
            sql.statement(
                """
                SELECT \(columns)
                FROM unnest(ARRAY(\(statement))) WITH ORDINALITY AS page (id, position) \(joins)
                ORDER BY page.position\(reversed ? " DESC" : "")
                """)
        }

        /// The rows of ``select(_:from:)``: one statement, prepared; or, for a page whose ids
        /// are planned for each request's values (a search over more photos than are ranked),
        /// two: the ids, planned for the words, then the photos by those ids, prepared.
        ///
        /// In one statement, the whole of it (the photos, their image, the subquery of their
        /// sources) was parsed and planned again at every request: 0.5 to 0.8 ms of the
        /// server's time against 0.1 ms for the ids alone, more than the second round trip costs.
        /// Under `serve`'s lag the two read in snapshots of their own, as a listing's statements
        /// do: a photo deleted between them is left out of the page.
        func rows(
            _ columns: String, from joins: String, _ connection: PostgresConnection, _ logger: Logger
        ) async throws -> [PostgresRow] {
            guard sql.plannedPerValue else {
                return try await connection.preparedRows(select(columns, from: joins), logger: logger)
            }
            var ids = try await connection.preparedRows(sql.statement(statement), logger: logger).map {
                try $0.decode(String.self)
            }
            if ids.isEmpty { return [] }
            if reversed { ids.reverse() }
            let photos: PreparableQuery = """
                SELECT \(unescaped: columns)
                FROM unnest(\(ids)::text[]) WITH ORDINALITY AS page (id, position) \(unescaped: joins)
                ORDER BY page.position
                """
            return try await connection.preparedRows(photos, logger: logger)
        }
    }

    /// The statement of the page's ids, or nil when the page is empty whatever the data.
    /// - Throws: `StoreError.unknownPhoto` when a cursor names no photo.
    func page() async throws -> Page? {
        if query.limit == 0 { return nil }
        var sourceID: Int64?
        var sourceFilter: SourceFilter?
        if let source = query.source {
            let index = try await SourceIndex.kept(in: sources, connection, logger)
            guard let id = index.ids[source] else { return nil }
            sourceID = id
            sourceFilter = SourceFilter(id: id, heldEveryPhoto: index.holdingEveryPhoto.contains(id))
        }
        var sql = SQL()
        var rows = Rows.photos
        if inSourceOrder, let sourceID {
            rows = filtersPhotos ? .membershipsWithPhotos : .memberships
            sql.conditions.append("photo_source.source_id = \(try sql.bind(sourceID))")
        }
        try Self.filter(query, source: inSourceOrder ? nil : sourceFilter, dates: true, into: &sql)
        if let text = query.text, query.sort == .relevance {
            guard let search = try SearchExpression.parse(text) else { return nil }
            return try await rankedPage(rows, text: text, search: search, sql)
        }
        return try await orderedPage(rows, sourceID: sourceID, sql)
    }

    /// Whether the query's filters read the photos' own columns (``filter(_:source:dates:into:)``).
    private var filtersPhotos: Bool {
        query.text != nil || query.username != nil || query.orientation != nil || query.color != nil
            || query.since != nil || query.until != nil
    }

    /// The rows a listing's statements read, and its photo id among their columns.
    struct Rows: CustomStringConvertible {
        var from: String
        var id: String
        var description: String { from }

        static let photos = Rows(from: "photo", id: "photo.id")
        /// A source's memberships alone, in its order: a deep page skips its rows without reading
        /// a photo for each (a membership's photo always exists: it is deleted with it).
        static let memberships = Rows(from: "photo_source", id: "photo_source.photo_id")
        /// A source's memberships and their photos, for filters on the photos.
        static let membershipsWithPhotos = Rows(
            from: "photo_source JOIN photo ON photo.id = photo_source.photo_id", id: "photo.id")
    }

    /// A listing's source, as a filter of photos in another order than the source's own.
    struct SourceFilter {
        var id: Int64
        /// The source held every photo when last looked (``SourceIndex``).
        var heldEveryPhoto: Bool

        /// The condition that a photo is in the source.
        ///
        /// For a source that held every photo (the feed, usually), the condition asks first, once
        /// and in the statement's own snapshot, whether it still does (its tally against the
        /// photos', ``PostgresSchema/version4Tallies``), and checks each photo's membership only
        /// when it does not: right at any moment, and a deep page skips its thousand photos
        /// without a lookup each. For any other source, the membership alone, which the server
        /// may turn into a join from the memberships (a small source's page).
        func condition(_ sql: inout SQL) throws -> String {
            let id = try sql.bind(id)
            let member = """
                EXISTS (SELECT 1 FROM photo_source AS member
                        WHERE member.photo_id = photo.id AND member.source_id = \(id))
                """
            guard heldEveryPhoto else { return member }
            return """
                ((SELECT tally.photos FROM source_tally AS tally WHERE tally.source_id = \(id))
                     = (SELECT total.photos FROM photo_total AS total)
                 OR \(member))
                """
        }
    }

    /// The conditions of `query`'s filters, in `sql`: the search, the source (by membership,
    /// when `source` is given), the username, orientation and colour, and the creation dates
    /// when `dates` is true.
    static func filter(_ query: PhotoQuery, source: SourceFilter?, dates: Bool, into sql: inout SQL) throws {
        if let text = query.text {
            // A search with no word to look for matches no photo.
            let search = try SearchExpression.parse(text)
            sql.conditions.append(try search.map { "photo.search @@ \(try tsquery($0, &sql))" } ?? "false")
        }
        if let source {
            sql.conditions.append(try source.condition(&sql))
        }
        if let username = query.username {
            sql.conditions.append("lower(photo.user_username) = lower(\(try sql.bind(username)))")
        }
        switch query.orientation {
        case .landscape?: sql.conditions.append("photo.width > photo.height")
        case .portrait?: sql.conditions.append("photo.width < photo.height")
        case .squarish?: sql.conditions.append("photo.width = photo.height")
        case nil: break
        }
        if let color = query.color {
            // The colour is in the text, not bound: its index serves only a condition it can see.
            sql.conditions.append(PostgresSchema.colorCondition(color))
        }
        if dates, let since = query.since {
            sql.conditions.append("photo.created_at >= \(try sql.bind(since))")
        }
        if dates, let until = query.until {
            sql.conditions.append("photo.created_at < \(try sql.bind(until))")
        }
    }

    /// The `tsquery` of `search`, its words bound in `sql`: each term a `photosync_term` (schema
    /// version 8), which splits and folds its words as the documents were, joined by the
    /// `tsquery` operators. No text of the search is read as `tsquery` syntax.
    static func tsquery(_ search: SearchExpression, _ sql: inout SQL) throws -> String {
        sql.plannedPerValue = true
        return try search.written(
            term: { "photosync_term(\(try sql.bind($0.text)), \($0.prefix))" },
            join: { join, parts in "(" + parts.joined(separator: join == .and ? " && " : " || ") + ")" },
            not: { "(\($0) && !!(\($1)))" })
    }

    /// The keys of the listing's order and whether it runs from the highest key down.
    private var order: (keys: [String], descending: Bool) {
        if inSourceOrder { return (["photo_source.position"], false) }
        switch query.sort {
        case .newest, .relevance: return ([Self.createdKey, "photo.sequence"], true)
        case .oldest: return ([Self.createdKey, "photo.sequence"], false)
        case .likes: return (["coalesce(photo.likes, -1)", Self.createdKey, "photo.sequence"], true)
        }
    }

    private func orderedPage(_ rows: Rows, sourceID: Int64?, _ sql: SQL) async throws -> Page? {
        var sql = sql
        let (keys, descending) = order
        let reversed = query.after == nil && query.before != nil
        var extra: [String] = []
        var offset = max(0, query.offset)
        var start: (id: String, inclusive: Bool)?
        if let cursor = query.after ?? query.before {
            start = (cursor, false)
        } else if query.text == nil, let anchor = limits.anchor(forOffset: offset) {
            let anchors = try await anchorIDs(rows, keys: keys, descending: descending, sql)
            // No anchor this deep: the offset is past the last photo.
            guard anchor.index < anchors.count else { return nil }
            start = (anchors[anchor.index], true)
            offset = anchor.offset
        }
        if let (cursor, inclusive) = start {
            let cursorKey: String
            let exists: PreparableQuery
            if inSourceOrder, let sourceID {
                cursorKey = """
                    (SELECT cursor.position FROM photo_source AS cursor
                     WHERE cursor.source_id = \(try sql.bind(sourceID)) AND cursor.photo_id = \(try sql.bind(cursor)))
                    """
                exists =
                    "SELECT EXISTS (SELECT 1 FROM photo_source WHERE source_id = \(sourceID) AND photo_id = \(cursor))"
            } else {
                let cursorKeys = keys.map { $0.replacingOccurrences(of: "photo.", with: "cursor.") }
                cursorKey = """
                    (SELECT \(cursorKeys.joined(separator: ", ")) FROM photo AS cursor
                     WHERE cursor.id = \(try sql.bind(cursor)))
                    """
                exists = "SELECT EXISTS (SELECT 1 FROM photo WHERE id = \(cursor))"
            }
            // An anchor is a photo of this snapshot; a client's cursor may name none.
            if !inclusive, try await !connection.preparedBoolean(exists, logger: logger) {
                throw StoreError.unknownPhoto(path: name, photoID: cursor)
            }
            let comparison = (descending != reversed ? "<" : ">") + (inclusive ? "=" : "")
            let row = keys.count == 1 ? keys[0] : "(" + keys.joined(separator: ", ") + ")"
            extra.append("\(row) \(comparison) \(cursorKey)")
        }
        let direction = descending != reversed ? " DESC" : ""
        let statement = """
            SELECT \(rows.id) FROM \(rows.from) \(sql.whereClause(extra))
            ORDER BY \(keys.map { $0 + direction }.joined(separator: ", "))
            \(try pageClause(offset: offset, &sql))
            """
        return Page(statement: statement, sql: sql, reversed: reversed)
    }

    /// The ids of the listing's 1st, (`anchorInterval` + 1)th... photos, in its order: one
    /// pass over its index when the data changed since they were last found.
    private func anchorIDs(_ rows: Rows, keys: [String], descending: Bool, _ sql: SQL) async throws -> [String] {
        let direction = descending ? " DESC" : ""
        let statement = """
            SELECT id FROM (
                SELECT \(rows.id) AS id,
                    row_number() OVER (ORDER BY \(keys.map { $0 + direction }.joined(separator: ", "))) AS n
                FROM \(rows.from) \(sql.whereClause())
            ) AS listing
            WHERE n % \(limits.anchorInterval) = 1 ORDER BY n
            """
        let signature = "\(rows) \(keys) \(descending) \(query.sort) \(filters)"
        return try await anchors.value(for: signature, connection, logger) { [logger] connection in
            try await Self.ids(statement, sql.bindings, on: connection, logger)
        }
    }

    /// A search by relevance ranks its matches with ``SearchRanking`` when there are at most
    /// ``ListingLimits/rankLimit`` of them, and lists them most recently stored first when there are more,
    /// unranked: SQLite's rule and SQLite's order, so that both stores page alike. The ranking
    /// reads the matches' document fields (their location and tags from `search_location` and
    /// `search_tags`, kept with the index since version 8), and is kept as the anchors are, as
    /// SQLite keeps it: each page of it is a slice, not the search ranked again.
    private func rankedPage(_ rows: Rows, text: String, search: SearchExpression, _ sql: SQL) async throws -> Page {
        var sql = sql
        let counting = PostgresQuery(
            unsafeSQL: """
                SELECT count(*) FROM (SELECT 1 FROM \(rows.from) \(sql.whereClause())
                LIMIT \(try sql.bind(limits.rankLimit + 1))) AS match
                """, binds: sql.bindings)
        let signature = "\(rows) \(limits.rankLimit) \(text) \(filters)"
        let logger = logger
        let matches = try await matches.value(for: signature, connection, logger) { connection in
            Int(try await connection.integer(counting, logger: logger))
        }
        guard matches <= limits.rankLimit else {
            let statement = """
                SELECT \(rows.id) FROM \(rows.from) \(sql.whereClause())
                ORDER BY photo.sequence DESC
                \(try pageClause(offset: max(0, query.offset), &sql))
                """
            return Page(statement: statement, sql: sql, reversed: false)
        }
        let matching = PostgresQuery(
            unsafeSQL: """
                SELECT \(rows.id), photo.created_at, photo.sequence, photo.description, photo.alt_description,
                    photo.user_name, photo.user_username, photo.search_location, photo.search_tags
                FROM \(rows.from) \(sql.whereClause())
                """, binds: sql.bindings)
        let ranked = try await anchors.value(for: "ranking \(signature)", connection, logger) { connection in
            var found: [SearchMatch<String>] = []
            let rows = try await connection.guardedQuery(matching, logger: logger)
            for try await row in rows.decode(
                (String, Date?, Int64, String?, String?, String?, String?, String?, String?).self)
            {
                found.append(
                    SearchMatch(
                        key: row.0, createdAt: row.1, sequence: row.2,
                        fields: [row.3, row.4, row.5, row.6, row.7, row.8]))
            }
            return SearchRanking(search).ranked(found)
        }
        let start = min(max(0, query.offset), ranked.count)
        let end = query.limit.flatMap { $0 >= 0 ? min(ranked.count, start + $0) : nil } ?? ranked.count
        var page = SQL()
        let statement = """
            SELECT id FROM unnest(\(try page.bind(Array(ranked[start..<end])))::text[]) WITH ORDINALITY AS ranked (id, n)
            ORDER BY n
            """
        return Page(statement: statement, sql: page, reversed: false)
    }

    /// The values of the query's filters but the search's text, for a kept value's key.
    private var filters: String {
        var filters = "\(query.source ?? "") \(query.username ?? "") \(String(describing: query.orientation))"
        filters += " \(query.color?.rawValue ?? "")"
        filters += " \(query.since?.timeIntervalSince1970 ?? .nan) \(query.until?.timeIntervalSince1970 ?? .nan)"
        return filters
    }

    /// The page's `LIMIT` and `OFFSET`: placeholders at an offset; on a page that starts where
    /// its statement does (a first page, a page after a cursor or an anchor), the size written
    /// into the text, and no offset.
    ///
    /// The server plans a prepared statement once, for any value of its placeholders, only when
    /// that plan is not dearer than the plans for each request's values, and with a placeholder
    /// in either clause it takes a tenth of the rows to be wanted: it planned every page again
    /// (0.17 ms of a first page's 0.4 ms of the server's time, against 0.004 ms). A text for each
    /// page size clients ask for; past ``PreparedShapes/limit`` texts, new ones go unprepared.
    private func pageClause(offset: Int, _ sql: inout SQL) throws -> String {
        guard let limit = query.limit, limit >= 0 else {
            return offset > 0 ? "OFFSET \(try sql.bind(offset))" : ""
        }
        guard offset > 0 else { return "LIMIT \(limit)" }
        return "LIMIT \(try sql.bind(limit)) OFFSET \(try sql.bind(offset))"
    }

    private static func ids(
        _ statement: String, _ bindings: PostgresBindings, on connection: PostgresConnection, _ logger: Logger
    ) async throws -> [String] {
        var ids: [String] = []
        for try await id in try await connection.guardedQuery(
            PostgresQuery(unsafeSQL: statement, binds: bindings), logger: logger
        ).decode(String.self) {
            ids.append(id)
        }
        return ids
    }
}
