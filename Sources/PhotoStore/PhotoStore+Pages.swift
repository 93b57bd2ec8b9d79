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
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: String, source: String = PhotoStore.feed,
        cursor: CursorChange, now: Date
    ) throws -> PageCommit {
        try commitPage(photos, rejected: rejected, variant: variant, source: source, now: now) { _ in cursor }
    }

    /// Like ``commitPage(_:variant:cursor:now:)``, with the cursor change decided from what the
    /// page found, inside the same transaction: a catch-up that meets photos it already had
    /// ends in the commit that stores the page.
    ///
    /// The page belongs to `source` (created if new): each photo becomes a member of it, once,
    /// and the source's cursor moves, in the same transaction as the photos.
    @discardableResult
    ///
    /// For each of `moreVariants`, a job is queued as for `variant`, with the URL of that size
    /// in the photo's JSON (`urls.<variant>`), in the same transaction.
    public func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: String, moreVariants: [String] = [],
        source: String = PhotoStore.feed, now: Date, cursor: (PageCommit) throws -> CursorChange
    ) throws -> PageCommit {
        try write("committing a page of \(photos.count) photos") { db in
            let sourceID = try Self.sourceID(named: source, in: db)
            var existingSequences: [String: Int64] = [:]
            var existingMemberships: [String: Int64] = [:]
            var insertedNow: Set<String> = []
            var joinedNow: Set<String> = []
            var nextSequence = try Self.maxSequence(db) + 1
            // Every statement here is cached: preparing them anew for each photo (the INSERT also
            // compiles the search trigger) was half the page walk's CPU.
            for photo in photos {
                let known = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT sequence FROM photo WHERE id = ?"), arguments: [photo.id])
                if let known {
                    if !insertedNow.contains(photo.id) { existingSequences[photo.id] = known }
                    try Self.update(photo, seenAt: now, in: db)
                } else {
                    try Self.insert(photo, sequence: nextSequence, seenAt: now, in: db)
                    insertedNow.insert(photo.id)
                    nextSequence += 1
                }
                if let membership = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM photo_source WHERE photo_id = ? AND source_id = ?"),
                    arguments: [photo.id, sourceID])
                {
                    if !joinedNow.contains(photo.id) { existingMemberships[photo.id] = membership }
                } else {
                    try db.cachedStatement(sql: "INSERT INTO photo_source (photo_id, source_id, first_seen_at) VALUES (?, ?, ?)")
                        .execute(arguments: [photo.id, sourceID, now.stored])
                    joinedNow.insert(photo.id)
                }
                try db.cachedStatement(sql: "DELETE FROM rejected_photo WHERE photo_id = ?").execute(arguments: [photo.id])
                // An Unsplash+ image needs a paid licence: its metadata is kept, its image never fetched.
                if let imageURL = photo.imageURL, !photo.isPlus {
                    try db.cachedStatement(sql: """
                        INSERT INTO image (photo_id, variant, source_url) VALUES (?, ?, ?)
                        ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                        WHERE status <> 'stored'
                        """
                    ).execute(arguments: [photo.id, variant, imageURL])
                }
                for extra in moreVariants where !photo.isPlus && extra != variant {
                    // json_each looks the variant up as a key, so no JSON path is built from input.
                    try db.cachedStatement(sql: """
                        INSERT INTO image (photo_id, variant, source_url)
                        SELECT photo.id, :variant, url.value
                        FROM photo, json_each(photo.json, '$.urls') AS url
                        WHERE photo.id = :id AND url.key = :variant AND url.type = 'text'
                        ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                        WHERE status <> 'stored'
                        """
                    ).execute(arguments: ["id": photo.id, "variant": extra])
                }
            }
            var newlyRejected: [RejectedPhoto] = []
            for element in rejected {
                if try Self.recordRejected(element, seenAt: now, in: db) { newlyRejected.append(element) }
            }
            let commit = PageCommit(
                existingSequences: existingSequences, existingMemberships: existingMemberships, newlyRejected: newlyRejected)
            try Self.apply(cursor(commit), source: sourceID, now: now, in: db)
            return commit
        }
    }

    /// The cursors of `source` as last committed; a source never committed has none.
    public func syncState(source: String = PhotoStore.feed) throws -> SyncState {
        try read("reading the sync state of \(source)") { db in try Self.syncState(db, source: source) }
    }

    /// Records that the backfill page at the current cursor contradicted itself and will be
    /// fetched again; the cursor itself does not move. The next backfill commit clears it.
    public func recordBackfillStall(reason: String, source: String = PhotoStore.feed, at now: Date) throws {
        try write("recording a backfill stall of \(source)") { db in
            let id = try Self.sourceID(named: source, in: db)
            try db.execute(
                sql: "UPDATE source SET backfill_stall_reason = ?, backfill_stalled_at = COALESCE(backfill_stalled_at, ?) WHERE id = ?",
                arguments: [reason, now, id])
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

    /// The highest sequence assigned so far, 0 for an empty store.
    public func maxSequence() throws -> Int64 {
        try read("reading the highest sequence") { db in try Self.maxSequence(db) }
    }

    /// The newest membership so far, 0 for none: the baseline of a catch-up. A photo whose
    /// membership of a source is at or below it was listed by that source before.
    public func maxMembership() throws -> Int64 {
        try read("reading the newest membership") { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM photo_source") ?? 0
        }
    }

    // MARK: - SQL

    static func maxSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(sequence), 0) FROM photo")) ?? 0
    }

    static func syncState(_ db: Database, source: String) throws -> SyncState {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT backfill_next, backfill_complete, catch_up_next, catch_up_baseline, last_page_at,
                   backfill_stall_reason, backfill_stalled_at
            FROM source WHERE name = ?
            """, arguments: [source])
        else {
            return SyncState()
        }
        return syncState(row)
    }

    static func syncState(_ row: Row) -> SyncState {
        SyncState(
            backfillNext: (row["backfill_next"] as String?).flatMap(URL.init(string:)),
            backfillComplete: row["backfill_complete"] ?? false,
            catchUpNext: (row["catch_up_next"] as String?).flatMap(URL.init(string:)),
            catchUpBaseline: row["catch_up_baseline"],
            lastPageAt: (row["last_page_at"] as StoredDate?)?.date,
            backfillStall: (row["backfill_stall_reason"] as String?).map { reason in
                BackfillStall(reason: reason, since: (row["backfill_stalled_at"] as StoredDate?)?.date ?? Date(timeIntervalSince1970: 0))
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
        arguments += ["sequence": sequence, "now": now.stored]
        // CAST keeps the JSON's bytes verbatim but types them TEXT, which JSON functions need.
        try db.cachedStatement(sql: """
                INSERT INTO photo (
                    id, sequence, created_at, updated_at, width, height, color, blur_hash,
                    description, alt_description, user_username, user_name, likes, is_sponsored,
                    download_location, is_plus, json, first_seen_at, last_seen_at)
                VALUES (
                    :id, :sequence, :createdAt, :updatedAt, :width, :height, :color, :blurHash,
                    :description, :altDescription, :userUsername, :userName, :likes, :isSponsored,
                    :downloadLocation, :isPlus, CAST(:json AS TEXT), :now, :now)
                """
        ).execute(arguments: arguments)
    }

    private static func update(_ photo: PhotoRecord, seenAt now: Date, in db: Database) throws {
        var arguments = metadataArguments(photo)
        arguments += ["now": now.stored]
        try db.cachedStatement(sql: """
                UPDATE photo SET
                    created_at = :createdAt, updated_at = :updatedAt, width = :width,
                    height = :height, color = :color, blur_hash = :blurHash,
                    description = :description, alt_description = :altDescription,
                    user_username = :userUsername, user_name = :userName, likes = :likes,
                    is_sponsored = :isSponsored, download_location = :downloadLocation, is_plus = :isPlus,
                    json = CAST(:json AS TEXT), last_seen_at = :now
                WHERE id = :id
                """
        ).execute(arguments: arguments)
    }

    private static func metadataArguments(_ photo: PhotoRecord) -> StatementArguments {
        [
            "id": photo.id,
            "createdAt": photo.createdAt.stored,
            "updatedAt": photo.updatedAt.stored,
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
            "isPlus": photo.isPlus,
            "json": photo.json,
        ]
    }

    private static func apply(_ cursor: CursorChange, source: Int64, now: Date, in db: Database) throws {
        // A page stored means the source exists: an earlier failure is over.
        switch cursor {
        case .backfill(let next):
            try db.cachedStatement(sql: """
                UPDATE source SET backfill_next = ?, backfill_complete = ?, last_page_at = ?,
                    backfill_stall_reason = NULL, backfill_stalled_at = NULL, error = NULL, error_at = NULL
                WHERE id = ?
                """
            ).execute(arguments: [next?.absoluteString, next == nil, now.stored, source])
        case .catchUp(let next, let baseline):
            // A finished catch-up leaves no baseline behind: "in progress" is catch_up_next != NULL.
            try db.cachedStatement(sql: """
                UPDATE source SET catch_up_next = ?, catch_up_baseline = ?, last_page_at = ?, error = NULL, error_at = NULL
                WHERE id = ?
                """
            ).execute(arguments: [next?.absoluteString, next == nil ? nil : baseline, now.stored, source])
        }
    }
}
