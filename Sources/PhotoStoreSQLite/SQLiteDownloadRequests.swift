import Foundation
import GRDB
import PhotoStore

/// Download requests in SQLite: rows of `download_request`, written over a small connection of
/// their own (``RequestConnection``), so that the gallery's store stays read-only.
struct SQLiteDownloadRequests: DownloadRequests, OnRequestConnection {
    let connection: RequestConnection

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await connection.database.write("recording a download request of photo \(photoID)") { db in
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

    func requested() async throws(StoreError) -> [String: Date] {
        try await connection.database.read("listing download requests") { db in
            var requests: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT photo_id, requested_at FROM download_request") {
                requests[row["photo_id"]] = (row["requested_at"] as StoredDate?)?.date
            }
            return requests
        }
    }
}
