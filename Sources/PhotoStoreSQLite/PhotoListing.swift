import Foundation
import GRDB
import PhotoStore

/// Values bound to a statement's placeholders, in order.
typealias SQLValues = [(any DatabaseValueConvertible)?]

/// How ``PhotoCatalog/photos(matching:)`` finds a page, in two steps inside one read: first the
/// page's photos as row ids, from an index alone (each order is an index of schema v11, so a
/// page is a range of it, found by key); then those few rows with their stored image and
/// sources. The photos a page skips are never read, nor their JSON, images or memberships.
///
/// Page numbers stay cheap at any depth: for a listing without a search, the key of every
/// ``ListingLimits/anchorInterval``-th photo is kept (``ListingAnchors``, until the database
/// changes), and a deep offset starts from the nearest anchor. A search by relevance ranks at
/// most ``ListingLimits/rankLimit`` matches (see ``rankedPage(_:_:)``).
struct PhotoListing {
    let db: Database
    /// The database file, for errors.
    let path: String
    let query: PhotoQuery
    /// The kept values this read uses.
    let anchors: ListingAnchors.Reading
    let limits: ListingLimits
    var anchorInterval: Int { limits.anchorInterval }
    var rankLimit: Int { limits.rankLimit }

    /// What the first step selects from: tables, conditions and their arguments, in order.
    private struct Selection {
        var from = "photo"
        var conditions: [String] = []
        var arguments: SQLValues = []
        /// The selection is empty whatever else it says (an unknown source).
        var empty = false
        /// The column that is a listed photo's row id.
        var rowID = "photo.rowid"
        /// The search, when the query has one that can match.
        var search: SQLiteSearch?

        mutating func add(_ condition: String, _ values: (any DatabaseValueConvertible)?...) {
            conditions.append(condition)
            arguments += values
        }

        /// The arguments as text, for a kept listing's signature. (Interpolating the arguments
        /// themselves describes each through the runtime's reflection, a cost on every request.)
        var values: [String] { arguments.map { $0?.databaseValue.description ?? "NULL" } }

        func whereClause(_ extra: [String] = []) -> String {
            let all = conditions + extra
            return all.isEmpty ? "" : "WHERE " + all.joined(separator: " AND ")
        }
    }

    /// One stretch of an order: its rows (`condition`) in the order of `keys`, all ascending or
    /// all descending, ending with the unique `sequence`, so that a photo's key says where a page
    /// continues. `bounds` are the keys as compared with a photo's key (the same, unless the
    /// keys can be NULL, which compares to nothing).
    private struct Segment {
        var condition: String?
        var keys: [String]
        var bounds: [String]
        var descending: Bool

        init(_ condition: String?, keys: [String], bounds: [String]? = nil, descending: Bool) {
            self.condition = condition
            self.keys = keys
            self.bounds = bounds ?? keys
            self.descending = descending
        }

        func clause(reversed: Bool) -> String {
            let direction = descending != reversed ? " DESC" : ""
            return keys.map { $0 + direction }.joined(separator: ", ")
        }

        /// That a photo comes after (or at, when `inclusive`) the bound values, read forwards
        /// (or backwards, when `reversed`).
        func after(inclusive: Bool, reversed: Bool) -> String {
            let comparison = (descending != reversed ? "<" : ">") + (inclusive ? "=" : "")
            guard bounds.count > 1 else { return "\(bounds[0]) \(comparison) ?" }
            let placeholders = bounds.map { _ in "?" }.joined(separator: ", ")
            return "(\(bounds.joined(separator: ", "))) \(comparison) (\(placeholders))"
        }
    }

    /// A listing's order, as the segments SQLite sorts it in: photos without a creation date
    /// come after the others newest first, before them oldest first (SQLite sorts NULL first),
    /// so each segment's key is NULL-free and a range of the index.
    private struct Order {
        /// What locates a photo in the order: read for cursors and anchors.
        var keys: [String]
        var segments: [Segment]
        /// Whether deep pages start from anchors: walking from one costs a range of an index.
        var anchored: Bool
        /// The segment that a photo with key `key` is in, and the values its bounds compare to.
        var locate: @Sendable ([DatabaseValue]) -> (segment: Int, values: SQLValues)
    }

    private var order: Order {
        if inSourceOrder {
            // Memberships are placed where the source lists them: a range of `photo_source_position`.
            let membership = Segment(nil, keys: ["photo_source.position"], descending: false)
            return Order(keys: membership.keys, segments: [membership], anchored: true) { key in (0, [key[0]]) }
        }
        let dated = Segment(
            "photo.created_at IS NOT NULL", keys: ["photo.created_at", "photo.sequence"], descending: true)
        let undated = Segment("photo.created_at IS NULL", keys: ["photo.sequence"], descending: true)
        switch query.sort {
        case .newest, .relevance:
            return Order(keys: dated.keys, segments: [dated, undated], anchored: true) { key in
                key[0].isNull ? (1, [key[1]]) : (0, [key[0], key[1]])
            }
        case .oldest:
            var (dated, undated) = (dated, undated)
            dated.descending = false
            undated.descending = false
            return Order(keys: dated.keys, segments: [undated, dated], anchored: true) { key in
                key[0].isNull ? (0, [key[1]]) : (1, [key[0], key[1]])
            }
        case .likes:
            // Two keys may be NULL: the bounds compare them through ifnull, which is correct but
            // reads each row, so this order pages by offset (still a walk of one index).
            let bounds = ["ifnull(photo.likes, -1)", "ifnull(photo.created_at, '')", "photo.sequence"]
            let likes = Segment(
                nil, keys: ["photo.likes", "photo.created_at", "photo.sequence"], bounds: bounds, descending: true)
            return Order(keys: bounds, segments: [likes], anchored: false) { key in (0, key.map { $0 }) }
        }
    }

