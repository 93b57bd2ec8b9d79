import Foundation
import GRDB
import PhotoStore

/// The SQLite store's tables out and in, for `photosync copy`: each table read in its key order
/// from one snapshot, and written a batch a transaction with the copy's progress.
///
/// The progress is a row of `photosync_copy`, a table that exists only while a copy is under way
/// in this database: the first batch creates it, ``finishCopy()`` drops it.
struct SQLiteStoreTransfer: StoreTransfer {
    let database: StoreDatabase

    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let reader: any DatabaseReader
        if let pool = database.writer as? DatabasePool {
            do {
                reader = try pool.makeSnapshot()
            } catch {
                throw StoreError(error, path: database.path, operation: "taking a snapshot to copy")
            }
        } else {
            // One connection (a read-only queue): the copy holds the writer's lock, so nothing
            // changes between its reads.
            reader = database.writer
        }
        return try await body(SQLiteMirrorReader(path: database.path, reader: reader))
    }

    func copyState() async throws(StoreError) -> CopyTargetState {
        try await database.read("reading where a copy stands") { db in
            if try db.tableExists("photosync_copy") {
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM photosync_copy"),
                    let table = MirrorTable(rawValue: row["stage"])
                else { return .holdsMirror }
                return .copying(
                    CopyProgress(
                        origin: row["origin"], table: table, afterInteger: row["after_integer"],
                        afterText: row["after_text"]))
            }
            let holdsRows = try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM photo) OR EXISTS (SELECT 1 FROM source)
                        OR EXISTS (SELECT 1 FROM image) OR EXISTS (SELECT 1 FROM rejected_photo)
                    """)
            return holdsRows == true ? .holdsMirror : .empty
        }
    }

    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError) {
        try await database.write("copying \(progress.table.rawValue)") { db in
            try Self.insert(rows, db)
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS photosync_copy (
                        id INTEGER PRIMARY KEY CHECK (id = 1), origin TEXT NOT NULL, stage TEXT NOT NULL,
                        after_integer INTEGER, after_text TEXT)
                    """)
            let (afterInteger, afterText) = progress.afterColumns
            try db.execute(
                sql: """
                    INSERT INTO photosync_copy (id, origin, stage, after_integer, after_text) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, stage = excluded.stage,
                        after_integer = excluded.after_integer, after_text = excluded.after_text
                    """, arguments: [progress.origin, progress.table.rawValue, afterInteger, afterText])
        }
    }

    func finishCopy() async throws(StoreError) {
        try await database.write("finishing the copy") { db in
            try db.execute(sql: "DROP TABLE IF EXISTS photosync_copy")
        }
    }

    private static func insert(_ rows: MirrorRows, _ db: Database) throws {
        switch rows {
        case .sources(let sources):
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO source (name, active, backfill_next, backfill_complete, catch_up_next,
                        catch_up_baseline, last_page_at, backfill_stall_reason, backfill_stalled_at, error, error_at,
                        object_json, object_fetched_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for source in sources {
                try statement.execute(arguments: [
                    source.name, source.active, source.backfillNext, source.backfillComplete, source.catchUpNext,
                    source.catchUpBaseline, source.lastPageAt?.stored, source.backfillStallReason,
                    source.backfillStalledAt?.stored, source.error, source.errorAt?.stored, source.objectJSON,
                    source.objectFetchedAt?.stored,
                ])
            }
        case .photos(let photos):
            for photo in photos {
                try PhotoRow(photo).insert(db)
            }
        case .photoDetails(let details):
            let statement = try db.cachedStatement(
                sql: "INSERT INTO photo_details (photo_id, requested_at, json, fetched_at) VALUES (?, ?, ?, ?)")
            for detail in details {
                try statement.execute(arguments: [
                    detail.photoID, detail.requestedAt?.stored, detail.json, detail.fetchedAt?.stored,
                ])
            }
        case .memberships(let memberships):
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO photo_source (photo_id, source_id, first_seen_at, position)
                    VALUES (?, (SELECT id FROM source WHERE name = ?), ?, ?)
                    """)
            for membership in memberships {
                try statement.execute(arguments: [
                    membership.photoID, membership.sourceName, membership.firstSeenAt.stored, membership.position,
                ])
            }
        case .images(let images):
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO image (photo_id, variant, status, source_url, attempts, last_error, next_attempt_at,
                        failure_class, content_type, byte_count, sha256, fetched_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let bytes = try db.cachedStatement(sql: "INSERT INTO image_data (image_id, bytes) VALUES (?, ?)")
            for image in images {
                try statement.execute(arguments: [
                    image.photoID, image.variant, image.status, image.sourceURL, image.attempts, image.lastError,
                    image.nextAttemptAt?.stored, image.failureClass, image.contentType, image.byteCount,
                    image.sha256, image.fetchedAt?.stored,
                ])
                if let data = image.bytes {
                    try bytes.execute(arguments: [db.lastInsertedRowID, data])
                }
            }
        case .rejectedPhotos(let rejected):
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO rejected_photo (photo_id, json, reason, first_seen_at, last_seen_at)
                    VALUES (?, ?, ?, ?, ?)
                    """)
            for photo in rejected {
                try statement.execute(arguments: [
                    photo.photoID, photo.json, photo.reason, photo.firstSeenAt.stored, photo.lastSeenAt.stored,
                ])
            }
        case .downloadRequests(let requests):
            let statement = try db.cachedStatement(
                sql: "INSERT INTO download_request (photo_id, requested_at) VALUES (?, ?)")
            for request in requests {
                try statement.execute(arguments: [request.photoID, request.requestedAt.stored])
            }
        }
    }
}

