import Foundation

/// A whole mirror out of one store and into another, table by table, in photosync's own types:
/// what `photosync copy` (SQLite to PostgreSQL and back) and `backup` from PostgreSQL are made of.
///
/// Everything a mirror is crosses: photos with their original JSON and sequence, sources with
/// their cursors, memberships with their positions, images with their bytes and status, rejected
/// photos, photos' full objects, download tracking marks and serve's pending requests. What each
/// database derives (the search index, the stored-bytes counter) its own triggers rebuild; what
/// belongs to one process (the writer's lock or lease, the last configuration load) stays.
public protocol StoreTransfer: Sendable {
    /// Runs `body` with a reader that sees the mirror as it stood when `body` began, however long
    /// the copy takes: PostgreSQL's repeatable-read snapshot, one SQLite read transaction.
    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T

    /// Where a copy into this store stands: empty, a copy under way, or a mirror of its own.
    func copyState() async throws(StoreError) -> CopyTargetState

    /// Writes `rows` and records `progress` with them, in one transaction: a copy killed at any
    /// moment resumes after the last batch that committed, each row copied once. The first call
    /// on an empty store marks it as a copy in progress.
    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError)

    /// Ends the copy: the store holds a mirror of its own from now on.
    func finishCopy() async throws(StoreError)
}

/// Reads one table of a mirror in its own key order, a batch at a time.
public protocol MirrorReader: Sendable {
    /// The rows of `table` after `key` (from the first when nil), at most `limit` of them, and
    /// fewer once their image bytes reach ``MirrorTable/batchBytes``.
    func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int) async throws(StoreError) -> MirrorRows
}

/// The tables of a mirror, in the order a copy takes them: every row refers only to rows of the
/// tables before it.
public enum MirrorTable: String, CaseIterable, Sendable, Codable {
    case sources, photos
    case photoDetails = "photo-details"
    case memberships, images
    case
        rejectedPhotos = "rejected-photos"
    case downloadRequests = "download-requests"

    /// The image bytes one batch holds at most (a single larger image is a batch of its own).
    public static let batchBytes = 8 << 20

    /// The rows a copy reads and writes at once: enough to make a transaction worth its commit.
    public var batchSize: Int {
        switch self {
        case .images: 256
        case .photos, .photoDetails: 500
        case .sources, .memberships, .rejectedPhotos, .downloadRequests: 2_000
        }
    }
}

/// Where a batch ends in its table's order: an integer key (a sequence, a row id) or a photo id.
public enum MirrorKey: Sendable, Equatable, Codable {
    case integer(Int64)
    case text(String)
}

extension Optional where Wrapped == MirrorKey {
    /// The integer a batch's rows come after: the key's, or one below every row's.
    public var integerBound: Int64 {
        if case .integer(let value) = self { value } else { .min }
    }

    /// The text a batch's rows come after: the key's, or one below every row's.
    public var textBound: String {
        if case .text(let value) = self { value } else { "" }
    }
}

/// How far a copy has come: the table it is in and the key of the last row written, and which
/// mirror it copies (so that a second copy from elsewhere does not mix the two).
public struct CopyProgress: Sendable, Equatable {
    /// The source mirror's name: its file's path, or its URL without a password.
    public var origin: String
    public var table: MirrorTable
    public var after: MirrorKey?

    public init(origin: String, table: MirrorTable, after: MirrorKey?) {
        self.origin = origin
        self.table = table
        self.after = after
    }

    /// `after` as the two columns a store keeps it in: an integer key, or a text one.
    public var afterColumns: (integer: Int64?, text: String?) {
        switch after {
        case .integer(let value): (value, nil)
        case .text(let value): (nil, value)
        case nil: (nil, nil)
        }
    }

    /// The progress a store kept as ``afterColumns``.
    public init(origin: String, table: MirrorTable, afterInteger: Int64?, afterText: String?) {
        let after: MirrorKey? = afterInteger.map { .integer($0) } ?? afterText.map { .text($0) }
        self.init(origin: origin, table: table, after: after)
    }
}

/// What a copy finds in its target before it starts.
public enum CopyTargetState: Sendable, Equatable {
    /// No mirror: a copy may begin.
    case empty
    /// A copy that stopped before its end: it resumes from here.
    case copying(CopyProgress)
    /// A mirror of its own, which a copy must not mix another into.
    case holdsMirror
}

/// A batch of one table's rows.
public enum MirrorRows: Sendable, Equatable {
    case sources([MirrorSource])
    case photos([MirrorPhoto])
    case photoDetails([MirrorPhotoDetails])
    case memberships([MirrorMembership])
    case images([MirrorImage])
    case rejectedPhotos([MirrorRejectedPhoto])
    case downloadRequests([MirrorDownloadRequest])

    public var count: Int {
        rows.count
    }

    /// The key of the batch's last row, where the next batch begins; nil for an empty batch.
    public var lastKey: MirrorKey? {
        rows.lastKey
    }

    /// The image bytes the batch carries.
    public var imageBytes: Int64 {
        guard case .images(let rows) = self else { return 0 }
        return rows.reduce(0) { $0 + Int64($1.bytes?.count ?? 0) }
    }
}

/// A photo as stored: the API's columns, its original JSON, and photosync's own marks.
public struct MirrorPhoto: Sendable, Equatable {
    public var id: String
    /// The order photosync first saw it in, kept by the copy (listings follow it).
    public var sequence: Int64
    public var createdAt: Date?
    public var updatedAt: Date?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var blurHash: String?
    public var description: String?
    public var altDescription: String?
    public var userUsername: String?
    public var userName: String?
    public var likes: Int?
    public var isSponsored: Bool
    public var downloadLocation: String?
    public var downloadTrackedAt: Date?
    public var isPlus: Bool
    public var json: String
    public var firstSeenAt: Date
    public var lastSeenAt: Date

