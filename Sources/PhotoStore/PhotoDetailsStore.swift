import Foundation

/// A photo's full object, as `GET /photos/:id` answers it (exif, location, tags, statistics...),
/// kept beside its list version as the exact text the API sent: the sync stores it, the mirror
/// serves it, `query` shows it, and search finds the photo by its location and tags from the
/// moment it is stored (the photo is re-indexed in the same transaction).
///
/// A photo is *pending* when its details are wanted but not stored: with `photo_details: all`,
/// every photo without them; with `on-demand`, those a client of the mirror asked for
/// (``PhotoDetailsRequests``). Each write is one small transaction. Both stores run one
/// implementation, ``SQLPhotoDetailsStore``.
public protocol PhotoDetailsStore: Sendable {
    /// The ids of at most `limit` photos whose details are wanted and not stored, those a
    /// client asked for first (oldest request first), then, for ``PhotoDetailsWanted/all``, the others,
    /// newest stored first.
    func pending(_ wanted: PhotoDetailsWanted, limit: Int) async throws(StoreError) -> [String]

    /// Stores `json` as the full object of photo `photoID`, fetched `at`, replacing any earlier
    /// one, and re-indexes the photo for search in the same transaction.
    /// - Returns: false when there is no such photo (nothing is stored).
    /// - Throws: `StoreError.databaseFailure`, also when `json` is not valid JSON; nothing is
    ///   changed then.
    @discardableResult
    func store(_ json: Data, photoID: String, at date: Date) async throws(StoreError) -> Bool

    /// The stored full object of photo `photoID`; nil when it has none (yet).
    func details(photoID: String) async throws(StoreError) -> StoredPhotoDetails?

    /// The stored full objects of the photos `photoIDs` that have one, by photo id (for a list
    /// of photos, such as `/photos/random`'s, in one read).
    func details(photoIDs: [String]) async throws(StoreError) -> [String: StoredPhotoDetails]

    /// Whether a client asked for the details of photo `photoID` and they are not stored yet.
    func isRequested(photoID: String) async throws(StoreError) -> Bool
}

/// When a photo's details are wanted: see ``PhotoDetailsStore/pending(_:limit:)``.
public enum PhotoDetailsWanted: Sendable, Equatable {
    /// Only those a client of the mirror asked for.
    case requested
    /// Those asked for first, then every photo without them, newest stored first.
    case all
}

/// A photo's stored full object: see ``PhotoDetailsStore``.
public struct StoredPhotoDetails: Sendable, Equatable {
    /// The text the API sent.
    public var json: Data
    public var fetchedAt: Date?

    public init(json: Data, fetchedAt: Date?) {
        self.json = json
        self.fetchedAt = fetchedAt
    }
}
