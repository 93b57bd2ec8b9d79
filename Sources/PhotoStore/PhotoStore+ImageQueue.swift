import Foundation
import GRDB

/// The image download queue. A job is one photo in one variant, and moves
/// pending -> stored, or pending -> failed when the caller gives up on it. A pending job is due
/// when its next attempt time has come; a job never attempted has none and is due at once.
extension PhotoStore {
    /// Creates a pending job for `variant` for every photo that has none, taking the URL from
    /// the photo's stored JSON (`urls.<variant>`): so a user who switches variant gets the new
    /// one for photos stored before. Photos whose JSON lacks that URL are skipped.
    ///
    /// - Returns: how many jobs were created.
    @discardableResult
    public func enqueueMissingImages(variant: String) throws -> Int {
        try write("queueing missing \(variant) images") { db in
            // json_each looks the variant up as a key, so no JSON path is built from input.
            try db.execute(
                sql: """
                    INSERT INTO image (photo_id, variant, source_url)
                    SELECT photo.id, :variant, url.value
                    FROM photo, json_each(photo.json, '$.urls') AS url
                    WHERE url.key = :variant AND url.type = 'text' AND photo.is_plus = 0
                      AND NOT EXISTS (
                          SELECT 1 FROM image WHERE image.photo_id = photo.id AND image.variant = :variant)
                    ORDER BY photo.sequence
                    """,
                arguments: ["variant": variant])
            return db.changesCount
        }
    }

    /// Pending jobs for `variant` whose next attempt time is at or before `now`, in the order
    /// their photos were first stored (lowest sequence first), at most `limit`.
    public func dueImageJobs(variant: String, now: Date, limit: Int) throws -> [ImageJob] {
        try dueImageJobs(variants: [variant], now: now, limit: limit)
    }

