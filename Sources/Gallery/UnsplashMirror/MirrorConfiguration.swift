import Foundation
import PhotoStore

/// How `serve` answers Unsplash's API under `/unsplash`: which client keys it accepts, how many
/// requests a key may make an hour, where photos' image URLs point, and what it does with a
/// download request.
public struct MirrorConfiguration: Sendable {
    /// Where a photo's `urls` point.
    public enum ImageURLs: String, Sendable, CaseIterable {
        /// Unsplash's own image URLs, as the API sent them: its guidelines ask apps to hotlink them.
        case unsplash
        /// The mirror's `/images/ID?variant=NAME` for each variant it stores (for offline work and
        /// tests); the other variants keep Unsplash's URLs.
        case local
    }

    /// What becomes of a download request (`/unsplash/photos/:id/download`), as the
    /// `X-Photosync-Download-Tracking` header says. Whatever it is, an Unsplash+ photo's download
    /// is never recorded: the header says `not-tracked-unsplash-plus`.
    public enum DownloadTracking: String, Sendable {
        /// Recorded in the database; `photosync run` forwards it to Unsplash once per photo.
        case queued
        /// `download_tracking` is off: nothing is recorded or forwarded.
        case off
    }

    /// The client keys accepted (`Authorization: Client-ID KEY` or `client_id=KEY`); empty
    /// accepts any key.
    public var clientKeys: Set<String>
    /// Requests a key may make in each clock hour.
    public var hourlyLimit: Int
    public var imageURLs: ImageURLs
    public var downloadTracking: DownloadTracking
    /// False when the sync stores no images (`variant: none`): said in the download answer's
    /// `X-Photosync-Images` header, and `url` is then Unsplash's.
    public var storesImages: Bool
    /// Where download requests are written; nil records none (the answer says `not-recorded`).
    public var downloadRequests: (any DownloadRequests)?
    /// Where requests for photos' full objects are written (`photo_details: on-demand`); nil
    /// records none.
    public var photoDetailsRequests: (any PhotoDetailsRequests)?
    /// The time, for the rate limit's hours and the download requests' records.
    public var now: @Sendable () -> Date

    /// Unsplash's limit for a production key.
    public static let defaultHourlyLimit = 5_000

    public init(
        clientKeys: Set<String> = [], hourlyLimit: Int = 5_000, imageURLs: ImageURLs = .unsplash,
        downloadTracking: DownloadTracking = .queued, storesImages: Bool = true,
        downloadRequests: (any DownloadRequests)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientKeys = clientKeys
        self.hourlyLimit = max(1, hourlyLimit)
        self.imageURLs = imageURLs
        self.downloadTracking = downloadTracking
        self.storesImages = storesImages
        self.downloadRequests = downloadRequests
        self.now = now
    }
}