    /// The photos are listed in the order their source listed them (``PhotoQuery/inSourceOrder``).
    private var inSourceOrder: Bool { query.inSourceOrder && query.source != nil }

    /// The row ids of the page's photos, in order.
    func pageRowIDs() throws -> [Int64] {
        let selection = try selection()
        if selection.empty || query.limit == 0 { return [] }
        if let search = selection.search, query.sort == .relevance {
            return try rankedPage(selection, search)
        }
        return try orderedPage(selection)
    }

    private func selection() throws -> Selection {
        var selection = Selection()
        if let text = query.text {
            selection.from = "photo_search JOIN photo ON photo.sequence = photo_search.rowid"
            guard let search = try SQLiteSearch(text) else {
                selection.empty = true
                return selection
            }
            selection.search = search
            selection.add("photo_search MATCH ?", search.match)
        }
        if let username = query.username {
            selection.add("photo.user_username = ? COLLATE NOCASE", username)
        }
        switch query.orientation {
        case .landscape?: selection.add("photo.width > photo.height")
        case .portrait?: selection.add("photo.width < photo.height")
        case .squarish?: selection.add("photo.width = photo.height")
        case nil: break
        }
        if let color = query.color {
            selection.add("photo_color_matches(photo.color, ?)", color.rawValue)
        }
        if let since = query.since {
            selection.add("photo.created_at >= ?", StoredDate(since))
        }
        if let until = query.until {
            selection.add("photo.created_at < ?", StoredDate(until))
        }
        if let source = query.source {
            try addSource(source, to: &selection)
        }
        return selection
    }