/// Reads the SQLite store's tables for a copy, from the snapshot (or the connection) it was
/// given.
private struct SQLiteMirrorReader: MirrorReader {
    let path: String
    let reader: any DatabaseReader

    func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int) async throws(StoreError) -> MirrorRows {
        do {
            return try await reader.read { db in try Self.rows(of: table, after: key, limit: limit, db) }
        } catch {
            throw StoreError(error, path: path, operation: "reading \(table.rawValue) to copy")
        }
    }

    private static func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int, _ db: Database) throws
        -> MirrorRows
    {
        // Where the batch starts: after the key given, or before every row of the table.
        let (integer, text) = (key.integerBound, key.textBound)
        switch table {
        case .sources:
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM source WHERE id > ? ORDER BY id LIMIT ?", arguments: [integer, limit])
            return .sources(
                rows.map { row in
                    MirrorSource(
                        key: row["id"], name: row["name"], active: row["active"], backfillNext: row["backfill_next"],
                        backfillComplete: row["backfill_complete"], catchUpNext: row["catch_up_next"],
                        catchUpBaseline: row["catch_up_baseline"], lastPageAt: date(row["last_page_at"]),
                        backfillStallReason: row["backfill_stall_reason"],
                        backfillStalledAt: date(row["backfill_stalled_at"]), error: row["error"],
                        errorAt: date(row["error_at"]), objectJSON: row["object_json"],
                        objectFetchedAt: date(row["object_fetched_at"]))
                })
        case .photos:
            let rows = try PhotoRow.fetchAll(
                db, sql: "SELECT * FROM photo WHERE sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [integer, limit])
            return .photos(rows.map(MirrorPhoto.init))
        case .photoDetails:
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM photo_details WHERE photo_id > ? ORDER BY photo_id LIMIT ?",
                arguments: [text, limit])
            return .photoDetails(
                rows.map { row in
                    MirrorPhotoDetails(
                        photoID: row["photo_id"], requestedAt: date(row["requested_at"]), json: row["json"],
                        fetchedAt: date(row["fetched_at"]))
                })
        case .memberships:
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT photo_source.id, photo_source.photo_id, source.name, photo_source.first_seen_at,
                        photo_source.position
                    FROM photo_source JOIN source ON source.id = photo_source.source_id
                    WHERE photo_source.id > ? ORDER BY photo_source.id LIMIT ?
                    """, arguments: [integer, limit])
            return .memberships(
                rows.map { row in
                    MirrorMembership(
                        key: row[0], photoID: row[1], sourceName: row[2], firstSeenAt: date(row[3]) ?? .distantPast,
                        position: row[4])
                })
        case .images:
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT image.*, image_data.bytes AS bytes FROM image
                    LEFT JOIN image_data ON image_data.image_id = image.id AND image.status = 'stored'
                    WHERE image.id > ? ORDER BY image.id LIMIT ?
                    """, arguments: [integer, limit])
            var images: [MirrorImage] = []
            var bytes = 0
            while bytes < MirrorTable.batchBytes, let row = try cursor.next() {
                let data = row["bytes"] as Data?
                bytes += data?.count ?? 0
                images.append(
                    MirrorImage(
                        key: row["id"], photoID: row["photo_id"], variant: row["variant"], status: row["status"],
                        sourceURL: row["source_url"], attempts: row["attempts"], lastError: row["last_error"],
                        nextAttemptAt: date(row["next_attempt_at"]), failureClass: row["failure_class"],
                        contentType: row["content_type"], byteCount: row["byte_count"], sha256: row["sha256"],
                        fetchedAt: date(row["fetched_at"]), bytes: data))
            }
            return .images(images)
        case .rejectedPhotos:
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM rejected_photo WHERE id > ? ORDER BY id LIMIT ?", arguments: [integer, limit])
            return .rejectedPhotos(
                rows.map { row in
                    MirrorRejectedPhoto(
                        key: row["id"], photoID: row["photo_id"], json: row["json"], reason: row["reason"],
                        firstSeenAt: date(row["first_seen_at"]) ?? .distantPast,
                        lastSeenAt: date(row["last_seen_at"]) ?? .distantPast)
                })
        case .downloadRequests:
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM download_request WHERE photo_id > ? ORDER BY photo_id LIMIT ?",
                arguments: [text, limit])
            return .downloadRequests(
                rows.map { row in
                    MirrorDownloadRequest(
                        photoID: row["photo_id"], requestedAt: date(row["requested_at"]) ?? .distantPast)
                })
        }
    }

    private static func date(_ stored: StoredDate?) -> Date? {
        stored?.date
    }
}

