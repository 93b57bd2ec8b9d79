import Foundation
import Logging
import PhotoStore
import PostgresNIO

/// The PostgreSQL store's tables out and in, for `photosync copy` and `backup`: read in each
/// table's key order from one repeatable-read snapshot (on one connection, held for the whole
/// copy), written a batch a transaction, each batch's rows one JSON document and its image
/// chunks one array.
///
/// The progress is the row of `photosync_copy`, a table that exists only while a copy is under
/// way in this database: the first batch creates it, ``finishCopy()`` drops it.
struct PostgresStoreTransfer: StoreTransfer {
    let database: PostgresDatabase

    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let database = database
        return try await database.snapshot("copying the mirror") { connection in
            try await body(PostgresMirrorReader(database: database, connection: connection, logger: database.logger))
        }
    }

    func copyState() async throws(StoreError) -> CopyTargetState {
        let logger = database.logger
        return try await database.read("reading where a copy stands") { connection in
            if try await connection.boolean("SELECT to_regclass('photosync_copy') IS NOT NULL", logger: logger) {
                let rows = try await connection.guardedQuery(
                    "SELECT origin, stage, after_integer, after_text FROM photosync_copy", logger: logger
                ).collect()
                guard
                    let (origin, stage, integer, text) = try rows.first?.decode((String, String, Int64?, String?).self),
                    let table = MirrorTable(rawValue: stage)
                else { return .holdsMirror }
                return .copying(CopyProgress(origin: origin, table: table, afterInteger: integer, afterText: text))
            }
            let holdsRows = try await connection.boolean(
                """
                SELECT EXISTS (SELECT 1 FROM photo) OR EXISTS (SELECT 1 FROM source)
                    OR EXISTS (SELECT 1 FROM image) OR EXISTS (SELECT 1 FROM rejected_photo)
                """, logger: logger)
            return holdsRows ? .holdsMirror : .empty
        }
    }

    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError) {
        let logger = database.logger
        try await database.write("copying \(progress.table.rawValue)") { connection in
            try await Self.insert(rows, connection, logger)
            try await connection.guardedQuery(
                """
                CREATE TABLE IF NOT EXISTS photosync_copy (
                    id integer PRIMARY KEY CHECK (id = 1), origin text NOT NULL, stage text NOT NULL,
                    after_integer bigint, after_text text)
                """, logger: logger)
            let (afterInteger, afterText) = progress.afterColumns
            try await connection.guardedQuery(
                """
                INSERT INTO photosync_copy (id, origin, stage, after_integer, after_text)
                VALUES (1, \(progress.origin), \(progress.table.rawValue), \(afterInteger), \(afterText))
                ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, stage = excluded.stage,
                    after_integer = excluded.after_integer, after_text = excluded.after_text
                """, logger: logger)
        }
    }

    /// Ends the copy, then vacuums and analyzes the tables it filled: until autovacuum comes
    /// round to them, the server would plan the mirror's first reads blind (a page of a million
    /// photos by a scan, not its index) and count rows from the heap instead of an index alone.
    func finishCopy() async throws(StoreError) {
        let logger = database.logger
        try await database.write("finishing the copy") { connection in
            _ = try await connection.guardedQuery("DROP TABLE IF EXISTS photosync_copy", logger: logger)
        }
        // VACUUM runs outside a transaction: on a connection of its own, as a read does.
        try await database.read("vacuuming the copy") { connection in
            _ = try await connection.guardedQuery("VACUUM (ANALYZE)", logger: logger)
        }
    }

    /// One statement a table's rows (their values one JSON document), and one more for images'
    /// chunks.
    private static func insert(_ rows: MirrorRows, _ connection: PostgresConnection, _ logger: Logger) async throws {
        switch rows {
        case .sources(let sources):
            try await connection.guardedQuery(
                """
                INSERT INTO source (name, active, backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                    last_page_at, backfill_stall_reason, backfill_stalled_at, error, error_at, object_json,
                    object_fetched_at)
                SELECT name, active, backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                    to_timestamp(last_page_at), backfill_stall_reason, to_timestamp(backfill_stalled_at), error,
                    to_timestamp(error_at), object_json, to_timestamp(object_fetched_at)
                FROM jsonb_to_recordset(\(try document(sources.map(\.values)))::jsonb) AS row (name text,
                    active boolean, backfill_next text, backfill_complete boolean, catch_up_next text,
                    catch_up_baseline bigint, last_page_at double precision, backfill_stall_reason text,
                    backfill_stalled_at double precision, error text, error_at double precision, object_json text,
                    object_fetched_at double precision, n integer)
                ORDER BY row.n
                """, logger: logger)
        case .photos(let photos):
            // The tracking marks go beside the photos (schema 6); a download not tracked yet is
            // made due by its image's copy, or its request's, as by the sync.
            try await connection.guardedQuery(
                """
                WITH row AS (
                    SELECT * FROM jsonb_to_recordset(\(try document(photos.map(\.values)))::jsonb) AS row (id text,
                        sequence bigint, created_at double precision, updated_at double precision, width integer,
                        height integer, color text, blur_hash text, description text, alt_description text,
                        user_username text, user_name text, likes integer, is_sponsored boolean,
                        download_location text, download_tracked_at double precision, is_plus boolean, json text,
                        first_seen_at double precision, last_seen_at double precision)
                ),
                inserted AS (
                    INSERT INTO photo (id, sequence, created_at, updated_at, width, height, color, blur_hash,
                        description, alt_description, user_username, user_name, likes, is_sponsored,
                        download_location, is_plus, json, first_seen_at, last_seen_at)
                    SELECT id, sequence, to_timestamp(created_at), to_timestamp(updated_at), width, height, color,
                        blur_hash, description, alt_description, user_username, user_name, likes, is_sponsored,
                        download_location, is_plus, json, to_timestamp(first_seen_at), to_timestamp(last_seen_at)
                    FROM row
                )
                INSERT INTO download_tracking (photo_id, photo_sequence, tracked_at)
                SELECT id, sequence, to_timestamp(download_tracked_at) FROM row
                WHERE download_tracked_at IS NOT NULL
                """, logger: logger)
        case .photoDetails(let details):
            try await connection.guardedQuery(
                """
                INSERT INTO photo_details (photo_id, requested_at, json, fetched_at)
                SELECT photo_id, to_timestamp(requested_at), json, to_timestamp(fetched_at)
                FROM jsonb_to_recordset(\(try document(details.map(\.values)))::jsonb) AS row (photo_id text,
                    requested_at double precision, json text, fetched_at double precision)
                """, logger: logger)
        case .memberships(let memberships):
            try await connection.guardedQuery(
                """
                INSERT INTO photo_source (photo_id, source_id, first_seen_at, position)
                SELECT row.photo_id, source.id, to_timestamp(row.first_seen_at), row.position
                FROM jsonb_to_recordset(\(try document(memberships.map(\.values)))::jsonb) AS row (photo_id text,
                    source_name text, first_seen_at double precision, position bigint, n integer)
                JOIN source ON source.name = row.source_name
                ORDER BY row.n
                """, logger: logger)
        case .images(let images):
            try await insertImages(images, connection, logger)
        case .rejectedPhotos(let rejected):
            try await connection.guardedQuery(
                """
                INSERT INTO rejected_photo (photo_id, json, reason, first_seen_at, last_seen_at)
                SELECT photo_id, json, reason, to_timestamp(first_seen_at), to_timestamp(last_seen_at)
                FROM jsonb_to_recordset(\(try document(rejected.map(\.values)))::jsonb) AS row (photo_id text,
                    json text, reason text, first_seen_at double precision, last_seen_at double precision, n integer)
                ORDER BY row.n
                """, logger: logger)
        case .downloadRequests(let requests):
            try await connection.guardedQuery(
                """
                INSERT INTO download_request (photo_id, requested_at)
                SELECT photo_id, to_timestamp(requested_at)
                FROM jsonb_to_recordset(\(try document(requests.map(\.values)))::jsonb) AS row (photo_id text,
                    requested_at double precision)
                """, logger: logger)
        }
    }

    /// The jobs in one statement, then every stored image's chunks (of at most
    /// `PostgresImageArchive.chunkBytes`) in another.
    private static func insertImages(
        _ images: [MirrorImage], _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let inserted = try await connection.guardedQuery(
            """
            INSERT INTO image (photo_id, photo_sequence, variant, status, source_url, attempts, last_error,
                next_attempt_at, failure_class, content_type, byte_count, sha256, fetched_at)
            SELECT row.photo_id, photo.sequence, row.variant, row.status, row.source_url, row.attempts, row.last_error,
                to_timestamp(row.next_attempt_at), row.failure_class, row.content_type, row.byte_count, row.sha256,
                to_timestamp(row.fetched_at)
            FROM jsonb_to_recordset(\(try document(images.map(\.values)))::jsonb) AS row (photo_id text, variant text,
                status text, source_url text, attempts integer, last_error text, next_attempt_at double precision,
                failure_class text, content_type text, byte_count bigint, sha256 text, fetched_at double precision,
                n integer)
            JOIN photo ON photo.id = row.photo_id
            ORDER BY row.n
            RETURNING image.id, image.photo_id, image.variant
            """, logger: logger
        ).collect()
        var ids: [String: Int64] = [:]
        for row in inserted {
            let (id, photoID, variant) = try row.decode((Int64, String, String).self)
            ids[photoID + "\u{0}" + variant] = id
        }
        var imageIDs: [Int64] = []
        var indexes: [Int32] = []
        var chunks: [ByteBuffer] = []
        for image in images {
            guard let data = image.bytes, let id = ids[image.photoID + "\u{0}" + image.variant] else { continue }
            var start = data.startIndex
            var index: Int32 = 0
            repeat {
                let end =
                    data.index(start, offsetBy: PostgresImageArchive.chunkBytes, limitedBy: data.endIndex)
                    ?? data.endIndex
                imageIDs.append(id)
                indexes.append(index)
                chunks.append(ByteBuffer(bytes: data[start..<end]))
                index += 1
                start = end
            } while start < data.endIndex
        }
        guard !chunks.isEmpty else { return }
        try await connection.guardedQuery(
            """
            INSERT INTO image_chunk (image_id, index, bytes)
            SELECT * FROM unnest(\(imageIDs)::bigint[], \(indexes)::integer[], \(chunks)::bytea[])
            """, logger: logger)
    }

    /// `rows` as one JSON array, for `jsonb_to_recordset`, each with its place in the batch as
    /// `n`: a join may reorder rows, and the target numbers them (`bigserial`) in the order they
    /// come, which the next copy reads them in.
    private static func document(_ rows: [[String: Any]]) throws -> String {
        let numbered = rows.enumerated().map { index, row in row.merging(["n": index]) { old, _ in old } }
        return String(decoding: try JSONSerialization.data(withJSONObject: numbered), as: UTF8.self)
    }
}

