import Foundation
import GRDB

extension PhotoStore {
    /// Stores one fetched page and moves its cursor, in a single write transaction: after a
    /// crash either the page and its cursor are both there, or neither is and the page is
    /// fetched again (at-least-once fetching, exactly-once storing).
    ///
    /// For each photo, by id: a new one gets the next sequence and `firstSeenAt = now`; a known
    /// one keeps both and has its metadata and JSON replaced. `lastSeenAt = now` for all. When
    /// `imageURL` is non-nil, a pending image job for `variant` is created if missing; an
    /// existing job that is not yet stored gets the new URL (its status is kept). Finally the
    /// cursor changes and `lastPageAt = now`.
    ///
    /// `rejected` elements are kept in `rejected_photo`, one row per distinct JSON text: a new
    /// one is added and listed in ``PageCommit/newlyRejected``, a known one has its last-seen
    /// time moved. Storing a usable photo clears the rejections recorded under its id.
    ///
    /// - Returns: the sequences of the page's photos that existed before this call.
    /// - Throws: `StoreError.databaseFailure` (e.g. a photo violating a constraint: empty id,
    ///   negative size, invalid JSON); nothing is changed then.
    @discardableResult
    public func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: String, cursor: CursorChange, now: Date
    ) throws -> PageCommit {
        try commitPage(photos, rejected: rejected, variant: variant, now: now) { _ in cursor }
    }

    /// Like ``commitPage(_:variant:cursor:now:)``, with the cursor change decided from what the
    /// page found, inside the same transaction: a catch-up that meets photos it already had
    /// ends in the commit that stores the page.
    @discardableResult
    public func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: String, now: Date,
        cursor: (PageCommit) throws -> CursorChange
    ) throws -> PageCommit {
        try write("committing a page of \(photos.count) photos") { db in
            var existingSequences: [String: Int64] = [:]
            var insertedNow: Set<String> = []
            var nextSequence = try Self.maxSequence(db) + 1
            for photo in photos {
                let known = try Int64.fetchOne(
                    db, sql: "SELECT sequence FROM photo WHERE id = ?", arguments: [photo.id])
                if let known {
                    if !insertedNow.contains(photo.id) { existingSequences[photo.id] = known }
                    try Self.update(photo, seenAt: now, in: db)
                } else {
                    try Self.insert(photo, sequence: nextSequence, seenAt: now, in: db)
                    insertedNow.insert(photo.id)
                    nextSequence += 1
                }
                try db.execute(sql: "DELETE FROM rejected_photo WHERE photo_id = ?", arguments: [photo.id])
                if let imageURL = photo.imageURL {
                    try db.execute(
                        sql: """
                            INSERT INTO image (photo_id, variant, source_url) VALUES (?, ?, ?)
                            ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                            WHERE status <> 'stored'
                            """,
                        arguments: [photo.id, variant, imageURL])
                }
            }
            var newlyRejected: [RejectedPhoto] = []
            for element in rejected {
                if try Self.recordRejected(element, seenAt: now, in: db) { newlyRejected.append(element) }
            }
            let commit = PageCommit(existingSequences: existingSequences, newlyRejected: newlyRejected)
            try Self.apply(cursor(commit), now: now, in: db)
            return commit
        }
    }

    /// The cursors as last committed.
    public func syncState() throws -> SyncState {
        try read("reading the sync state") { db in try Self.syncState(db) }
    }

    /// Records that the backfill page at the current cursor contradicted itself and will be
    /// fetched again; the cursor itself does not move. The next backfill commit clears it.
    public func recordBackfillStall(reason: String, at now: Date) throws {
        try write("recording a backfill stall") { db in
            try db.execute(
                sql: "UPDATE sync_state SET backfill_stall_reason = ?, backfill_stalled_at = COALESCE(backfill_stalled_at, ?) WHERE id = 1",
                arguments: [reason, now])
        }
    }

    /// The rejected feed elements, oldest first, at most `limit`.
    public func rejectedPhotos(limit: Int) throws -> [RejectedPhoto] {
        try read("listing rejected photos") { db in
            try Row.fetchAll(
                db, sql: "SELECT photo_id, CAST(json AS BLOB) AS json, reason FROM rejected_photo ORDER BY id LIMIT ?",
                arguments: [limit]
            ).map { row in
                RejectedPhoto(
                    photoID: try row.decode(forColumn: "photo_id"),
                    json: try row.decode(forColumn: "json"),
                    reason: try row.decode(forColumn: "reason"))
            }
        }
    }

    /// The highest sequence assigned so far, 0 for an empty store: the baseline of a catch-up.
    public func maxSequence() throws -> Int64 {
        try read("reading the highest sequence") { db in try Self.maxSequence(db) }
    }

    // MARK: - SQL

    static func maxSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(sequence), 0) FROM photo") ?? 0
    }

    static func syncState(_ db: Database) throws -> SyncState {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT backfill_next, backfill_complete, catch_up_next, catch_up_baseline, last_page_at,
                   backfill_stall_reason, backfill_stalled_at
            FROM sync_state WHERE id = 1
            """)
        else {
            // Migration v1 inserts the row and nothing deletes it.
            throw DatabaseError(message: "the sync_state row is missing")
        }
        return SyncState(
            backfillNext: (row["backfill_next"] as String?).flatMap(URL.init(string:)),
            backfillComplete: try row.decode(forColumn: "backfill_complete"),
            catchUpNext: (row["catch_up_next"] as String?).flatMap(URL.init(string:)),
            catchUpBaseline: try row.decode(forColumn: "catch_up_baseline"),
            lastPageAt: try row.decode(forColumn: "last_page_at"),
            backfillStall: try (row["backfill_stall_reason"] as String?).map { reason in
                BackfillStall(reason: reason, since: try row.decode(forColumn: "backfill_stalled_at"))
            })
    }

    /// Adds `element` to `rejected_photo`, or moves its last-seen time; true when it is new.
    private static func recordRejected(_ element: RejectedPhoto, seenAt now: Date, in db: Database) throws -> Bool {
        let known = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM rejected_photo WHERE json = CAST(? AS TEXT))",
            arguments: [element.json]) ?? false
        try db.execute(
            sql: """
                INSERT INTO rejected_photo (photo_id, json, reason, first_seen_at, last_seen_at)
                VALUES (?, CAST(? AS TEXT), ?, ?, ?)
                ON CONFLICT (json) DO UPDATE SET last_seen_at = excluded.last_seen_at, reason = excluded.reason
                """,
            arguments: [element.photoID, element.json, element.reason, now, now])
        return !known
    }

    private static func insert(_ photo: PhotoRecord, sequence: Int64, seenAt now: Date, in db: Database) throws {
        var arguments = metadataArguments(photo)
        arguments += ["sequence": sequence, "now": now]
        // CAST keeps the JSON's bytes verbatim but types them TEXT, which JSON functions need.
        try db.execute(
            sql: """
                INSERT INTO photo (
                    id, sequence, created_at, updated_at, width, height, color, blur_hash,
                    description, alt_description, user_username, user_name, likes, is_sponsored,
                    download_location, json, first_seen_at, last_seen_at)
                VALUES (
                    :id, :sequence, :createdAt, :updatedAt, :width, :height, :color, :blurHash,
                    :description, :altDescription, :userUsername, :userName, :likes, :isSponsored,
                    :downloadLocation, CAST(:json AS TEXT), :now, :now)
                """,
            arguments: arguments)
    }

    private static func update(_ photo: PhotoRecord, seenAt now: Date, in db: Database) throws {
        var arguments = metadataArguments(photo)
        arguments += ["now": now]
        try db.execute(
            sql: """
                UPDATE photo SET
                    created_at = :createdAt, updated_at = :updatedAt, width = :width,
                    height = :height, color = :color, blur_hash = :blurHash,
                    description = :description, alt_description = :altDescription,
                    user_username = :userUsername, user_name = :userName, likes = :likes,
                    is_sponsored = :isSponsored, download_location = :downloadLocation,
                    json = CAST(:json AS TEXT), last_seen_at = :now
                WHERE id = :id
                """,
            arguments: arguments)
    }

    private static func metadataArguments(_ photo: PhotoRecord) -> StatementArguments {
        [
            "id": photo.id,
            "createdAt": photo.createdAt,
            "updatedAt": photo.updatedAt,
            "width": photo.width,
            "height": photo.height,
            "color": photo.color,
            "blurHash": photo.blurHash,
            "description": photo.description,
            "altDescription": photo.altDescription,
            "userUsername": photo.userUsername,
            "userName": photo.userName,
            "likes": photo.likes,
            "isSponsored": photo.isSponsored,
            "downloadLocation": photo.downloadLocation,
            "json": photo.json,
        ]
    }

    private static func apply(_ cursor: CursorChange, now: Date, in db: Database) throws {
        switch cursor {
        case .backfill(let next):
            try db.execute(
                sql: """
                    UPDATE sync_state SET backfill_next = ?, backfill_complete = ?, last_page_at = ?,
                        backfill_stall_reason = NULL, backfill_stalled_at = NULL
                    WHERE id = 1
                    """,
                arguments: [next?.absoluteString, next == nil, now])
        case .catchUp(let next, let baseline):
            // A finished catch-up leaves no baseline behind: "in progress" is catch_up_next != NULL.
            try db.execute(
                sql: """
                    UPDATE sync_state SET catch_up_next = ?, catch_up_baseline = ?, last_page_at = ?
                    WHERE id = 1
                    """,
                arguments: [next?.absoluteString, next == nil ? nil : baseline, now])
        }
    }
}
