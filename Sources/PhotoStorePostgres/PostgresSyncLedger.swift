import Foundation
import PhotoStore
import PostgresNIO

/// The ledger in PostgreSQL: a page commit is one transaction with its cursor, written as
/// ``PageCommitPlan`` says in a few statements for the whole page. Sequences are
/// `MAX(sequence) + 1`, without gaps because one writer (the lease's holder) commits at a time;
/// a second writer committing at the same moment would break the `UNIQUE` constraint and roll
/// back, never number a photo twice.
struct PostgresSyncLedger: SQLSyncLedger {
    let database: PostgresDatabase
    var sql: any SQLExecutor { PostgresExecutor(database: database) }

    func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto], variant: ImageVariant, moreVariants: [ImageVariant],
        source: PhotoSource, now: Date, cursor: @escaping @Sendable (PageCommit) throws -> CursorChange
    ) async throws(StoreError) -> PageCommit {
        let logger = database.logger
        return try await database.write("committing a page of \(photos.count) photos") { connection in
            let sourceID = try LedgerStatements.sourceID(
                await connection.run(LedgerStatements.source(named: source.description), logger))
            let ids = Array(Set(photos.map(\.id)))
            var stored: [String: Int64] = [:]
            for try await (id, sequence) in try await connection.guardedQuery(
                "SELECT id, sequence FROM photo WHERE id = ANY (\(ids)::text[])", logger: logger
            ).decode((String, Int64).self) {
                stored[id] = sequence
            }
            var memberships: [String: Int64] = [:]
            for try await (id, membership) in try await connection.guardedQuery(
                """
                SELECT photo_id, id FROM photo_source WHERE source_id = \(sourceID) AND photo_id = ANY (\(ids)::text[])
                """, logger: logger
            ).decode((String, Int64).self) {
                memberships[id] = membership
            }
            let plan = PageCommitPlan(
                page: photos, stored: stored, memberships: memberships,
                maxSequence: try await connection.run([LedgerStatements.maxSequence], logger)[0].first?.integer(0) ?? 0)
            try await Self.upsert(plan.photos, seenAt: now, connection, logger)
            try await connection.guardedQuery(
                "DELETE FROM rejected_photo WHERE photo_id = ANY (\(ids)::text[])", logger: logger)
            try await Self.queueImages(plan.photos, variant: variant, moreVariants: moreVariants, connection, logger)
            if let oldest = plan.oldestStored {
                try await PostgresImageQueue.reopenWalks(
                    from: oldest, except: [variant] + moreVariants, connection, logger)
            }
            var newlyRejected: [RejectedPhoto] = []
            for element in rejected
            where try LedgerStatements.isNew(
                await connection.run(LedgerStatements.recordRejected(element, seenAt: now), logger))
            {
                newlyRejected.append(element)
            }
            let commit = plan.commit(newlyRejected: newlyRejected)
            let change = try cursor(commit)
            let (last, block) = try LedgerStatements.lastPosition(before: change, source: sourceID)
            let position = MembershipPositions.first(
                after: try await connection.run([last], logger)[0].first?.integer(0), in: block)
            try await connection.guardedQuery(
                """
                INSERT INTO photo_source (photo_id, source_id, first_seen_at, position)
                SELECT joining.id, \(sourceID), \(now), \(position) + joining.number - 1
                FROM unnest(\(plan.joining)::text[]) WITH ORDINALITY AS joining (id, number)
                """, logger: logger)
            _ = try await connection.run([LedgerStatements.apply(change, source: sourceID, now: now)], logger)
            return commit
        }
    }

    func pendingDownloadTracking(limit: Int) async throws(StoreError) -> [DownloadTrackingJob] {
        let logger = database.logger
        // The due rows are few, each checked with a lookup of its own (scalar subqueries): as
        // `EXISTS ... OR EXISTS`, the server hashed every stored image at each look, 9 ms of it
        // during a sync. The checks keep SQLite's rule for an image pruned before its mark. The
        // status is said by what it is not, so that no partial index of stored images matches:
        // on a new database's stale statistics the server walked one for each row.
        return try await database.read("listing downloads to track") { connection in
            var jobs: [DownloadTrackingJob] = []
            let rows = try await connection.guardedQuery(
                """
                SELECT photo.id, photo.download_location
                FROM download_tracking AS tracking JOIN photo ON photo.id = tracking.photo_id
                WHERE tracking.tracked_at IS NULL AND photo.download_location IS NOT NULL
                  AND coalesce(
                      (SELECT true FROM image WHERE image.photo_id = photo.id
                          AND image.status NOT IN (\(literal: .pending), \(literal: .failed), \(literal: .pruned)) LIMIT 1),
                      (SELECT true FROM download_request WHERE download_request.photo_id = photo.id), false)
                ORDER BY tracking.photo_sequence
                LIMIT \(limit)
                """, logger: logger)
            for try await (id, location) in rows.decode((String, String).self) {
                jobs.append(DownloadTrackingJob(photoID: id, downloadLocation: location))
            }
            return jobs
        }
    }

    func markDownloadsTracked(photoIDs: [String], at date: Date) async throws(StoreError) {
        guard !photoIDs.isEmpty else { return }
        let (logger, name) = (database.logger, database.name)
        // One statement, fenced in itself: the marks are most of a sync's write transactions
        // (a few photos each), and `write`'s four round trips each cost more than the update.
        // A mark is a narrow row of its own (schema version 6), there already when the download
        // was due, so the photo's row and its many indexes stay as they are.
        try await database.writeStatement("marking \(photoIDs.count) downloads tracked") { connection, token in
            // A batch naming a photo the database does not hold marks none (it is its own
            // transaction, so the statement decides that itself).
            let (held, known) = try await connection.guardedQuery(
                """
                WITH fence AS (
                    SELECT 1 FROM writer_lease
                    WHERE \(token != nil) AND id = 1 AND instance = \(token?.instance ?? "")
                        AND epoch = \(token?.epoch ?? 0)
                    FOR KEY SHARE
                ),
                held AS (
                    SELECT (NOT \(token != nil) OR EXISTS (SELECT FROM fence))
                        AND \(unescaped: PostgresDatabase.transactionSettings) AS held
                ),
                known AS (SELECT id, sequence FROM photo WHERE id = ANY (\(photoIDs)::text[])),
                marked AS (
                    INSERT INTO download_tracking (photo_id, photo_sequence, tracked_at)
                    SELECT id, sequence, \(date) FROM known
                    WHERE (SELECT held FROM held)
                        AND (SELECT count(*) FROM known) = \(Set(photoIDs).count)
                    ON CONFLICT (photo_id) DO UPDATE
                    SET tracked_at = COALESCE(download_tracking.tracked_at, excluded.tracked_at)
                    RETURNING photo_id
                )
                SELECT (SELECT held FROM held), ARRAY(SELECT id FROM known)
                """, logger: logger
            ).collect()[0].decode((Bool, [String]).self)
            guard held else { throw WriterFence.Refused() }
            let knownIDs = Set(known)
            if let unknown = photoIDs.first(where: { !knownIDs.contains($0) }) {
                throw StoreError.unknownPhoto(path: name, photoID: unknown)
            }
        }
    }

    // MARK: - Inside a transaction

    /// Inserts the photos of a page's commit, or updates the API's columns of those stored
    /// already (the sequence, the first sighting and the tracking stay): one statement for the
    /// page, its columns one JSON array and its original JSON one `text[]`.
    static func upsert(
        _ page: [PageCommitPlan.Planned], seenAt now: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        guard !page.isEmpty else { return }
        // The original JSON beside the document, not escaped into it: escaping it and parsing it
        // back out cost more than the rest of the document.
        let rows: [[String: Any]] = page.enumerated().map { index, planned in
            func value(_ optional: Any?) -> Any { optional ?? NSNull() }
            let photo = planned.record
            return [
                "n": index + 1, "id": photo.id, "sequence": planned.sequence,
                "created_at": value(photo.createdAt?.timeIntervalSince1970),
                "updated_at": value(photo.updatedAt?.timeIntervalSince1970), "width": value(photo.width),
                "height": value(photo.height), "color": value(photo.color), "blur_hash": value(photo.blurHash),
                "description": value(photo.description), "alt_description": value(photo.altDescription),
                "user_username": value(photo.userUsername), "user_name": value(photo.userName),
                "likes": value(photo.likes), "is_sponsored": photo.isSponsored,
                "download_location": value(photo.downloadLocation), "is_plus": photo.isPlus,
            ]
        }
        let document = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
        let originals = page.map { String(decoding: $0.record.json, as: UTF8.self) }
        try await connection.guardedQuery(
            """
            INSERT INTO photo (id, sequence, created_at, updated_at, width, height, color, blur_hash, description,
                alt_description, user_username, user_name, likes, is_sponsored, download_location, is_plus, json,
                first_seen_at, last_seen_at)
            SELECT id, sequence, to_timestamp(created_at), to_timestamp(updated_at), width, height, color, blur_hash,
                description, alt_description, user_username, user_name, likes, is_sponsored, download_location,
                is_plus, original.json, \(now), \(now)
            FROM jsonb_to_recordset(\(document)::jsonb) AS page (n bigint, id text, sequence bigint,
                created_at double precision, updated_at double precision, width integer, height integer, color text,
                blur_hash text, description text, alt_description text, user_username text, user_name text,
                likes integer, is_sponsored boolean, download_location text, is_plus boolean)
            JOIN unnest(\(originals)::text[]) WITH ORDINALITY AS original (json, n) USING (n)
            ORDER BY n
            ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, updated_at = excluded.updated_at,
                width = excluded.width, height = excluded.height, color = excluded.color,
                blur_hash = excluded.blur_hash, description = excluded.description,
                alt_description = excluded.alt_description, user_username = excluded.user_username,
                user_name = excluded.user_name, likes = excluded.likes, is_sponsored = excluded.is_sponsored,
                download_location = excluded.download_location, is_plus = excluded.is_plus, json = excluded.json,
                last_seen_at = excluded.last_seen_at
            """, logger: logger)
    }

    /// Queues the jobs a page commit creates for its photos: one statement for the page's
    /// variant, one for each other variant.
    static func queueImages(
        _ page: [PageCommitPlan.Planned], variant: ImageVariant, moreVariants: [ImageVariant],
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        // An Unsplash+ image needs a paid licence: its metadata is kept, its image never fetched.
        let free = page.filter { !$0.record.isPlus }
        let withImage = free.filter { $0.record.imageURL != nil }
        if !withImage.isEmpty {
            try await connection.guardedQuery(
                """
                INSERT INTO image (photo_id, photo_sequence, variant, source_url)
                SELECT queued.id, queued.sequence, \(variant.rawValue), queued.url
                FROM unnest(
                    \(withImage.map(\.record.id))::text[], \(withImage.map(\.sequence))::bigint[],
                    \(withImage.map { $0.record.imageURL ?? "" })::text[]
                ) AS queued (id, sequence, url)
                ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                WHERE image.status <> \(literal: .stored)
                """, logger: logger)
        }
        let ids = free.map(\.record.id)
        for extra in moreVariants where extra != variant && !ids.isEmpty {
            // The variant is a key looked up as a value, so no JSON path is built from input.
            try await connection.guardedQuery(
                """
                INSERT INTO image (photo_id, photo_sequence, variant, source_url)
                SELECT photo.id, photo.sequence, \(extra.rawValue), url.value
                FROM photo, jsonb_each_text(photo.json::jsonb -> 'urls') AS url
                WHERE photo.id = ANY (\(ids)::text[]) AND url.key = \(extra.rawValue)
                  AND jsonb_typeof(photo.json::jsonb -> 'urls' -> url.key) = 'string'
                ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                WHERE image.status <> \(literal: .stored)
                """, logger: logger)
        }
    }

}

/// A fault of the store's own making inside a transaction (not the server's): its message.
struct PostgresStoreFault: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