/// Reads the PostgreSQL store's tables for a copy, on the one connection whose transaction holds
/// the snapshot.
private struct PostgresMirrorReader: MirrorReader {
    let database: PostgresDatabase
    let connection: PostgresConnection
    let logger: Logger

    func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int) async throws(StoreError) -> MirrorRows {
        do {
            return try await fetch(table, after: key, limit: limit)
        } catch {
            throw database.storeError(error, operation: "reading \(table.rawValue) to copy")
        }
    }

    private func fetch(_ table: MirrorTable, after key: MirrorKey?, limit: Int) async throws -> MirrorRows {
        // Where the batch starts: after the key given, or before every row of the table.
        let (integer, text) = (key.integerBound, key.textBound)
        switch table {
        case .sources:
            return .sources(
                try await select(
                    """
                    SELECT id, name, active, backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                        last_page_at, backfill_stall_reason, backfill_stalled_at, error, error_at, object_json,
                        object_fetched_at
                    FROM source WHERE id > \(integer) ORDER BY id LIMIT \(limit)
                    """
                ) { row in
                    MirrorSource(
                        key: try row["id"].decode(Int64.self), name: try row["name"].decode(String.self),
                        active: try row["active"].decode(Bool.self),
                        backfillNext: try row["backfill_next"].decode(String?.self),
                        backfillComplete: try row["backfill_complete"].decode(Bool.self),
                        catchUpNext: try row["catch_up_next"].decode(String?.self),
                        catchUpBaseline: try row["catch_up_baseline"].decode(Int64?.self),
                        lastPageAt: try row["last_page_at"].decode(Date?.self),
                        backfillStallReason: try row["backfill_stall_reason"].decode(String?.self),
                        backfillStalledAt: try row["backfill_stalled_at"].decode(Date?.self),
                        error: try row["error"].decode(String?.self), errorAt: try row["error_at"].decode(Date?.self),
                        objectJSON: try row["object_json"].decode(String?.self),
                        objectFetchedAt: try row["object_fetched_at"].decode(Date?.self))
                })
        case .photos:
            return .photos(
                try await select(
                    """
                    SELECT id, sequence, created_at, updated_at, width, height, color, blur_hash, description,
                        alt_description, user_username, user_name, likes, is_sponsored, download_location,
                        tracking.tracked_at AS download_tracked_at, is_plus, json, first_seen_at, last_seen_at
                    FROM photo LEFT JOIN download_tracking AS tracking ON tracking.photo_id = photo.id
                    WHERE sequence > \(integer) ORDER BY sequence LIMIT \(limit)
                    """
                ) { row in
                    MirrorPhoto(
                        id: try row["id"].decode(String.self), sequence: try row["sequence"].decode(Int64.self),
                        createdAt: try row["created_at"].decode(Date?.self),
                        updatedAt: try row["updated_at"].decode(Date?.self),
                        width: try row["width"].decode(Int?.self), height: try row["height"].decode(Int?.self),
                        color: try row["color"].decode(String?.self),
                        blurHash: try row["blur_hash"].decode(String?.self),
                        description: try row["description"].decode(String?.self),
                        altDescription: try row["alt_description"].decode(String?.self),
                        userUsername: try row["user_username"].decode(String?.self),
                        userName: try row["user_name"].decode(String?.self),
                        likes: try row["likes"].decode(Int?.self),
                        isSponsored: try row["is_sponsored"].decode(Bool.self),
                        downloadLocation: try row["download_location"].decode(String?.self),
                        downloadTrackedAt: try row["download_tracked_at"].decode(Date?.self),
                        isPlus: try row["is_plus"].decode(Bool.self), json: try row["json"].decode(String.self),
                        firstSeenAt: try row["first_seen_at"].decode(Date.self),
                        lastSeenAt: try row["last_seen_at"].decode(Date.self))
                })
        case .photoDetails:
            return .photoDetails(
                try await select(
                    """
                    SELECT photo_id, requested_at, json, fetched_at FROM photo_details
                    WHERE photo_id > \(text) ORDER BY photo_id LIMIT \(limit)
                    """
                ) { row in
                    MirrorPhotoDetails(
                        photoID: try row["photo_id"].decode(String.self),
                        requestedAt: try row["requested_at"].decode(Date?.self),
                        json: try row["json"].decode(String?.self), fetchedAt: try row["fetched_at"].decode(Date?.self))
                })
        case .memberships:
            return .memberships(
                try await select(
                    """
                    SELECT photo_source.id, photo_source.photo_id, source.name, photo_source.first_seen_at,
                        photo_source.position
                    FROM photo_source JOIN source ON source.id = photo_source.source_id
                    WHERE photo_source.id > \(integer) ORDER BY photo_source.id LIMIT \(limit)
                    """
                ) { row in
                    MirrorMembership(
                        key: try row["id"].decode(Int64.self), photoID: try row["photo_id"].decode(String.self),
                        sourceName: try row["name"].decode(String.self),
                        firstSeenAt: try row["first_seen_at"].decode(Date.self),
                        position: try row["position"].decode(Int64.self))
                })
        case .images:
            return .images(try await images(after: integer, limit: limit))
        case .rejectedPhotos:
            return .rejectedPhotos(
                try await select(
                    """
                    SELECT id, photo_id, json, reason, first_seen_at, last_seen_at FROM rejected_photo
                    WHERE id > \(integer) ORDER BY id LIMIT \(limit)
                    """
                ) { row in
                    MirrorRejectedPhoto(
                        key: try row["id"].decode(Int64.self), photoID: try row["photo_id"].decode(String?.self),
                        json: try row["json"].decode(String.self), reason: try row["reason"].decode(String.self),
                        firstSeenAt: try row["first_seen_at"].decode(Date.self),
                        lastSeenAt: try row["last_seen_at"].decode(Date.self))
                })
        case .downloadRequests:
            return .downloadRequests(
                try await select(
                    """
                    SELECT photo_id, requested_at FROM download_request
                    WHERE photo_id > \(text) ORDER BY photo_id LIMIT \(limit)
                    """
                ) { row in
                    MirrorDownloadRequest(
                        photoID: try row["photo_id"].decode(String.self),
                        requestedAt: try row["requested_at"].decode(Date.self))
                })
        }
    }

    /// The image rows after `key`, cut where their stored bytes reach ``MirrorTable/batchBytes``,
    /// with the bytes of those stored, read chunk by chunk in one more statement.
    private func images(after key: Int64, limit: Int) async throws -> [MirrorImage] {
        var images = try await select(
            """
            SELECT id, photo_id, variant, status, source_url, attempts, last_error, next_attempt_at, failure_class,
                content_type, byte_count, sha256, fetched_at
            FROM image WHERE id > \(key) ORDER BY id LIMIT \(limit)
            """
        ) { row in
            MirrorImage(
                key: try row["id"].decode(Int64.self), photoID: try row["photo_id"].decode(String.self),
                variant: try row["variant"].decode(String.self), status: try row["status"].decode(String.self),
                sourceURL: try row["source_url"].decode(String.self), attempts: try row["attempts"].decode(Int.self),
                lastError: try row["last_error"].decode(String?.self),
                nextAttemptAt: try row["next_attempt_at"].decode(Date?.self),
                failureClass: try row["failure_class"].decode(String?.self),
                contentType: try row["content_type"].decode(String?.self),
                byteCount: try row["byte_count"].decode(Int64?.self), sha256: try row["sha256"].decode(String?.self),
                fetchedAt: try row["fetched_at"].decode(Date?.self), bytes: nil)
        }
        var bytes: Int64 = 0
        for (index, image) in images.enumerated() where image.status == ImageStatus.stored.rawValue {
            guard bytes < MirrorTable.batchBytes else {
                images.removeSubrange(index...)
                break
            }
            bytes += image.byteCount ?? 0
        }
        let stored = images.filter { $0.status == ImageStatus.stored.rawValue }.map(\.key)
        guard !stored.isEmpty else { return images }
        var data: [Int64: Data] = [:]
        let chunks = try await connection.guardedQuery(
            "SELECT image_id, bytes FROM image_chunk WHERE image_id = ANY(\(stored)) ORDER BY image_id, index",
            logger: logger)
        for try await (id, chunk) in chunks.decode((Int64, ByteBuffer).self) {
            data[id, default: Data()].append(contentsOf: chunk.readableBytesView)
        }
        for index in images.indices where images[index].status == ImageStatus.stored.rawValue {
            images[index].bytes = data[images[index].key] ?? Data()
        }
        return images
    }

    private func select<Row>(
        _ query: PostgresQuery, _ make: (PostgresRandomAccessRow) throws -> Row
    ) async throws -> [Row] {
        try await connection.guardedQuery(query, logger: logger).collect().map { try make($0.makeRandomAccess()) }
    }
}

