import Foundation
import PhotoStore
import PostgresNIO

/// The image queue in PostgreSQL: a job is a row of `image`, as in SQLite (``ImageQueue``'s
/// contract); a list of variants is bound as one `text[]`.
struct PostgresImageQueue: ImageQueue {
    let database: PostgresDatabase

    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep
    {
        let logger = database.logger
        return try await database.write("queueing images of variant \(variant)") { connection in
            // The step's last photo: the walk's next start, or nil when fewer photos are left.
            let next = try await connection.guardedQuery(
                "SELECT sequence FROM photo WHERE sequence > \(sequence) ORDER BY sequence LIMIT 1 OFFSET \(max(limit, 1) - 1)",
                logger: logger
            ).collect().first?.decode(Int64.self)
            // A URL is the JSON string's text (`#>> '{}'`), not the JSON: quoted, it named no
            // host, and every image of a variant asked for later failed its download.
            // Each photo's job is looked up by the unique (photo_id, variant) index: a lateral
            // subquery with a limit is run for each photo, where a `NOT EXISTS` became an anti
            // join its statistics planned. On statistics that called the variant absent (a
            // variant asked for later, the walk's earlier steps not analyzed yet) that was a
            // nested loop over every job of the variant for each photo: 18 s for the second
            // 10,000 photos of a million, where this takes 1.5 s (Benchmarks/HISTORY.md).
            let queued = try await connection.integer(
                """
                WITH queued AS (
                    INSERT INTO image (photo_id, photo_sequence, variant, source_url)
                    SELECT photo.id, photo.sequence, \(variant.rawValue), url.value #>> '{}'
                    FROM photo
                    LEFT JOIN LATERAL (
                        SELECT true AS found FROM image
                        WHERE image.photo_id = photo.id AND image.variant = \(variant.rawValue) LIMIT 1
                    ) AS job ON true,
                    jsonb_each(photo.json::jsonb -> 'urls') AS url
                    WHERE photo.sequence > \(sequence) AND photo.sequence <= \(next ?? .max) AND job.found IS NULL
                      AND url.key = \(variant.rawValue) AND jsonb_typeof(url.value) = 'string' AND NOT photo.is_plus
                    ORDER BY photo.sequence
                    RETURNING 1
                )
                SELECT count(*) FROM queued
                """, logger: logger)
            // The step's last photo, or the last stored when it took the rest, is the next
            // walk's start, if the step began within what was walked already.
            try await connection.guardedQuery(
                """
                INSERT INTO image_walk (variant, through_sequence)
                SELECT \(variant.rawValue), coalesce(\(next)::bigint, (SELECT max(sequence) FROM photo), 0)
                WHERE \(sequence) <= coalesce(
                    (SELECT through_sequence FROM image_walk WHERE variant = \(variant.rawValue)), 0)
                ON CONFLICT (variant) DO UPDATE SET through_sequence = excluded.through_sequence
                WHERE excluded.through_sequence > image_walk.through_sequence
                """, logger: logger)
            return MissingImagesStep(queued: Int(queued), next: next)
        }
    }

