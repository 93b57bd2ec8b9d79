import Foundation

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
        /// Best match first (``SearchRanking``), then newest; without ``PhotoQuery/text``, newest.
        case relevance
    }

    /// Full-text search over description, alt description, the photographer's name and
    /// username, location and tag titles, in photosync's syntax (``SearchExpression``): words,
    /// "quoted phrases", prefix*, AND, OR, NOT.
    public var text: String?

    /// The photographer's username, compared without regard to case.
    public var username: String?
    /// Only photos this source listed (`feed`, `user:ann`).
    public var source: String?
    public var orientation: Orientation?
    /// Photos whose dominant colour has this colour (see ``PhotoColor``). Checked photo by
    /// photo: no index orders by it.
    public var color: PhotoColor?
    /// Photos created at or after this instant.
    public var since: Date?
    /// Photos created before this instant.
    public var until: Date?
    public var sort: Sort
    /// At most this many; nil for all.
    public var limit: Int?
    /// Rows skipped, after ``after`` or ``before`` when one is set. Costs the same at any depth
    /// without a search; with one, ranking is bounded (see ``PhotoCatalog/photos(matching:)``).
    public var offset: Int
    /// With ``source`` set, lists the photos in the order that source listed them (the order of
    /// their memberships), ahead of ``sort``: as Unsplash lists it, the newest head catch-up's
    /// photos first (in the API's order), then older catch-ups', then the backfill's in the API's
    /// order. A photo listed again keeps its first place.
    public var inSourceOrder: Bool = false
    /// A cursor: only the photos that come after the photo with this id in this order. Ignored
    /// by a search ranked by relevance.
    public var after: String?
    /// A cursor: only the photos that come before the photo with this id in this order, the
    /// nearest to it last (the page before a page that starts with it). Ignored by a search
    /// ranked by relevance, and by ``after``'s presence.
    public var before: String?
    /// Whether each listed photo also carries its smallest stored image
    /// (``PhotoSummary/smallestImage``), as a gallery's tiles show it. Off, a listing reads only
    /// the newest: on PostgreSQL the smallest is a second subquery for each photo, a fifth of a
    /// JSON page's throughput.
    public var withSmallestImage: Bool = false

    public init(
        text: String? = nil, username: String? = nil, source: String? = nil, orientation: Orientation? = nil,
        since: Date? = nil, until: Date? = nil, sort: Sort = .newest, limit: Int? = nil, offset: Int = 0,
        after: String? = nil, before: String? = nil
    ) {
        self.after = after
        self.before = before
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
    /// The smallest stored variant (the fewest bytes, then the first by name), if any and if the
    /// listing asked for it (``PhotoQuery/withSmallestImage``): what a gallery's grid shows.
    public var smallestImage: StoredImage?
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
