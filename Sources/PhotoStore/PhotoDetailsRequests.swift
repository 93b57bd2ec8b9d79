import Foundation
import GRDB

/// `photo_details: on-demand`'s one write from `photosync serve`: that a client of the mirror
/// asked for a photo (`GET /unsplash/photos/:id`) whose full object is not stored, so that the
/// running sync fetches it within its budget at its next round
/// (``PhotoDetailsStore/pending(_:limit:)``).
///
/// As ``DownloadRequests``, it has its own small connection (``RequestConnection``), so that the
/// gallery's store stays read-only, and it writes one row per photo and nothing else.
public final class PhotoDetailsRequests: Sendable {
    private let connection: RequestConnection
    /// The file, as every `StoreError` names it.
    public var path: String { connection.path }

    /// Opens the database at `path` for this write alone. Open it after
    /// ``PhotoStore/openExisting(path:)`` has checked the file: this adds no check of its own.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    public init(path: String) throws(StoreError) {
        connection = try RequestConnection(
            path: path, label: "PhotoStore.photoDetailsRequests", purpose: "photo details requests")
    }

    /// Records that a client asked for the full object of photo `photoID` at `date`; a photo
    /// asked for before keeps its first request, and one whose details are stored is left as
    /// it is.
    /// - Returns: false when there is no such photo (nothing is recorded).
    public func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await connection.write("recording a details request of photo \(photoID)") { db in
            try db.execute(
                sql: """
                    INSERT INTO photo_details (photo_id, requested_at)
                    SELECT id, ? FROM photo WHERE id = ?
                    ON CONFLICT (photo_id) DO UPDATE SET requested_at = excluded.requested_at
                    WHERE requested_at IS NULL AND json IS NULL
                    """, arguments: [date.stored, photoID])
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM photo_details WHERE photo_id = ?)", arguments: [photoID])
                ?? false
        }
    }

    /// Closes the connection; every later call throws.
    public func close() throws(StoreError) {
        try connection.close()
    }
}
