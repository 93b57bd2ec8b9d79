import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The image queue in SQLite: a job is a row of `image`, its state in `status` and
/// `failure_class` (``ImageStatus``, ``ImageFailureClass``), its next attempt in `next_attempt_at`.
struct SQLiteImageQueue: ImageQueue {
    let database: StoreDatabase

    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep
    {
        try await database.write("queueing missing \(variant) images") { db in
            // The step's last photo: the walk's next start, or nil when fewer photos are left.
            let next = try Int64.fetchOne(
                db,
                sql: "SELECT sequence FROM photo WHERE sequence > ? ORDER BY sequence LIMIT 1 OFFSET ?",
                arguments: [sequence, max(limit, 1) - 1])
            // json_each looks the variant up as a key, so no JSON path is built from input.
            try db.execute(
                sql: """
                    INSERT INTO image (photo_id, variant, source_url)
                    SELECT photo.id, :variant, url.value
                    FROM photo, json_each(photo.json, '$.urls') AS url
                    WHERE photo.sequence > :after AND photo.sequence <= :last
                      AND url.key = :variant AND url.type = 'text' AND photo.is_plus = 0
                      AND NOT EXISTS (
                          SELECT 1 FROM image WHERE image.photo_id = photo.id AND image.variant = :variant)
                    ORDER BY photo.sequence
                    """,
                arguments: ["variant": variant, "after": sequence, "last": next ?? .max])
            let queued = db.changesCount
            // The step's last photo, or the last stored when it took the rest, is the next
            // walk's start, if the step began within what was walked already.
            try db.execute(
                sql: """
                    INSERT INTO image_walk (variant, through_sequence)
                    SELECT :variant, coalesce(:next, (SELECT max(sequence) FROM photo), 0)
                    WHERE :after <= coalesce((SELECT through_sequence FROM image_walk WHERE variant = :variant), 0)
                    ON CONFLICT (variant) DO UPDATE SET through_sequence = excluded.through_sequence
                    WHERE excluded.through_sequence > through_sequence
                    """,
                arguments: ["variant": variant, "next": next, "after": sequence])
            return MissingImagesStep(queued: queued, next: next)
        }
    }

    func queuedThrough(variant: ImageVariant) async throws(StoreError) -> Int64 {
        try await database.read("reading where the walk of \(variant) images stands") { db in
            try Int64.fetchOne(
                db, sql: "SELECT through_sequence FROM image_walk WHERE variant = ?", arguments: [variant]) ?? 0
        }
    }