    func queuedThrough(variant: ImageVariant) async throws(StoreError) -> Int64 {
        let logger = database.logger
        return try await database.read("reading where the walk of \(variant) images stands") { connection in
            try await connection.guardedQuery(
                "SELECT through_sequence FROM image_walk WHERE variant = \(variant.rawValue)", logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
    }

    /// Lowers every walk of a variant not in `queued` to below `sequence`, the oldest photo a
    /// page commit listed again, inside the commit's transaction: the page may have changed
    /// whether that photo can have such an image (its licence, its URLs), and only the variants
    /// the commit queues were looked at for it (``ImageQueue/queuedThrough(variant:)``).
    static func reopenWalks(
        from sequence: Int64, except queued: [ImageVariant], _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await connection.guardedQuery(
            """
            UPDATE image_walk SET through_sequence = \(sequence) - 1
            WHERE through_sequence >= \(sequence) AND variant <> ALL (\(queued.map(\.rawValue))::text[])
            """, logger: logger)
    }

    func dueImageJobs(variants: [ImageVariant], now: Date, limit: Int) async throws(StoreError) -> [ImageJob] {
        let (logger, names) = (database.logger, variants.map(\.rawValue))
        return try await database.read("listing due \(names.joined(separator: ", ")) images") { connection in
            var jobs: [ImageJob] = []
            let rows = try await connection.guardedQuery(
                """
                SELECT photo_id, variant, source_url, attempts FROM image
                WHERE status = \(literal: .pending) AND variant = ANY(\(names))
                  AND (next_attempt_at IS NULL OR next_attempt_at <= \(now))
                ORDER BY photo_sequence, variant
                LIMIT \(limit)
                """, logger: logger)
            for try await (photoID, variant, url, attempts) in rows.decode((String, String, String, Int).self) {
                guard let variant = ImageVariant(rawValue: variant) else { continue }
                jobs.append(ImageJob(photoID: photoID, variant: variant, sourceURL: url, attempts: attempts))
            }
            return jobs
        }
    }

    func nextImageRetry(variants: [ImageVariant]) async throws(StoreError) -> Date? {
        let (logger, names) = (database.logger, variants.map(\.rawValue))
        return try await database.read("finding the next image retry") { connection in
            let row = try await connection.guardedQuery(
                """
                SELECT bool_or(next_attempt_at IS NULL), MIN(next_attempt_at) FROM image
                WHERE status = \(literal: .pending) AND variant = ANY(\(names))
                """, logger: logger
            ).collect().first
            guard let (neverAttempted, next) = try row?.decode((Bool?, Date?).self) else { return nil }
            return neverAttempted == true ? Date.distantPast : next
        }
    }

    func unattemptedImageCount(variants: [ImageVariant], upTo limit: Int) async throws(StoreError) -> Int {
        let (logger, names, limit) = (database.logger, variants.map(\.rawValue), Int64(clamping: limit))
        return try await database.read("counting queued images") { connection in
            try await connection.guardedQuery(
                """
                SELECT COUNT(*)::bigint FROM (
                    SELECT 1 FROM image
                    WHERE status = \(literal: .pending) AND variant = ANY(\(names)) AND attempts = 0
                    LIMIT \(limit)) AS queued
                """, logger: logger
            ).collect().first.map { Int(try $0.decode(Int64.self)) } ?? 0
        }
    }

    func recordImageFailure(photoID: String, variant: ImageVariant, error: String, retryAt: Date?)
        async throws(StoreError)
    {
        let failure = ImageAttemptFailure(photoID: photoID, variant: variant, error: error, retryAt: retryAt)
        let (logger, name) = (database.logger, database.name)
        try await database.write("recording a failed download of photo \(photoID)") { connection in
            try await Self.record(failure, name: name, connection, logger)
        }
    }

    func failedImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await failures(status: .failed, order: "photo.sequence, image.variant", limit: limit)
    }

    func retryingImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await failures(
            status: .pending, order: "image.next_attempt_at, photo.sequence, image.variant", limit: limit)
    }