    public init(
        id: String, sequence: Int64, createdAt: Date?, updatedAt: Date?, width: Int?, height: Int?, color: String?,
        blurHash: String?, description: String?, altDescription: String?, userUsername: String?, userName: String?,
        likes: Int?, isSponsored: Bool, downloadLocation: String?, downloadTrackedAt: Date?, isPlus: Bool,
        json: String, firstSeenAt: Date, lastSeenAt: Date
    ) {
        self.id = id
        self.sequence = sequence
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.width = width
        self.height = height
        self.color = color
        self.blurHash = blurHash
        self.description = description
        self.altDescription = altDescription
        self.userUsername = userUsername
        self.userName = userName
        self.likes = likes
        self.isSponsored = isSponsored
        self.downloadLocation = downloadLocation
        self.downloadTrackedAt = downloadTrackedAt
        self.isPlus = isPlus
        self.json = json
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
    }
}

/// A source with its cursors, its state and its object.
public struct MirrorSource: Sendable, Equatable {
    /// Its row's key in the mirror it was read from (the target numbers its own).
    public var key: Int64
    public var name: String
    public var active: Bool
    public var backfillNext: String?
    public var backfillComplete: Bool
    public var catchUpNext: String?
    public var catchUpBaseline: Int64?
    public var lastPageAt: Date?
    public var backfillStallReason: String?
    public var backfillStalledAt: Date?
    public var error: String?
    public var errorAt: Date?
    public var objectJSON: String?
    public var objectFetchedAt: Date?

    public init(
        key: Int64, name: String, active: Bool, backfillNext: String?, backfillComplete: Bool, catchUpNext: String?,
        catchUpBaseline: Int64?, lastPageAt: Date?, backfillStallReason: String?, backfillStalledAt: Date?,
        error: String?, errorAt: Date?, objectJSON: String?, objectFetchedAt: Date?
    ) {
        self.key = key
        self.name = name
        self.active = active
        self.backfillNext = backfillNext
        self.backfillComplete = backfillComplete
        self.catchUpNext = catchUpNext
        self.catchUpBaseline = catchUpBaseline
        self.lastPageAt = lastPageAt
        self.backfillStallReason = backfillStallReason
        self.backfillStalledAt = backfillStalledAt
        self.error = error
        self.errorAt = errorAt
        self.objectJSON = objectJSON
        self.objectFetchedAt = objectFetchedAt
    }
}

/// A photo's place in a source.
public struct MirrorMembership: Sendable, Equatable {
    public var key: Int64
    public var photoID: String
    public var sourceName: String
    public var firstSeenAt: Date
    public var position: Int64

    public init(key: Int64, photoID: String, sourceName: String, firstSeenAt: Date, position: Int64) {
        self.key = key
        self.photoID = photoID
        self.sourceName = sourceName
        self.firstSeenAt = firstSeenAt
        self.position = position
    }
}

/// An image job with its status and, when stored, its bytes.
public struct MirrorImage: Sendable, Equatable {
    public var key: Int64
    public var photoID: String
    public var variant: String
    public var status: String
    public var sourceURL: String
    public var attempts: Int
    public var lastError: String?
    public var nextAttemptAt: Date?
    public var failureClass: String?
    public var contentType: String?
    public var byteCount: Int64?
    public var sha256: String?
    public var fetchedAt: Date?
    /// The bytes of a stored image; nil for any other status.
    public var bytes: Data?

    public init(
        key: Int64, photoID: String, variant: String, status: String, sourceURL: String, attempts: Int,
        lastError: String?, nextAttemptAt: Date?, failureClass: String?, contentType: String?, byteCount: Int64?,
        sha256: String?, fetchedAt: Date?, bytes: Data?
    ) {
        self.key = key
        self.photoID = photoID
        self.variant = variant
        self.status = status
        self.sourceURL = sourceURL
        self.attempts = attempts
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.failureClass = failureClass
        self.contentType = contentType
        self.byteCount = byteCount
        self.sha256 = sha256
        self.fetchedAt = fetchedAt
        self.bytes = bytes
    }
}

/// A photo the sync set aside, with why.
public struct MirrorRejectedPhoto: Sendable, Equatable {
    public var key: Int64
    public var photoID: String?
    public var json: String
    public var reason: String
    public var firstSeenAt: Date
    public var lastSeenAt: Date

    public init(key: Int64, photoID: String?, json: String, reason: String, firstSeenAt: Date, lastSeenAt: Date) {
        self.key = key
        self.photoID = photoID
        self.json = json
        self.reason = reason
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
    }
}

/// A photo's full object, or the request for it that serve recorded.
public struct MirrorPhotoDetails: Sendable, Equatable {
    public var photoID: String
    public var requestedAt: Date?
    public var json: String?
    public var fetchedAt: Date?

    public init(photoID: String, requestedAt: Date?, json: String?, fetchedAt: Date?) {
        self.photoID = photoID
        self.requestedAt = requestedAt
        self.json = json
        self.fetchedAt = fetchedAt
    }
}

/// A download that a client of serve asked to be tracked, not yet forwarded.
public struct MirrorDownloadRequest: Sendable, Equatable {
    public var photoID: String
    public var requestedAt: Date

    public init(photoID: String, requestedAt: Date) {
        self.photoID = photoID
        self.requestedAt = requestedAt
    }
}
