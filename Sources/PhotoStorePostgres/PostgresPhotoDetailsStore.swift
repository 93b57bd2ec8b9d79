import Foundation
import PhotoStore
import PostgresNIO

/// Photos' full objects in PostgreSQL: the `photo_details` table, whose trigger re-indexes the
/// photo for search in the transaction that stores its details.
struct PostgresPhotoDetailsStore: PhotoDetailsStore {
    let database: PostgresDatabase

    func pending(_ wanted: PhotoDetailsWanted, limit: Int) async throws(StoreError) -> [String] {
        guard limit > 0 else { return [] }
        let logger = database.logger
        return try await database.snapshot("listing photos whose details are due") { connection in
            var ids = try await connection.strings(
                """
                SELECT photo_id FROM photo_details
                WHERE json IS NULL AND requested_at IS NOT NULL
                ORDER BY requested_at, photo_id COLLATE "C" LIMIT \(limit)
                """, logger: logger)
            guard wanted == .all, ids.count < limit else { return ids }
            ids += try await connection.strings(
                """
                SELECT photo.id FROM photo
                WHERE NOT EXISTS (
                    SELECT 1 FROM photo_details AS details
                    WHERE details.photo_id = photo.id AND (details.json IS NOT NULL OR details.requested_at IS NOT NULL))
                ORDER BY photo.sequence DESC LIMIT \(limit - ids.count)
                """, logger: logger)
            return ids
        }
    }

    @discardableResult
    func store(_ json: Data, photoID: String, at date: Date) async throws(StoreError) -> Bool {
        let logger = database.logger
        let text = String(decoding: json, as: UTF8.self)
        return try await database.write("storing the details of photo \(photoID)") { connection in
            try await !connection.guardedQuery(
                """
                INSERT INTO photo_details (photo_id, json, fetched_at)
                SELECT id, \(text), \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at
                RETURNING photo_id
                """, logger: logger
            ).collect().isEmpty
        }
    }

    func details(photoID: String) async throws(StoreError) -> StoredPhotoDetails? {
        try await details(photoIDs: [photoID])[photoID]
    }

    func details(photoIDs: [String]) async throws(StoreError) -> [String: StoredPhotoDetails] {
        guard !photoIDs.isEmpty else { return [:] }
        let logger = database.logger
        return try await database.read("reading the details of \(photoIDs.count) photos") { connection in
            var found: [String: StoredPhotoDetails] = [:]
            for row in try await connection.preparedRows(
                """
                SELECT photo_id, json, fetched_at FROM photo_details
                WHERE json IS NOT NULL AND photo_id = ANY (\(photoIDs)::text[])
                """, logger: logger)
            {
                let (id, json, fetchedAt) = try row.decode((String, String, Date?).self)
                found[id] = StoredPhotoDetails(json: Data(json.utf8), fetchedAt: fetchedAt)
            }
            return found
        }
    }

    func isRequested(photoID: String) async throws(StoreError) -> Bool {
        let logger = database.logger
        return try await database.read("reading the details request of photo \(photoID)") { connection in
            try await connection.boolean(
                """
                SELECT EXISTS (SELECT 1 FROM photo_details
                               WHERE photo_id = \(photoID) AND json IS NULL AND requested_at IS NOT NULL)
                """, logger: logger)
        }
    }
}

/// Download requests in PostgreSQL: rows of `download_request`, over the store's own pool.
struct PostgresDownloadRequests: DownloadRequests {
    let database: PostgresDatabase

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await database.recordRequest(
            "recording a download request of photo \(photoID)",
            insert: """
                INSERT INTO download_request (photo_id, requested_at)
                SELECT id, \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO NOTHING
                """,
            exists: "SELECT EXISTS (SELECT 1 FROM download_request WHERE photo_id = \(photoID))")
    }

    func requested() async throws(StoreError) -> [String: Date] {
        let logger = database.logger
        return try await database.read("listing download requests") { connection in
            var requests: [String: Date] = [:]
            for try await (id, date) in try await connection.guardedQuery(
                "SELECT photo_id, requested_at FROM download_request", logger: logger
            ).decode((String, Date).self) {
                requests[id] = date
            }
            return requests
        }
    }

    /// The pool is the store's: closing the store closes it.
    func close() throws(StoreError) {}
}

/// Requests for photos' details in PostgreSQL: `requested_at` of `photo_details`.
struct PostgresPhotoDetailsRequests: PhotoDetailsRequests {
    let database: PostgresDatabase

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await database.recordRequest(
            "recording a details request of photo \(photoID)",
            insert: """
                INSERT INTO photo_details (photo_id, requested_at)
                SELECT id, \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO UPDATE SET requested_at = excluded.requested_at
                WHERE photo_details.requested_at IS NULL AND photo_details.json IS NULL
                """,
            exists: "SELECT EXISTS (SELECT 1 FROM photo_details WHERE photo_id = \(photoID))")
    }

    /// The pool is the store's: closing the store closes it.
    func close() throws(StoreError) {}
}

extension PostgresDatabase {
    /// Records one of `serve`'s requests: runs `insert`, which adds a row only for a photo that
    /// exists, then says whether `exists` finds the request (false: no such photo).
    func recordRequest(
        _ operation: String, insert: PostgresQuery, exists: PostgresQuery
    ) async throws(StoreError) -> Bool {
        let logger = logger
        return try await write(operation) { connection in
            try await connection.guardedQuery(insert, logger: logger)
            return try await connection.boolean(exists, logger: logger)
        }
    }
}