    private func failures(status: ImageStatus, order: String, limit: Int) async throws(StoreError) -> [ImageFailure] {
        let logger = database.logger
        return try await database.read("listing failed images") { connection in
            var failures: [ImageFailure] = []
            let rows = try await connection.guardedQuery(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT image.photo_id, image.variant, image.attempts, image.last_error, image.next_attempt_at
                        FROM image JOIN photo ON photo.id = image.photo_id
                        WHERE image.status = $1 AND image.failure_class IS NOT NULL
                        ORDER BY \(order)
                        LIMIT $2
                        """, binds: try Self.binds(status.rawValue, limit)), logger: logger)
            for try await (photoID, variant, attempts, error, next) in rows.decode(
                (String, String, Int, String?, Date?).self)
            {
                guard let variant = ImageVariant(rawValue: variant) else { continue }
                failures.append(
                    ImageFailure(
                        photoID: photoID, variant: variant, attempts: attempts, lastError: error ?? "",
                        nextAttemptAt: status == .failed ? nil : next))
            }
            return failures
        }
    }

    @discardableResult
    func retryTransientFailures(now: Date) async throws(StoreError) -> Int {
        let logger = database.logger
        return try await database.write("making failed images due") { connection in
            try await connection.guardedQuery(
                """
                UPDATE image SET next_attempt_at = \(now)
                WHERE status = \(literal: .pending) AND failure_class = \(literal: .transient) AND next_attempt_at > \(now)
                RETURNING 1
                """, logger: logger
            ).collect().count
        }
    }

    func requeue(_ request: RetryRequest) async throws(StoreError) -> RetryOutcome {
        let (logger, name) = (database.logger, database.name)
        // A job keeps its failure class once stored: a stored or pruned image (which failed
        // before it was stored) is never requeued, or a pruned one would be fetched forever.
        return try await database.write("requeueing failed images") { connection in
            var outcome = RetryOutcome()
            switch request {
            case .transient, .all:
                let classes = request == .all ? ["transient", "permanent"] : ["transient"]
                outcome.requeued = try await connection.guardedQuery(
                    """
                    UPDATE image SET status = \(literal: .pending), failure_class = NULL, attempts = 0, next_attempt_at = NULL
                    WHERE status NOT IN (\(literal: .stored), \(literal: .pruned)) AND failure_class = ANY(\(classes))
                    RETURNING 1
                    """, logger: logger
                ).collect().count
            case .photos(let ids):
                for id in ids {
                    let known = try await connection.guardedQuery(
                        "SELECT 1 FROM photo WHERE id = \(id)", logger: logger
                    )
                    .collect()
                    guard !known.isEmpty else { throw StoreError.unknownPhoto(path: name, photoID: id) }
                    let requeued = try await connection.guardedQuery(
                        """
                        UPDATE image SET status = \(literal: .pending), failure_class = NULL, attempts = 0, next_attempt_at = NULL
                        WHERE photo_id = \(id) AND status NOT IN (\(literal: .stored), \(literal: .pruned))
                          AND failure_class IS NOT NULL
                        RETURNING 1
                        """, logger: logger
                    ).collect().count
                    if requeued == 0 { outcome.nothingToRetry.append(id) } else { outcome.requeued += requeued }
                }
            }
            return outcome
        }
    }

    func imageCounts(variants: [ImageVariant]) async throws(StoreError) -> ImageCounts {
        let (logger, names) = (database.logger, variants.map(\.rawValue))
        return try await database.read("counting \(names.joined(separator: ", ")) images") { connection in
            var counts: [String: Int64] = [:]
            let rows = try await connection.guardedQuery(
                "SELECT status, sum(images)::bigint FROM image_tally WHERE variant = ANY(\(names)) GROUP BY status",
                logger: logger)
            for try await (status, count) in rows.decode((String, Int64).self) { counts[status] = count }
            var imageCounts = ImageCounts(
                stored: counts["stored", default: 0], pending: counts["pending", default: 0],
                failed: counts["failed", default: 0])
            if let row = try await connection.guardedQuery(
                """
                SELECT COUNT(*)::bigint, MIN(next_attempt_at) FROM image
                WHERE status = \(literal: .pending) AND failure_class = \(literal: .transient) AND variant = ANY(\(names))
                """, logger: logger
            ).collect().first {
                (imageCounts.retrying, imageCounts.nextRetryAt) = try row.decode((Int64, Date?).self)
            }
            return imageCounts
        }
    }

    /// Records a failed attempt inside the caller's transaction, as `recordImageFailure` does.
    static func record(
        _ failure: ImageAttemptFailure, name: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let permanent = failure.retryAt == nil
        let updated = try await connection.guardedQuery(
            """
            UPDATE image SET attempts = attempts + 1, last_error = \(failure.error),
                status = \(permanent ? "failed" : "pending"),
                failure_class = \(permanent ? "permanent" : "transient"),
                next_attempt_at = \(failure.retryAt)
            WHERE photo_id = \(failure.photoID) AND variant = \(failure.variant.rawValue)
              AND status NOT IN (\(literal: .stored), \(literal: .pruned))
            RETURNING 1
            """, logger: logger
        ).collect()
        guard updated.isEmpty else { return }
        let exists = try await connection.guardedQuery(
            "SELECT 1 FROM image WHERE photo_id = \(failure.photoID) AND variant = \(failure.variant.rawValue)",
            logger: logger
        ).collect()
        if exists.isEmpty {
            throw StoreError.unknownImageJob(path: name, photoID: failure.photoID, variant: failure.variant)
        }
    }

    /// Binds for a statement whose text is built (an `ORDER BY` from this file, never from input).
    static func binds(_ status: String, _ limit: Int) throws -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(status)
        binds.append(limit)
        return binds
    }
}
