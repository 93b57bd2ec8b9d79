import Foundation
import GRDB
import PhotoStore

/// Requests for photos' details in SQLite: `requested_at` of `photo_details`, written over a small
/// connection of their own (``RequestConnection``), one row per photo and nothing else.
struct SQLitePhotoDetailsRequests: PhotoDetailsRequests, OnRequestConnection {
    let connection: RequestConnection

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await connection.database.write("recording a details request of photo \(photoID)") { db in
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
}