    private func addSource(_ name: String, to selection: inout Selection) throws {
        guard
            let sourceID = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM source WHERE name = ?"), arguments: [name])
        else {
            selection.empty = true
            return
        }
        let members =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: "SELECT count(*) FROM (SELECT 1 FROM photo_source WHERE source_id = ? LIMIT ?)"),
                arguments: [sourceID, limits.smallSource + 1]) ?? 0
        if inSourceOrder && selection.from == "photo" && selection.conditions.isEmpty {
            // The source's own order and nothing else: a range of its memberships, whose photos
            // are looked up only for the page, not for every membership a deep page skips.
            selection.from = "photo_source"
            selection.add("photo_source.source_id = ?", sourceID)
            selection.rowID = "(SELECT photo.rowid FROM photo WHERE photo.id = photo_source.photo_id)"
        } else if inSourceOrder || (members <= limits.smallSource && query.text == nil) {
            // Few photos: read them from the memberships and sort them.
            selection.from = "photo_source CROSS JOIN photo ON photo.id = photo_source.photo_id"
            selection.add("photo_source.source_id = ?", sourceID)
        } else if try anchors.isWholeStore(db, sourceID: sourceID) {
            // A source every photo is in (the feed, usually) filters nothing: checking each
            // photo's membership would cost a lookup per photo a page skips.
        } else {
            selection.add(
                """
                EXISTS (SELECT 1 FROM photo_source
                        WHERE photo_source.photo_id = photo.id AND photo_source.source_id = ?)
                """,
                sourceID)
        }
    }

    // MARK: - In the listing's order

    private func orderedPage(_ selection: Selection) throws -> [Int64] {
        let order = order
        var start: (key: [DatabaseValue], inclusive: Bool)?
        var offset = max(0, query.offset)
        let reversed = query.after == nil && query.before != nil
        if let cursor = query.after ?? query.before {
            start = (try key(ofPhoto: cursor, order), false)
        } else if order.anchored && query.text == nil, let anchor = limits.anchor(forOffset: offset) {
            let signature =
                "\(selection.from) \(selection.whereClause()) \(order.keys) \(query.sort) \(selection.values)"
            let keys = try anchors.keys(db, signature: signature, interval: anchorInterval) {
                try anchorKeys(selection, order)
            }
            // No anchor this deep: the offset is past the last photo.
            guard anchor.index < keys.count else { return [] }
            start = (keys[anchor.index], true)
            offset = anchor.offset
        }
        let rowIDs = try walk(
            selection, order, from: start, reversed: reversed, offset: offset, limit: query.limit,
            columns: selection.rowID
        ).compactMap { $0[0] as Int64? }
        return reversed ? rowIDs.reversed() : rowIDs
    }

    /// `columns` of the selection's photos in `order`, from `start` on (at the photo with that
    /// key when inclusive, after it otherwise; backwards when `reversed`), `offset` skipped, at
    /// most `limit`. A segment is counted only when a page skips all of what is left of it.
    private func walk(
        _ selection: Selection, _ order: Order, from start: (key: [DatabaseValue], inclusive: Bool)?,
        reversed: Bool, offset: Int, limit: Int?, columns: String
    ) throws -> [Row] {
        let segments = reversed ? Array(order.segments.indices.reversed()) : Array(order.segments.indices)
        var first = segments.startIndex
        var bound: SQLValues = []
        if let start {
            let (segment, values) = order.locate(start.key)
            first = segments.firstIndex(of: segment) ?? segments.startIndex
            bound = values
        }
        var rows: [Row] = []
        var skip = offset
        for position in segments[first...].indices {
            let segment = order.segments[segments[position]]
            var conditions = segment.condition.map { [$0] } ?? []
            var arguments = selection.arguments
            if let start, position == first {
                conditions.append(segment.after(inclusive: start.inclusive, reversed: reversed))
                arguments += bound
            }
            let clause = selection.whereClause(conditions)
            let wanted = limit.map { $0 - rows.count } ?? -1
            let fetched = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(columns) FROM \(selection.from) \(clause)
                        ORDER BY \(segment.clause(reversed: reversed)) LIMIT ? OFFSET ?
                        """),
                arguments: StatementArguments(arguments + [wanted, skip]))
            rows += fetched
            if let limit, rows.count >= limit { break }
            if fetched.isEmpty && skip > 0 {
                let count = try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM \(selection.from) \(clause)"),
                    arguments: StatementArguments(arguments))
                skip = max(0, skip - (count ?? 0))
            } else {
                skip = 0
            }
        }
        return rows
    }

    /// The key in `order` of the photo `id`.
    /// - Throws: `StoreError.unknownPhoto` when there is no such photo.
    private func key(ofPhoto id: String, _ order: Order) throws -> [DatabaseValue] {
        var sql = "SELECT \(order.keys.joined(separator: ", ")) FROM photo WHERE photo.id = ?"
        var arguments: StatementArguments = [id]
        if inSourceOrder, let source = query.source {
            sql = """
                SELECT photo_source.position FROM photo_source
                JOIN source ON source.id = photo_source.source_id AND source.name = ?
                WHERE photo_source.photo_id = ?
                """
            arguments = [source, id]
        }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) else {
            throw StoreError.unknownPhoto(path: path, photoID: id)
        }
        return Array(row.databaseValues)
    }

    /// The key of every `anchorInterval`-th photo of the selection in `order`, from the first:
    /// each found from the one before by a walk of `anchorInterval` index entries.
    private func anchorKeys(_ selection: Selection, _ order: Order) throws -> [[DatabaseValue]] {
        let columns = order.keys.joined(separator: ", ")
        var keys: [[DatabaseValue]] = []
        var next = try walk(selection, order, from: nil, reversed: false, offset: 0, limit: 1, columns: columns).first
        while let row = next {
            let key = Array(row.databaseValues)
            keys.append(key)
            next = try walk(
                selection, order, from: (key, true), reversed: false, offset: anchorInterval, limit: 1,
                columns: columns
            ).first
        }
        return keys
    }

    // MARK: - By relevance

    /// A search by relevance ranks its matches with ``SearchRanking`` when there are at most
    /// ``ListingLimits/rankLimit`` of them, and lists them most recently stored first when there
    /// are more (the index's own order, no sort). The ranking reads the matches' document fields
    /// from the index (its own copy of them): its statistics are the matches', so a word every
    /// photo has costs nothing more than a rare one (bm25, ranking here before, counted every
    /// photo that had each word, 15 ms for a word every photo has). Matches are counted only up
    /// to the limit, and the ranking is kept, like the anchors, until the database changes: each
    /// page of the same search is then a slice of it.
    private func rankedPage(_ selection: Selection, _ search: SQLiteSearch) throws -> [Int64] {
        let from = "FROM \(selection.from) \(selection.whereClause())"
        let ranking = try anchors.ranking(db, signature: "\(rankLimit) \(from) \(selection.values)") {
            () throws -> [Int64]? in
            let matches =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 \(from) LIMIT ?)"),
                    arguments: StatementArguments(selection.arguments + [rankLimit + 1])) ?? 0
            guard matches <= rankLimit else { return nil }
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT \(SQLiteSearch.rankedColumns) \(from)"),
                arguments: StatementArguments(selection.arguments))
            return try search.ranked(rows)
        }
        guard let ranking else {
            return try rows(
                "SELECT photo.rowid \(from) ORDER BY photo_search.rowid DESC LIMIT ? OFFSET ?",
                selection.arguments + [query.limit ?? -1, max(0, query.offset)])
        }
        // A slice as LIMIT and OFFSET would take it: a negative limit is none.
        let start = min(max(0, query.offset), ranking.count)
        let length = query.limit.flatMap { $0 >= 0 ? min($0, ranking.count - start) : nil } ?? ranking.count - start
        return Array(ranking[start..<(start + length)])
    }

    private func rows(_ sql: String, _ arguments: SQLValues) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }
}
