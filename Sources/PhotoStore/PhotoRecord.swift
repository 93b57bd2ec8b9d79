import Foundation

/// One photo as the API sent it: the input of `SyncLedger.commitPage`.
///
/// Plain data, independent of the Unsplash DTOs, so the store can change without the API
/// layer and back.
public struct PhotoRecord: Sendable, Equatable {
    public var id: String
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
    /// The URL of the configured image variant (`urls.<variant>`); nil means no image job.
    public var imageURL: String?
    /// `links.download_location`, to be called once the image is stored (Unsplash's guidelines).
    public var downloadLocation: String?
    /// An Unsplash+ photo: its image needs a paid licence, so none is fetched (nor tracked).
    public var isPlus: Bool
    /// The photo's original JSON, stored verbatim. It must be valid JSON: the store reads other
    /// image variants from it (`ImageQueue.enqueueMissingImages`).
    public var json: Data

    public init(
        id: String,
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        width: Int? = nil,
        height: Int? = nil,
        color: String? = nil,
        blurHash: String? = nil,
        description: String? = nil,
        altDescription: String? = nil,
        userUsername: String? = nil,
        userName: String? = nil,
        likes: Int? = nil,
        isSponsored: Bool = false,
        imageURL: String? = nil,
        downloadLocation: String? = nil,
        isPlus: Bool = false,
        json: Data
    ) {
        self.id = id
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
        self.imageURL = imageURL
        self.downloadLocation = downloadLocation
        self.isPlus = isPlus
        self.json = json
    }
}