extension MirrorPhoto {
    fileprivate init(_ row: PhotoRow) {
        self.init(
            id: row.id, sequence: row.sequence, createdAt: row.createdAt?.date, updatedAt: row.updatedAt?.date,
            width: row.width, height: row.height, color: row.color, blurHash: row.blurHash,
            description: row.description, altDescription: row.altDescription, userUsername: row.userUsername,
            userName: row.userName, likes: row.likes, isSponsored: row.isSponsored,
            downloadLocation: row.downloadLocation, downloadTrackedAt: row.downloadTrackedAt?.date, isPlus: row.isPlus,
            json: String(decoding: row.json.data, as: UTF8.self), firstSeenAt: row.firstSeenAt.date,
            lastSeenAt: row.lastSeenAt.date)
    }
}

extension PhotoRow {
    fileprivate init(_ photo: MirrorPhoto) {
        id = photo.id
        sequence = photo.sequence
        createdAt = photo.createdAt?.stored
        updatedAt = photo.updatedAt?.stored
        width = photo.width
        height = photo.height
        color = photo.color
        blurHash = photo.blurHash
        description = photo.description
        altDescription = photo.altDescription
        userUsername = photo.userUsername
        userName = photo.userName
        likes = photo.likes
        isSponsored = photo.isSponsored
        downloadLocation = photo.downloadLocation
        downloadTrackedAt = photo.downloadTrackedAt?.stored
        isPlus = photo.isPlus
        json = StoredJSON(Data(photo.json.utf8))
        firstSeenAt = photo.firstSeenAt.stored
        lastSeenAt = photo.lastSeenAt.stored
    }
}
