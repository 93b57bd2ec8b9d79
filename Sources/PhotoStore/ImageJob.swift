/// An image waiting to be downloaded: one photo in one variant.
public struct ImageJob: Sendable, Equatable {
    public var photoID: String
    public var variant: String
    public var sourceURL: String
    /// Failed attempts so far.
    public var attempts: Int

    public init(photoID: String, variant: String, sourceURL: String, attempts: Int) {
        self.photoID = photoID
        self.variant = variant
        self.sourceURL = sourceURL
        self.attempts = attempts
    }
}

/// An image that was given up on (`recordImageFailure` with no retry time), for reporting.
public struct ImageFailure: Sendable, Equatable {
    public var photoID: String
    public var variant: String
    public var attempts: Int
    public var lastError: String

    public init(photoID: String, variant: String, attempts: Int, lastError: String) {
        self.photoID = photoID
        self.variant = variant
        self.attempts = attempts
        self.lastError = lastError
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
