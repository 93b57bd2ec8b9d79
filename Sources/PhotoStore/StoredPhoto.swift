import Foundation
import PhotosyncModel

/// A stored image's metadata; its bytes are read with `ImageArchive`.
public struct StoredImage: Sendable, Equatable {
    public var variant: ImageVariant
    public var contentType: String
    public var byteCount: Int64
    /// Lowercase hex SHA-256 of the bytes, as given to `ImageArchive.storeImages`.
    public var sha256: String
    public var fetchedAt: Date

    public init(variant: ImageVariant, contentType: String, byteCount: Int64, sha256: String, fetchedAt: Date) {
        self.variant = variant
        self.contentType = contentType
        self.byteCount = byteCount
        self.sha256 = sha256
        self.fetchedAt = fetchedAt
    }
}

/// A photo as stored: the queryable columns, the original JSON, and bookkeeping.
public struct StoredPhoto: Sendable, Equatable {
    public var id: String
    /// Assigned once, on first insert, in increasing order.
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
    /// The JSON of the latest commit that listed the photo, byte for byte.
    public var json: Data
    /// When a page first listed the photo; never changes.
    public var firstSeenAt: Date
    /// When a page last listed the photo.
    public var lastSeenAt: Date
    /// The stored image of the requested variant, or of any variant when none was requested.
    public var image: StoredImage?
    /// An Unsplash+ photo (its image URLs on `plus.unsplash.com`), whose image needs a paid
    /// licence and is never downloaded.
    public var isPlus = false

    public init(
        id: String, sequence: Int64, createdAt: Date?, updatedAt: Date?, width: Int?, height: Int?,
        color: String?, blurHash: String?, description: String?, altDescription: String?,
        userUsername: String?, userName: String?, likes: Int?, isSponsored: Bool,
        downloadLocation: String?, downloadTrackedAt: Date?, json: Data,
        firstSeenAt: Date, lastSeenAt: Date, image: StoredImage?
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
        self.json = json
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.image = image
    }
}
