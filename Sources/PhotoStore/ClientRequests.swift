import Foundation

/// The one write `photosync serve` makes for the mirror's downloads: that a client asked for a
/// photo's download (`/unsplash/photos/:id/download`), so that the sync's download tracker tells
/// Unsplash about it, once per photo (``SyncLedger/pendingDownloadTracking(limit:)``). Opened
/// with ``StoreStorage/openDownloadRequests()``, beside a store that otherwise only reads.
public protocol DownloadRequests: Sendable {
    /// Records that photo `photoID`'s download was requested at `date`; a photo requested
    /// before keeps its first request. Its tracking is forwarded by the sync, not here.
    /// - Returns: false when there is no such photo (nothing is recorded).
    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool

    /// The photos whose download was requested, with the first request's time, by id.
    func requested() async throws(StoreError) -> [String: Date]

    /// Closes the connection; every later call throws.
    func close() throws(StoreError)
}

/// The one write `photosync serve` makes for photos' full objects: that a client asked for a
/// photo (`GET /photos/:id`) whose details are not stored, so that the sync fetches them at its
/// next round (``PhotoDetailsStore/pending(_:limit:)``). Opened with
/// ``StoreStorage/openPhotoDetailsRequests()``.
public protocol PhotoDetailsRequests: Sendable {
    /// Records that a client asked for the full object of photo `photoID` at `date`; a photo
    /// asked for before keeps its first request, and one whose details are stored is left as
    /// it is.
    /// - Returns: false when there is no such photo (nothing is recorded).
    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool

    /// Closes the connection; every later call throws.
    func close() throws(StoreError)
}
