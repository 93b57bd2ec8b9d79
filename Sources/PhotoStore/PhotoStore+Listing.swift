import Foundation
import GRDB

/// Which stored photos to list, and in what order.
public struct PhotoQuery: Sendable, Equatable {
    public enum Orientation: String, CaseIterable, Sendable {
        case landscape, portrait, squarish
    }

    public enum Sort: String, CaseIterable, Sendable {
        /// By `created_at`, newest first.
        case newest
        case oldest
        /// Most liked first, then newest.
        case likes
        /// Best match first (FTS5's bm25), then newest; without ``PhotoQuery/text``, newest.
        case relevance
    }

    /// Full-text search over description, alt description, the photographer's name and
    /// username, location and tag titles, in FTS5's syntax: words, "quoted phrases", prefix*.
    public var text: String?

    /// The photographer's username, compared without regard to case.
    public var username: String?
    /// Only photos this source listed (`feed`, `user:ann`).
    public var source: String?
    public var orientation: Orientation?
    /// Photos created at or after this instant.
    public var since: Date?
    /// Photos created before this instant.
    public var until: Date?
    public var sort: Sort
    /// At most this many; nil for all.
    public var limit: Int?
    public var offset: Int

    /// Unsplash's feed, the source of every photo stored before there were others.
    public static let feedSource = "feed"

    public init(
        text: String? = nil, username: String? = nil, source: String? = nil, orientation: Orientation? = nil,
        since: Date? = nil, until: Date? = nil, sort: Sort = .newest, limit: Int? = nil, offset: Int = 0
    ) {
        self.text = text
        self.username = username
        self.source = source
        self.orientation = orientation
        self.since = since
        self.until = until
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}

/// What a listing shows of a photo: its queryable columns and its stored image, not its JSON.
public struct PhotoSummary: Sendable, Equatable {
    public var id: String
    public var createdAt: Date?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var likes: Int?
    public var description: String?
    public var altDescription: String?
    public var userUsername: String?
    public var userName: String?
    /// The most recently stored variant, if any.
    public var image: StoredImage?
    /// The sources that listed it, by name.
    public var sources: [String] = []

    public init(
        id: String, createdAt: Date?, width: Int?, height: Int?, color: String?, likes: Int?,
        description: String?, altDescription: String?, userUsername: String?, userName: String?, image: StoredImage?,
        sources: [String] = []
    ) {
        self.sources = sources
        self.id = id
        self.createdAt = createdAt
        self.width = width
        self.height = height
        self.color = color
        self.likes = likes
        self.description = description
        self.altDescription = altDescription
        self.userUsername = userUsername
        self.userName = userName
        self.image = image
    }
}

extension PhotoStore {
    /// The stored photos `query` selects, in its order, from one snapshot. Reads columns and
    /// indexes only: neither the JSON nor the image bytes.
    /// - Throws: `StoreError.invalidSearch` when FTS5 cannot parse ``PhotoQuery/text``.
    public func photos(matching query: PhotoQuery) throws -> [PhotoSummary] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        var search = ""
        if let text = query.text {
            search = "JOIN photo_search ON photo_search.rowid = photo.sequence"
            conditions.append("photo_search MATCH ?")
            _ = arguments.append(contentsOf: [text])
        }
        if let source = query.source {
            conditions.append("""
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
        let order = switch query.sort {
        case .relevance where query.text != nil: "bm25(photo_search), photo.created_at DESC, photo.sequence DESC"
        case .newest, .relevance: "photo.created_at DESC, photo.sequence DESC"
        case .oldest: "photo.created_at ASC, photo.sequence ASC"
        case .likes: "photo.likes DESC, photo.created_at DESC, photo.sequence DESC"
        }
        _ = arguments.append(contentsOf: [query.limit ?? -1, max(0, query.offset)])
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
        do {
            return try pool.read { db in try Self.summaries(db, sql: sql, arguments: arguments) }
        } catch let error as DatabaseError where query.text != nil && error.resultCode == .SQLITE_ERROR
            && !(error.message ?? "").hasPrefix("no such")
        {
            // The statement itself is fixed and tested: an SQL error with a search in it is
            // FTS5 refusing the search text ("fts5: syntax error near", "unterminated string").
            throw StoreError.invalidSearch(query.text ?? "")
        } catch {
            throw StoreError(error, path: path, operation: "listing photos")
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
}
