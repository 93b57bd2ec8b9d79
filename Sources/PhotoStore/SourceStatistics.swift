import Foundation

/// One source as `photosync status` shows it.
public struct SourceStatistics: Sendable, Equatable {
    public var name: String
    /// Whether the last `run` was configured with it.
    public var active: Bool
    /// Photos it listed.
    public var photos: Int64
    /// Of those, Unsplash+ photos, whose images are skipped.
    public var plusPhotos: Int64
    public var state: SyncState
    /// Why it could not be read, while that lasts.
    public var failure: SourceFailure?

    public init(
        name: String, active: Bool, photos: Int64, plusPhotos: Int64 = 0, state: SyncState,
        failure: SourceFailure? = nil
    ) {
        self.name = name
        self.active = active
        self.photos = photos
        self.plusPhotos = plusPhotos
        self.state = state
        self.failure = failure
    }
}

/// A source the API would not list (404: no such user, collection or topic).
public struct SourceFailure: Sendable, Equatable {
    public var message: String
    public var since: Date

    public init(message: String, since: Date) {
        self.message = message
        self.since = since
    }
}
