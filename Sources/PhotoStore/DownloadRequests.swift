import Foundation
import GRDB

/// The one write `photosync serve` makes for the mirror's downloads: that a client asked for a
/// photo's download (`/unsplash/photos/:id/download`), so that the sync's download tracker tells
/// Unsplash about it, once per photo (``SyncLedger/pendingDownloadTracking(limit:)``).
///
/// It has its own small connection (``RequestConnection``), so that the gallery's store stays
/// read-only.
public final class DownloadRequests: Sendable {
    private let connection: RequestConnection
    /// The file, as every `StoreError` names it.
    public var path: String { connection.path }

    /// Opens the database at `path` for this write alone. Open it after
    /// ``PhotoStore/openExisting(path:)`` has checked the file: this adds no check of its own.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    public init(path: String) throws(StoreError) {
        connection = try RequestConnection(
            path: path, label: "PhotoStore.downloadRequests", purpose: "download requests")
    }

    /// Records that photo `photoID`'s download was requested at `date`; a photo requested
    /// before keeps its first request. Its tracking is forwarded by the sync, not here.
    /// - Returns: false when there is no such photo (nothing is recorded).
    public func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await connection.write("recording a download request of photo \(photoID)") { db in
            try db.execute(
                sql: """
                    INSERT INTO download_request (photo_id, requested_at)
                    SELECT id, ? FROM photo WHERE id = ?
                    ON CONFLICT (photo_id) DO NOTHING
                    """, arguments: [date.stored, photoID])
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM download_request WHERE photo_id = ?)",
                arguments: [photoID]) ?? false
        }
    }

    /// The photos whose download was requested, with the first request's time, by id.
    public func requested() async throws(StoreError) -> [String: Date] {
        try await connection.read("listing download requests") { db in
            var requests: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT photo_id, requested_at FROM download_request") {
                requests[row["photo_id"]] = (row["requested_at"] as StoredDate?)?.date
            }
            return requests
        }
    }

    /// Closes the connection; every later call throws.
    public func close() throws(StoreError) {
        try connection.close()
    }
}