extension MirrorSource {
    fileprivate var values: [String: Any] {
        [
            "name": name, "active": active, "backfill_next": backfillNext.json,
            "backfill_complete": backfillComplete, "catch_up_next": catchUpNext.json,
            "catch_up_baseline": catchUpBaseline.json, "last_page_at": lastPageAt.seconds,
            "backfill_stall_reason": backfillStallReason.json, "backfill_stalled_at": backfillStalledAt.seconds,
            "error": error.json, "error_at": errorAt.seconds, "object_json": objectJSON.json,
            "object_fetched_at": objectFetchedAt.seconds,
        ]
    }
}

extension MirrorPhoto {
    fileprivate var values: [String: Any] {
        [
            "id": id, "sequence": sequence, "created_at": createdAt.seconds, "updated_at": updatedAt.seconds,
            "width": width.json, "height": height.json, "color": color.json, "blur_hash": blurHash.json,
            "description": description.json, "alt_description": altDescription.json,
            "user_username": userUsername.json, "user_name": userName.json, "likes": likes.json,
            "is_sponsored": isSponsored, "download_location": downloadLocation.json,
            "download_tracked_at": downloadTrackedAt.seconds, "is_plus": isPlus, "json": json,
            "first_seen_at": firstSeenAt.timeIntervalSince1970, "last_seen_at": lastSeenAt.timeIntervalSince1970,
        ]
    }
}

