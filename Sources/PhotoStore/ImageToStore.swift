import Foundation
import PhotosyncModel

/// A downloaded image ready to be stored with its job: for ``ImageArchive/storeImages(_:failures:)``.
public struct ImageToStore: Sendable, Equatable {
    /// Where the bytes are: in memory, or in a file that holds exactly `byteCount` bytes.
    public enum Bytes: Sendable, Equatable {
        case data(Data)
        case file(URL, byteCount: Int64)
    }

    public var photoID: String
    public var variant: ImageVariant
    public var contentType: String
    public var bytes: Bytes
    /// Lowercase hex SHA-256 of the bytes, computed by the caller.
    public var sha256: String
    public var fetchedAt: Date

    public init(
        photoID: String, variant: ImageVariant, contentType: String, bytes: Bytes, sha256: String, fetchedAt: Date
    ) {
        self.photoID = photoID
        self.variant = variant
        self.contentType = contentType
        self.bytes = bytes
        self.sha256 = sha256
        self.fetchedAt = fetchedAt
    }

    public var byteCount: Int64 {
        switch bytes {
        case .data(let data): Int64(data.count)
        case .file(_, let byteCount): byteCount
        }
    }
}

/// A failed download attempt to record with a batch: see ``ImageQueue/recordImageFailure(photoID:variant:error:retryAt:)``.
public struct ImageAttemptFailure: Sendable, Equatable {
    public var photoID: String
    public var variant: ImageVariant
    public var error: String
    /// When to try again; nil gives the image up as failed.
    public var retryAt: Date?

    public init(photoID: String, variant: ImageVariant, error: String, retryAt: Date?) {
        self.photoID = photoID
        self.variant = variant
        self.error = error
        self.retryAt = retryAt
    }
}
