import Foundation
import GRDB
import PhotoStore

/// Photos' full objects in SQLite: the `photo_details` table (migration "v15 photo details"),
/// whose trigger re-indexes the photo for search in the same transaction.
struct SQLitePhotoDetailsStore: PhotoDetailsStore {
    let database: StoreDatabase

    func pending(_ wanted: PhotoDetailsWanted, limit: Int) async throws(StoreError) -> [String] {
        guard limit > 0 else { return [] }
        return try await database.read("listing photos whose details are due") { db in
            var ids = try String.fetchAll(
                db,
                sql: """
                    SELECT photo_id FROM photo_details
                    WHERE json IS NULL AND requested_at IS NOT NULL ORDER BY requested_at, photo_id LIMIT ?
                    """, arguments: [limit])
            guard wanted == .all, ids.count < limit else { return ids }
            ids += try String.fetchAll(
                db,
                sql: """
                    SELECT photo.id FROM photo
                    WHERE NOT EXISTS (
                        SELECT 1 FROM photo_details AS details
                        WHERE details.photo_id = photo.id AND (details.json IS NOT NULL OR details.requested_at IS NOT NULL))
                    ORDER BY photo.sequence DESC LIMIT ?
                    """, arguments: [limit - ids.count])
            return ids
        }
    }

    @discardableResult
    func store(_ json: Data, photoID: String, at date: Date) async throws(StoreError) -> Bool {
        let writer = database.writer
        do {
            return try await writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO photo_details (photo_id, json, fetched_at)
                        SELECT id, ?, ? FROM photo WHERE id = ?
                        ON CONFLICT (photo_id) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at
                        """,
                    arguments: [String(decoding: json, as: UTF8.self), date.stored, photoID])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError(error, path: database.path, operation: "storing the details of photo \(photoID)")
        }
    }

    func details(photoID: String) async throws(StoreError) -> StoredPhotoDetails? {
        try await database.read("reading the details of photo \(photoID)") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT CAST(json AS BLOB) AS json, fetched_at FROM photo_details
                    WHERE photo_id = ? AND json IS NOT NULL
                    """, arguments: [photoID])
            guard let row, let json = row["json"] as Data? else { return nil }
            return StoredPhotoDetails(json: json, fetchedAt: try row.decodeDateIfPresent(forColumn: "fetched_at"))
        }
    }

    func details(photoIDs: [String]) async throws(StoreError) -> [String: StoredPhotoDetails] {
        guard !photoIDs.isEmpty else { return [:] }
        return try await database.read("reading the details of \(photoIDs.count) photos") { db in
            var found: [String: StoredPhotoDetails] = [:]
            // SQLite's default limit on a statement's variables is 32,766: chunks stay well within it.
            for chunk in stride(from: 0, to: photoIDs.count, by: 500).map({
                photoIDs[$0..<min($0 + 500, photoIDs.count)]
            }) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT photo_id, CAST(json AS BLOB) AS json, fetched_at FROM photo_details
                        WHERE json IS NOT NULL AND photo_id IN (\(databaseQuestionMarks(count: chunk.count)))
                        """, arguments: StatementArguments(Array(chunk)))
                for row in rows {
                    guard let id = row["photo_id"] as String?, let json = row["json"] as Data? else { continue }
                    found[id] = StoredPhotoDetails(
                        json: json, fetchedAt: try row.decodeDateIfPresent(forColumn: "fetched_at"))
                }
            }
            return found
        }
    }

    func isRequested(photoID: String) async throws(StoreError) -> Bool {
        try await database.read("reading the details request of photo \(photoID)") { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM photo_details
                    WHERE photo_id = ? AND json IS NULL AND requested_at IS NOT NULL)
                    """, arguments: [photoID]) ?? false
        }
    }
}