extension MirrorPhotoDetails {
    fileprivate var values: [String: Any] {
        ["photo_id": photoID, "requested_at": requestedAt.seconds, "json": json.json, "fetched_at": fetchedAt.seconds]
    }
}

extension MirrorMembership {
    fileprivate var values: [String: Any] {
        [
            "photo_id": photoID, "source_name": sourceName, "first_seen_at": firstSeenAt.timeIntervalSince1970,
            "position": position,
        ]
    }
}

extension MirrorImage {
    fileprivate var values: [String: Any] {
        [
            "photo_id": photoID, "variant": variant, "status": status, "source_url": sourceURL,
            "attempts": attempts, "last_error": lastError.json, "next_attempt_at": nextAttemptAt.seconds,
            "failure_class": failureClass.json, "content_type": contentType.json, "byte_count": byteCount.json,
            "sha256": sha256.json, "fetched_at": fetchedAt.seconds,
        ]
    }
}

extension MirrorRejectedPhoto {
    fileprivate var values: [String: Any] {
        [
            "photo_id": photoID.json, "json": json, "reason": reason,
            "first_seen_at": firstSeenAt.timeIntervalSince1970, "last_seen_at": lastSeenAt.timeIntervalSince1970,
        ]
    }
}

extension MirrorDownloadRequest {
    fileprivate var values: [String: Any] {
        ["photo_id": photoID, "requested_at": requestedAt.timeIntervalSince1970]
    }
}

extension Optional {
    /// The value for a JSON document: `null` when there is none.
    fileprivate var json: Any { self ?? NSNull() }
}

extension Optional where Wrapped == Date {
    /// Seconds since 1970 for `to_timestamp`, or `null`.
    fileprivate var seconds: Any { self?.timeIntervalSince1970 ?? NSNull() }
}