    /// Like ``dueImageJobs(variant:now:limit:)``, over several variants: a photo's variants
    /// come one after another.
    public func dueImageJobs(variants: [String], now: Date, limit: Int) throws -> [ImageJob] {
        try read("listing due \(variants.joined(separator: ", ")) images") { db in
            // Cached, like the other queries the pipeline runs again and again: preparing them
            // anew each time cost more than running them.
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT image.photo_id, image.variant, image.source_url, image.attempts
                    FROM image JOIN photo ON photo.id = image.photo_id
                    WHERE image.status = 'pending' AND image.variant IN \(Self.variantList)
                      AND (image.next_attempt_at IS NULL OR image.next_attempt_at <= ?)
                    ORDER BY photo.sequence, image.variant
                    LIMIT ?
                    """),
                arguments: [Self.json(variants), now.stored, limit]
            ).map { row in
                ImageJob(
                    photoID: try row.decode(forColumn: "photo_id"),
                    variant: try row.decode(forColumn: "variant"),
                    sourceURL: try row.decode(forColumn: "source_url"),
                    attempts: try row.decode(forColumn: "attempts"))
            }
        }
    }

    /// The earliest next attempt time among pending jobs for `variant`, to know how long to
    /// wait; `Date.distantPast` when a job was never attempted (it is due at once); nil when
    /// nothing is pending.
    public func nextImageRetry(variant: String) throws -> Date? {
        try nextImageRetry(variants: [variant])
    }

    /// Like ``nextImageRetry(variant:)``, over several variants.
    public func nextImageRetry(variants: [String]) throws -> Date? {
        try read("finding the next image retry") { db in
            let neverAttempted = try Bool.fetchOne(
                db.cachedStatement(sql: """
                    SELECT EXISTS (SELECT 1 FROM image
                    WHERE status = 'pending' AND variant IN \(Self.variantList) AND next_attempt_at IS NULL)
                    """),
                arguments: [Self.json(variants)]) ?? false
            if neverAttempted { return Date.distantPast }
            return try Date.fetchOne(
                db.cachedStatement(
                    sql: "SELECT MIN(next_attempt_at) FROM image WHERE status = 'pending' AND variant IN \(Self.variantList)"),
                arguments: [Self.json(variants)])
        }
    }

    /// Records a failed download attempt: `attempts` grows by one and `error` is kept. With a
    /// `retryAt`, the job stays pending and is not due before that time; with nil, the job
    /// becomes `failed`: never due again, counted in statistics and listed by `failedImages`.
    /// A job already stored is left as it is.
    ///
    /// - Throws: `StoreError.unknownImageJob` when there is no such job.
    public func recordImageFailure(photoID: String, variant: String, error: String, retryAt: Date?) throws {
        let failure = ImageAttemptFailure(photoID: photoID, variant: variant, error: error, retryAt: retryAt)
        try write("recording a failed download of photo \(photoID)") { db in
            try Self.record(failure, path: path, in: db)
        }
    }

    /// Pending jobs for `variant` never attempted yet: the downloads the page walker has queued
    /// ahead of the fetchers. Jobs waiting for a retry do not count.
    public func unattemptedImageCount(variant: String) throws -> Int {
        try unattemptedImageCount(variants: [variant])
    }

    /// Like ``unattemptedImageCount(variant:)``, over several variants.
    public func unattemptedImageCount(variants: [String]) throws -> Int {
        try read("counting queued images") { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM image WHERE status = 'pending' AND variant IN \(Self.variantList) AND attempts = 0",
                arguments: [Self.json(variants)]) ?? 0
        }
    }

    /// Jobs that were given up on, in the order their photos were first stored, at most `limit`.
    public func failedImages(limit: Int) throws -> [ImageFailure] {
        try read("listing failed images") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT image.photo_id, image.variant, image.attempts, image.last_error
                    FROM image JOIN photo ON photo.id = image.photo_id
                    WHERE image.status = 'failed'
                    ORDER BY photo.sequence, image.variant
                    LIMIT ?
                    """,
                arguments: [limit]
            ).map { row in
                ImageFailure(
                    photoID: try row.decode(forColumn: "photo_id"),
                    variant: try row.decode(forColumn: "variant"),
                    attempts: try row.decode(forColumn: "attempts"),
                    lastError: try row.decode(String?.self, forColumn: "last_error") ?? "")
            }
        }
    }

    // MARK: - Download tracking

    /// Photos that have a stored image (any variant) and a download location, and whose
    /// download was not tracked yet, in the order they were first stored, at most `limit`.
    public func pendingDownloadTracking(limit: Int) throws -> [DownloadTrackingJob] {
        try read("listing downloads to track") { db in
            try Row.fetchAll(db.cachedStatement(sql: Self.pendingDownloadTrackingSQL), arguments: [limit]).map { row in
                DownloadTrackingJob(
                    photoID: try row.decode(forColumn: "id"),
                    downloadLocation: try row.decode(forColumn: "download_location"))
            }
        }
    }

    /// Records that Unsplash was told about these photos' downloads, in one transaction. The first
    /// time is kept for each. Marking a photo touches neither its search entry nor its metadata.
    ///
    /// - Throws: `StoreError.unknownPhoto` when one of them does not exist; nothing is marked then.
    public func markDownloadsTracked(photoIDs: [String], at date: Date) throws {
        guard !photoIDs.isEmpty else { return }
        try write("marking \(photoIDs.count) downloads tracked") { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE photo SET download_tracked_at = COALESCE(download_tracked_at, ?) WHERE id = ?")
            for photoID in photoIDs {
                try statement.execute(arguments: [date.stored, photoID])
                if db.changesCount == 0 {
                    throw StoreError.unknownPhoto(path: path, photoID: photoID)
                }
            }
        }
    }

    // MARK: - SQL

    /// The photos to track. Each one's images are found by its id (`+` keeps SQLite from using
    /// the status index instead: that scans every stored image for each photo, and made each
    /// read of a 3,000-photo sync's tracking queue take up to 0.4 s).
    static let pendingDownloadTrackingSQL = """
        SELECT id, download_location FROM photo
        WHERE download_tracked_at IS NULL AND download_location IS NOT NULL
          AND EXISTS (SELECT 1 FROM image WHERE image.photo_id = photo.id AND +image.status = 'stored')
        ORDER BY sequence
        LIMIT ?
        """

    /// Records a failed attempt inside the caller's transaction, as `recordImageFailure` does.
    static func record(_ failure: ImageAttemptFailure, path: String, in db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE image SET
                attempts = attempts + 1,
                last_error = :error,
                status = CASE WHEN :retryAt IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = :retryAt
            WHERE photo_id = :photoID AND variant = :variant AND status <> 'stored'
            """
        ).execute(arguments: ["error": failure.error, "retryAt": failure.retryAt, "photoID": failure.photoID, "variant": failure.variant])
        if db.changesCount == 0 {
            try requireImageJob(photoID: failure.photoID, variant: failure.variant, path: path, in: db)
        }
    }

    /// Throws `unknownImageJob` unless the job exists.
    static func requireImageJob(photoID: String, variant: String, path: String, in db: Database) throws {
        let exists = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM image WHERE photo_id = ? AND variant = ?)",
            arguments: [photoID, variant]) ?? false
        if !exists {
            throw StoreError.unknownImageJob(path: path, photoID: photoID, variant: variant)
        }
    }
}