    /// Lowers every walk of a variant not in `queued` to below `sequence`, the oldest photo a
    /// page commit listed again, inside the commit's transaction: the page may have changed
    /// whether that photo can have such an image (its licence, its URLs), and only the variants
    /// the commit queues were looked at for it (``ImageQueue/queuedThrough(variant:)``).
    static func reopenWalks(from sequence: Int64, except queued: [ImageVariant], in db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE image_walk SET through_sequence = ? - 1
                WHERE through_sequence >= ? AND variant NOT IN \(variantList)
                """
        ).execute(arguments: [sequence, sequence, json(queued)])
    }

    func dueImageJobs(variants: [ImageVariant], now: Date, limit: Int) async throws(StoreError) -> [ImageJob] {
        let variantList = Self.json(variants)
        return try await database.read("listing due \(variants.map(\.rawValue).joined(separator: ", ")) images") { db in
            // Cached, like the other queries the pipeline runs again and again: preparing them
            // anew each time cost more than running them.
            try ImageJobRow.fetchAll(
                db.cachedStatement(sql: Self.dueJobsSQL),
                arguments: [variantList, now.stored, limit]
            ).map(\.job)
        }
    }

    func nextImageRetry(variants: [ImageVariant]) async throws(StoreError) -> Date? {
        let variantList = Self.json(variants)
        return try await database.read("finding the next image retry") { db in
            let neverAttempted =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM image
                            WHERE status = \(ImageStatus.pending.sqlLiteral) AND variant IN \(Self.variantList) AND next_attempt_at IS NULL)
                            """),
                    arguments: [variantList]) ?? false
            if neverAttempted { return Date.distantPast }
            return try Date.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MIN(next_attempt_at) FROM image
                        WHERE status = \(ImageStatus.pending.sqlLiteral) AND variant IN \(Self.variantList)
                        """),
                arguments: [variantList])
        }
    }

    func unattemptedImageCount(variants: [ImageVariant], upTo limit: Int) async throws(StoreError) -> Int {
        let variantList = Self.json(variants)
        return try await database.read("counting queued images") { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM (
                        SELECT 1 FROM image
                        WHERE status = \(ImageStatus.pending.sqlLiteral) AND variant IN \(Self.variantList)
                          AND attempts = 0
                        LIMIT ?)
                    """,
                arguments: [variantList, Int64(clamping: limit)]) ?? 0
        }
    }

    func recordImageFailure(photoID: String, variant: ImageVariant, error: String, retryAt: Date?)
        async throws(StoreError)
    {
        let failure = ImageAttemptFailure(photoID: photoID, variant: variant, error: error, retryAt: retryAt)
        let path = database.path
        try await database.write("recording a failed download of photo \(photoID)") { db in
            try Self.record(failure, path: path, in: db)
        }
    }

    func failedImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await database.read("listing failed images") { db in
            try Self.failures(db, status: .failed, order: "photo.sequence, image.variant", limit: limit)
        }
    }

    func retryingImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await database.read("listing images waiting for a retry") { db in
            try Self.failures(
                db, status: .pending, order: "image.next_attempt_at, photo.sequence, image.variant", limit: limit)
        }
    }

    private static func failures(
        _ db: Database, status: ImageStatus, order: String, limit: Int
    ) throws -> [ImageFailure] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT image.photo_id, image.variant, image.attempts, image.last_error, image.next_attempt_at
                FROM image JOIN photo ON photo.id = image.photo_id
                WHERE image.status = ? AND image.failure_class IS NOT NULL
                ORDER BY \(order)
                LIMIT ?
                """,
            arguments: [status, limit]
        ).map { row in
            ImageFailure(
                photoID: try row.decode(forColumn: "photo_id"),
                variant: try row.decode(forColumn: "variant"),
                attempts: try row.decode(forColumn: "attempts"),
                lastError: try row.decode(String?.self, forColumn: "last_error") ?? "",
                nextAttemptAt: status == .failed ? nil : try row.decode(Date?.self, forColumn: "next_attempt_at"))
        }
    }

    @discardableResult
    func retryTransientFailures(now: Date) async throws(StoreError) -> Int {
        try await database.write("making failed images due") { db in
            try db.execute(
                sql: """
                    UPDATE image SET next_attempt_at = ?
                    WHERE status = \(ImageStatus.pending.sqlLiteral) AND failure_class = \(ImageFailureClass.transient.sqlLiteral) AND next_attempt_at > ?
                    """,
                arguments: [now, now])
            return db.changesCount
        }
    }

    func requeue(_ request: RetryRequest) async throws(StoreError) -> RetryOutcome {
        let path = database.path
        // A job keeps its failure class once stored: a stored or pruned image (which failed
        // before it was stored) is never requeued, or a pruned one would be fetched forever.
        return try await database.write("requeueing failed images") { db in
            let reset = """
                UPDATE image SET status = \(ImageStatus.pending.sqlLiteral), failure_class = NULL, attempts = 0, next_attempt_at = NULL
                """
            var outcome = RetryOutcome()
            switch request {
            case .transient, .all:
                let classes: [ImageFailureClass] = request == .all ? [.transient, .permanent] : [.transient]
                try db.execute(
                    sql: """
                        \(reset) WHERE status NOT IN (\(ImageStatus.stored.sqlLiteral), \(ImageStatus.pruned.sqlLiteral))
                        AND failure_class IN (\(classes.map(\.sqlLiteral).joined(separator: ", ")))
                        """)
                outcome.requeued = db.changesCount
            case .photos(let ids):
                for id in ids {
                    let known = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE id = ?)", arguments: [id])
                    guard known == true else { throw StoreError.unknownPhoto(path: path, photoID: id) }
                    try db.execute(
                        sql: """
                            \(reset) WHERE photo_id = ?
                            AND status NOT IN (\(ImageStatus.stored.sqlLiteral), \(ImageStatus.pruned.sqlLiteral))
                            AND failure_class IS NOT NULL
                            """,
                        arguments: [id])
                    if db.changesCount == 0 {
                        outcome.nothingToRetry.append(id)
                    } else {
                        outcome.requeued += db.changesCount
                    }
                }
            }
            return outcome
        }
    }

    func imageCounts(variants: [ImageVariant]) async throws(StoreError) -> ImageCounts {
        let variantList = Self.json(variants)
        return try await database.read("counting \(variants.map(\.rawValue).joined(separator: ", ")) images") { db in
            var counts: [ImageStatus: Int64] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT status, sum(images) AS count FROM image_tally
                    WHERE variant IN \(Self.variantList) GROUP BY status
                    """,
                arguments: [variantList])
            {
                counts[try row.decode(forColumn: "status")] = try row.decode(forColumn: "count")
            }
            var imageCounts = ImageCounts(
                stored: counts[.stored, default: 0], pending: counts[.pending, default: 0],
                failed: counts[.failed, default: 0])
            if let retrying = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS count, MIN(next_attempt_at) AS next FROM image
                    WHERE status = \(ImageStatus.pending.sqlLiteral) AND failure_class = \(ImageFailureClass.transient.sqlLiteral) AND variant IN \(Self.variantList)
                    """,
                arguments: [variantList])
            {
                imageCounts.retrying = try retrying.decode(forColumn: "count")
                imageCounts.nextRetryAt = try retrying.decode(Date?.self, forColumn: "next")
            }
            return imageCounts
        }
    }

    // MARK: - SQL

    /// `IN` over a JSON array bound as one argument, so a list of variants needs no SQL built
    /// from input.
    static let variantList = "(SELECT value FROM json_each(?))"

    // The statements the page commit, the fetchers and the image writer run again and again,
    // built once. Their status words come from `ImageStatus` as literals in the text, where the
    // `image_queue` index and the planner see them (`QueryPlanTests`).
    //
    // The due jobs are read in `image_due`'s order (schema v19), named so that the planner does
    // not take `image_queue` and sort every pending image instead, as it does without statistics.
    private static let dueJobsSQL = """
        SELECT image.photo_id, image.variant, image.source_url, image.attempts
        FROM image INDEXED BY image_due
        WHERE image.status = \(ImageStatus.pending.sqlLiteral) AND image.variant IN \(variantList)
          AND (image.next_attempt_at IS NULL OR image.next_attempt_at <= ?)
        ORDER BY image.photo_sequence, image.variant
        LIMIT ?
        """
    private static let queueSQL = """
        INSERT INTO image (photo_id, variant, source_url) VALUES (?, ?, ?)
        ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
        WHERE status <> \(ImageStatus.stored.sqlLiteral)
        """
    private static let queueFromJSONSQL = """
        INSERT INTO image (photo_id, variant, source_url)
        SELECT photo.id, :variant, url.value
        FROM photo, json_each(photo.json, '$.urls') AS url
        WHERE photo.id = :id AND url.key = :variant AND url.type = 'text'
        ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
        WHERE status <> \(ImageStatus.stored.sqlLiteral)
        """
    private static let recordFailureSQL = """
        UPDATE image SET
            attempts = attempts + 1,
            last_error = :error,
            status = CASE WHEN :retryAt IS NULL
                THEN \(ImageStatus.failed.sqlLiteral) ELSE \(ImageStatus.pending.sqlLiteral) END,
            failure_class = CASE WHEN :retryAt IS NULL
                THEN \(ImageFailureClass.permanent.sqlLiteral) ELSE \(ImageFailureClass.transient.sqlLiteral) END,
            next_attempt_at = :retryAt
        WHERE photo_id = :photoID AND variant = :variant
          AND status NOT IN (\(ImageStatus.stored.sqlLiteral), \(ImageStatus.pruned.sqlLiteral))
        """

    static func json(_ variants: [ImageVariant]) -> String {
        String(decoding: (try? JSONEncoder().encode(variants)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// Queues the jobs a page commit creates for `photo`, inside the commit's transaction: see
    /// ``SyncLedger/commitPage(_:rejected:variant:moreVariants:source:now:cursor:)``.
    static func queue(_ photo: PhotoRecord, variant: ImageVariant, moreVariants: [ImageVariant], in db: Database) throws
    {
        // An Unsplash+ image needs a paid licence: its metadata is kept, its image never fetched.
        guard !photo.isPlus else { return }
        if let imageURL = photo.imageURL {
            try db.cachedStatement(sql: queueSQL).execute(arguments: [photo.id, variant, imageURL])
        }
        for extra in moreVariants where extra != variant {
            // json_each looks the variant up as a key, so no JSON path is built from input.
            try db.cachedStatement(sql: queueFromJSONSQL).execute(arguments: ["id": photo.id, "variant": extra])
        }
    }

    /// Records a failed attempt inside the caller's transaction, as `recordImageFailure` does.
    static func record(_ failure: ImageAttemptFailure, path: String, in db: Database) throws {
        try db.cachedStatement(sql: recordFailureSQL).execute(arguments: [
            "error": failure.error, "retryAt": failure.retryAt, "photoID": failure.photoID, "variant": failure.variant,
        ])
        if db.changesCount == 0 {
            let exists =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM image WHERE photo_id = ? AND variant = ?)",
                    arguments: [failure.photoID, failure.variant]) ?? false
            if !exists {
                throw StoreError.unknownImageJob(path: path, photoID: failure.photoID, variant: failure.variant)
            }
        }
    }
}

/// A pending `image` row as the fetchers read it (``SQLiteImageQueue/dueJobsSQL``), by position:
/// by name (`Decodable`) each row built a dictionary of its column names, about 1.5 % of a sync's
/// CPU (the queue is read all run long).
private struct ImageJobRow: FetchableRecord {
    let job: ImageJob

    init(row: Row) throws {
        job = ImageJob(
            photoID: try row.decode(String.self, atIndex: 0), variant: try row.decode(ImageVariant.self, atIndex: 1),
            sourceURL: try row.decode(String.self, atIndex: 2), attempts: try row.decode(Int.self, atIndex: 3))
    }
}
