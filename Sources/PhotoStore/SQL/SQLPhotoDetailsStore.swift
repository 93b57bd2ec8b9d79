import Foundation

/// ``PhotoDetailsStore`` written once, over either driver's ``SQLExecutor``: the
/// `photo_details` table, whose trigger re-indexes the photo for search in the transaction that
/// stores its details.
package struct SQLPhotoDetailsStore: PhotoDetailsStore {
    package let sql: any SQLExecutor

    package init(sql: any SQLExecutor) {
        self.sql = sql
    }

    package func pending(_ wanted: PhotoDetailsWanted, limit: Int) async throws(StoreError) -> [String] {
        guard limit > 0 else { return [] }
        var statements: [SQLStatement] = [
            """
            SELECT photo_id FROM photo_details
            WHERE json IS NULL AND requested_at IS NOT NULL
            ORDER BY requested_at, photo_id\(sqlite: "", postgres: #" COLLATE "C""#) LIMIT \(limit)
            """
        ]
        if wanted == .all {
            statements.append(
                """
                SELECT photo.id FROM photo
                WHERE NOT EXISTS (
                    SELECT 1 FROM photo_details AS details
                    WHERE details.photo_id = photo.id AND (details.json IS NOT NULL OR details.requested_at IS NOT NULL))
                ORDER BY photo.sequence DESC LIMIT \(limit)
                """)
        }
        return try await sql.read("listing photos whose details are due", statements) { results in
            let ids = try results.joined().compactMap { try $0.text(0) }
            return Array(ids.prefix(limit))
        }
    }

    @discardableResult
    package func store(_ json: Data, photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await sql.write(
            "storing the details of photo \(photoID)",
            [
                """
                INSERT INTO photo_details (photo_id, json, fetched_at)
                SELECT id, \(String(decoding: json, as: UTF8.self)), \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at
                RETURNING photo_id
                """
            ]
        ) { results in !results[0].isEmpty }
    }

    package func details(photoID: String) async throws(StoreError) -> StoredPhotoDetails? {
        try await details(photoIDs: [photoID])[photoID]
    }

    package func details(photoIDs: [String]) async throws(StoreError) -> [String: StoredPhotoDetails] {
        guard !photoIDs.isEmpty else { return [:] }
        // Within SQLite's limit on a statement's values (32,766) and PostgreSQL's (65,535).
        let statements: [SQLStatement] = stride(from: 0, to: photoIDs.count, by: 500).map {
            """
            SELECT photo_id, json, fetched_at FROM photo_details
            WHERE json IS NOT NULL AND photo_id IN \(list: Array(photoIDs[$0..<min($0 + 500, photoIDs.count)]))
            """
        }
        return try await sql.read("reading the details of \(photoIDs.count) photos", statements) { results in
            var found: [String: StoredPhotoDetails] = [:]
            for row in results.joined() {
                guard let id = try row.text(0), let json = try row.json(1) else { continue }
                found[id] = StoredPhotoDetails(json: json, fetchedAt: try row.date(2))
            }
            return found
        }
    }

    package func isRequested(photoID: String) async throws(StoreError) -> Bool {
        try await sql.boolean(
            "reading the details request of photo \(photoID)",
            """
            SELECT EXISTS (SELECT 1 FROM photo_details
                           WHERE photo_id = \(photoID) AND json IS NULL AND requested_at IS NOT NULL)
            """)
    }
}

/// ``DownloadRequests`` written once: rows of `download_request`, over `sql`, which `close`
/// closes when it is a connection of their own (SQLite's, so that `serve`'s store stays read-only).
package struct SQLDownloadRequests: DownloadRequests {
    package let sql: any SQLExecutor
    private let closing: @Sendable () throws(StoreError) -> Void

    package init(sql: any SQLExecutor, close: @escaping @Sendable () throws(StoreError) -> Void = {}) {
        self.sql = sql
        closing = close
    }

    package func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await sql.recordRequest(
            "recording a download request of photo \(photoID)",
            insert: """
                INSERT INTO download_request (photo_id, requested_at)
                SELECT id, \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO NOTHING
                """,
            exists: "SELECT EXISTS (SELECT 1 FROM download_request WHERE photo_id = \(photoID))")
    }

    package func requested() async throws(StoreError) -> [String: Date] {
        try await sql.read("listing download requests", "SELECT photo_id, requested_at FROM download_request") {
            rows in
            var requests: [String: Date] = [:]
            for row in rows {
                if let id = try row.text(0) { requests[id] = try row.date(1) }
            }
            return requests
        }
    }

    package func close() throws(StoreError) {
        try closing()
    }
}

/// ``PhotoDetailsRequests`` written once: `requested_at` of `photo_details`, one row per photo and
/// nothing else, over `sql` (see ``SQLDownloadRequests``).
package struct SQLPhotoDetailsRequests: PhotoDetailsRequests {
    package let sql: any SQLExecutor
    private let closing: @Sendable () throws(StoreError) -> Void

    package init(sql: any SQLExecutor, close: @escaping @Sendable () throws(StoreError) -> Void = {}) {
        self.sql = sql
        closing = close
    }

    package func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        try await sql.recordRequest(
            "recording a details request of photo \(photoID)",
            insert: """
                INSERT INTO photo_details (photo_id, requested_at)
                SELECT id, \(date) FROM photo WHERE id = \(photoID)
                ON CONFLICT (photo_id) DO UPDATE SET requested_at = excluded.requested_at
                WHERE photo_details.requested_at IS NULL AND photo_details.json IS NULL
                """,
            exists: "SELECT EXISTS (SELECT 1 FROM photo_details WHERE photo_id = \(photoID))")
    }

    package func close() throws(StoreError) {
        try closing()
    }
}

extension SQLExecutor {
    /// Records one of `serve`'s requests: runs `insert`, which adds a row only for a photo that
    /// exists, then says whether `exists` finds the request (false: no such photo).
    fileprivate func recordRequest(
        _ operation: String, insert: SQLStatement, exists: SQLStatement
    ) async throws(StoreError) -> Bool {
        try await write(operation, [insert, exists]) { results in try results[1].first?.boolean(0) ?? false }
    }
}
