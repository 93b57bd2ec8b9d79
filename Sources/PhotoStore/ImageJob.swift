import Foundation
import PhotosyncModel

/// An image waiting to be downloaded: one photo in one variant.
public struct ImageJob: Sendable, Equatable {
    public var photoID: String
    public var variant: ImageVariant
    public var sourceURL: String
    /// Failed attempts so far.
    public var attempts: Int

    public init(photoID: String, variant: ImageVariant, sourceURL: String, attempts: Int) {
        self.photoID = photoID
        self.variant = variant
        self.sourceURL = sourceURL
        self.attempts = attempts
    }
}

/// An image whose last attempt failed, for reporting: failed for good, or waiting for a retry.
public struct ImageFailure: Sendable, Equatable {
    public var photoID: String
    public var variant: ImageVariant
    public var attempts: Int
    public var lastError: String
    /// When it is tried again; nil when it failed for good (or is due at once).
    public var nextAttemptAt: Date?

    public init(photoID: String, variant: ImageVariant, attempts: Int, lastError: String, nextAttemptAt: Date? = nil) {
        self.photoID = photoID
        self.variant = variant
        self.attempts = attempts
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A stored photo whose `download_location` Unsplash still has to be told about.
public struct DownloadTrackingJob: Sendable, Equatable {
    public var photoID: String
    public var downloadLocation: String

    public init(photoID: String, downloadLocation: String) {
        self.photoID = photoID
        self.downloadLocation = downloadLocation
    }
}
