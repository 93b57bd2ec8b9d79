import Foundation

/// The image queue's methods written once for a driver's ``ImageQueue`` that offers its
/// ``SQLExecutor``: a job is a row of `image`, its state in `status` and `failure_class`
/// (``ImageStatus``, ``ImageFailureClass``, written into the statements as literals, where the
/// partial indexes see them), its next attempt in `next_attempt_at`; the counts by state are
/// `image_tally`'s, which triggers keep. The insert of the walk that queues missing images
/// (around ``MissingImagesWalk``'s statements) and the fetchers' due jobs stay the driver's:
/// their statements and query plans differ.
package protocol SQLImageQueue: ImageQueue {
    var sql: any SQLExecutor { get }
}

extension SQLImageQueue {
    package func queuedThrough(variant: ImageVariant) async throws(StoreError) -> Int64 {
        try await sql.read(
            "reading where the walk of \(variant) images stands",
            "SELECT through_sequence FROM image_walk WHERE variant = \(variant.rawValue)"
        ) { rows in try rows.first?.integer(0) ?? 0 }
    }

    package func nextImageRetry(variants: [ImageVariant]) async throws(StoreError) -> Date? {
        let pending: SQLStatement = """
            FROM image WHERE status = \(literal: ImageStatus.pending) AND variant IN \(list: variants.map(\.rawValue))
            """
        // Whether a job was never attempted is a lookup in `image_queue` (status, variant,
        // next_attempt_at), not a scan of the pending jobs.
        return try await sql.read(
            "finding the next image retry",
            """
            SELECT EXISTS (SELECT 1 \(sql: pending) AND next_attempt_at IS NULL),
                (SELECT MIN(next_attempt_at) \(sql: pending))
            """
        ) { rows in
            guard let row = rows.first else { return nil }
            return try row.boolean(0) ? Date.distantPast : try row.date(1)
        }
    }

    package func unattemptedImageCount(variants: [ImageVariant], upTo limit: Int) async throws(StoreError) -> Int {
        try await sql.read(
            "counting queued images",
            """
            SELECT COUNT(*) FROM (
                SELECT 1 FROM image
                WHERE status = \(literal: ImageStatus.pending) AND variant IN \(list: variants.map(\.rawValue))
                  AND attempts = 0
                LIMIT \(limit)) AS queued
            """
        ) { rows in Int(try rows.first?.integer(0) ?? 0) }
    }

    package func recordImageFailure(photoID: String, variant: ImageVariant, error: String, retryAt: Date?)
        async throws(StoreError)
    {
        let failure = ImageAttemptFailure(photoID: photoID, variant: variant, error: error, retryAt: retryAt)
        let path = sql.path
        try await sql.write("recording a failed download of photo \(photoID)", failure.statements) { results in
            try failure.check(results, path: path)
        }
    }

    package func failedImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await failures("listing failed images", status: .failed, order: "photo.sequence, image.variant", limit)
    }

    package func retryingImages(limit: Int) async throws(StoreError) -> [ImageFailure] {
        try await failures(
            "listing images waiting for a retry", status: .pending,
            order: "image.next_attempt_at, photo.sequence, image.variant", limit)
    }

    /// The jobs of `status` that failed at least once, in `order`, at most `limit`; a failed
    /// one has no next attempt.
    private func failures(
        _ operation: String, status: ImageStatus, order: SQLStatement, _ limit: Int
    ) async throws(StoreError) -> [ImageFailure] {
        try await sql.read(
            operation,
            """
            SELECT image.photo_id, image.variant, image.attempts, image.last_error, image.next_attempt_at
            FROM image JOIN photo ON photo.id = image.photo_id
            WHERE image.status = \(literal: status) AND image.failure_class IS NOT NULL
            ORDER BY \(sql: order)
            LIMIT \(limit)
            """
        ) { rows in
            try rows.compactMap { row in
                guard let photoID = try row.text(0),
                    let variant = try row.text(1).flatMap({ ImageVariant(rawValue: $0) })
                else {
                    return nil
                }
                return ImageFailure(
                    photoID: photoID, variant: variant, attempts: Int(try row.integer(2) ?? 0),
                    lastError: try row.text(3) ?? "", nextAttemptAt: status == .failed ? nil : try row.date(4))
            }
        }
    }

    @discardableResult
    package func retryTransientFailures(now: Date) async throws(StoreError) -> Int {
        try await sql.write(
            "making failed images due",
            [
                """
                UPDATE image SET next_attempt_at = \(now)
                WHERE status = \(literal: ImageStatus.pending) AND failure_class = \(literal: ImageFailureClass.transient)
                  AND next_attempt_at > \(now)
                RETURNING 1
                """
            ]
        ) { results in results[0].count }
    }

    /// Requeues in one write: for ``RetryRequest/photos(_:)``, each photo's existence and its
    /// jobs' reset, in turn, so that an unknown photo throws and the transaction rolls back.
    ///
    /// A job keeps its failure class once stored: a stored or pruned image (which failed before
    /// it was stored) is never requeued, or a pruned one would be fetched forever.
    package func requeue(_ request: RetryRequest) async throws(StoreError) -> RetryOutcome {
        let reset: SQLStatement = """
            UPDATE image SET status = \(literal: ImageStatus.pending), failure_class = NULL, attempts = 0,
                next_attempt_at = NULL
            WHERE status NOT IN (\(literal: ImageStatus.stored), \(literal: ImageStatus.pruned))
            """
        guard case .photos(let ids) = request else {
            let classes: SQLStatement =
                request == .all
                ? "\(literal: ImageFailureClass.transient), \(literal: ImageFailureClass.permanent)"
                : "\(literal: ImageFailureClass.transient)"
            return try await sql.write(
                "requeueing failed images", ["\(sql: reset) AND failure_class IN (\(sql: classes)) RETURNING 1"]
            ) { results in RetryOutcome(requeued: results[0].count) }
        }
        let path = sql.path
        let statements: [SQLStatement] = ids.flatMap { id -> [SQLStatement] in
            [
                "SELECT EXISTS (SELECT 1 FROM photo WHERE id = \(id))",
                "\(sql: reset) AND photo_id = \(id) AND failure_class IS NOT NULL RETURNING 1",
            ]
        }
        return try await sql.write("requeueing failed images", statements) { results in
            var outcome = RetryOutcome()
            for (index, id) in ids.enumerated() {
                guard try results[2 * index].first?.boolean(0) == true else {
                    throw StoreError.unknownPhoto(path: path, photoID: id)
                }
                let requeued = results[2 * index + 1].count
                if requeued == 0 { outcome.nothingToRetry.append(id) } else { outcome.requeued += requeued }
            }
            return outcome
        }
    }

    package func imageCounts(variants: [ImageVariant]) async throws(StoreError) -> ImageCounts {
        let names = variants.map(\.rawValue)
        return try await sql.read(
            "counting \(names.joined(separator: ", ")) images",
            [
                """
                SELECT status, CAST(sum(images) AS BIGINT) FROM image_tally
                WHERE variant IN \(list: names) GROUP BY status
                """,
                """
                SELECT COUNT(*), MIN(next_attempt_at) FROM image
                WHERE status = \(literal: ImageStatus.pending) AND failure_class = \(literal: ImageFailureClass.transient)
                  AND variant IN \(list: names)
                """,
            ]
        ) { results in
            var counts: [ImageStatus: Int64] = [:]
            for row in results[0] {
                if let status = try row.text(0).flatMap({ ImageStatus(rawValue: $0) }) {
                    counts[status] = try row.integer(1) ?? 0
                }
            }
            var imageCounts = ImageCounts(
                stored: counts[.stored, default: 0], pending: counts[.pending, default: 0],
                failed: counts[.failed, default: 0])
            if let retrying = results[1].first {
                imageCounts.retrying = try retrying.integer(0) ?? 0
                imageCounts.nextRetryAt = try retrying.date(1)
            }
            return imageCounts
        }
    }
}

extension ImageAttemptFailure {
    /// The statements that record this failed attempt, in a transaction of the caller's
    /// (``ImageQueue/recordImageFailure(photoID:variant:error:retryAt:)``, or a batch of the
    /// image writer's): `attempts` grows by one and the error is kept; with a `retryAt` the job
    /// stays pending until then, without it the job fails for good. A stored or pruned job is
    /// left as it is. The second statement says whether the job exists, for ``check(_:path:)``.
    package var statements: [SQLStatement] {
        let permanent = retryAt == nil
        return [
            """
            UPDATE image SET attempts = attempts + 1, last_error = \(error),
                status = \(literal: permanent ? ImageStatus.failed : .pending),
                failure_class = \(literal: permanent ? ImageFailureClass.permanent : .transient),
                next_attempt_at = \(retryAt)
            WHERE photo_id = \(photoID) AND variant = \(variant.rawValue)
              AND status NOT IN (\(literal: ImageStatus.stored), \(literal: ImageStatus.pruned))
            RETURNING 1
            """,
            "SELECT EXISTS (SELECT 1 FROM image WHERE photo_id = \(photoID) AND variant = \(variant.rawValue))",
        ]
    }

    /// Throws `StoreError.unknownImageJob`, naming the database at `path`, when ``statements``'
    /// `results` found no such job.
    package func check(_ results: [[any SQLRow]], path: String) throws {
        guard results[0].isEmpty, try results[1].first?.boolean(0) != true else { return }
        throw StoreError.unknownImageJob(path: path, photoID: photoID, variant: variant)
    }
}

/// The statements of the walk that queues missing images which both drivers run in their own
/// transactions, around their own insert of the jobs
/// (``ImageQueue/enqueueMissingImages(variant:after:photos:)``), and in a page commit's.
package enum MissingImagesWalk {
    /// The sequence of a step's last photo, the `limit`th stored after `sequence`: where the
    /// next step starts. No row when fewer photos are left.
    package static func last(after sequence: Int64, photos limit: Int) -> SQLStatement {
        "SELECT sequence FROM photo WHERE sequence > \(sequence) ORDER BY sequence LIMIT 1 OFFSET \(max(limit, 1) - 1)"
    }

    /// Records where the walk of `variant` stands after a step that began after `sequence`: at
    /// its last photo, `next`, or at the last stored when it took the rest (nil). Only when the
    /// step began within what was walked already, and only further on.
    package static func record(_ variant: ImageVariant, after sequence: Int64, next: Int64?) -> SQLStatement {
        let through: SQLStatement = next.map { "\($0)" } ?? "(SELECT max(sequence) FROM photo)"
        return """
            INSERT INTO image_walk (variant, through_sequence)
            SELECT \(variant.rawValue), coalesce(\(sql: through), 0)
            WHERE \(sequence) <= coalesce((SELECT through_sequence FROM image_walk WHERE variant = \(variant.rawValue)), 0)
            ON CONFLICT (variant) DO UPDATE SET through_sequence = excluded.through_sequence
            WHERE excluded.through_sequence > image_walk.through_sequence
            """
    }

    /// Lowers every walk of a variant not in `queued` to below `sequence`, the oldest photo a
    /// page commit listed again, inside the commit's transaction: the page may have changed
    /// whether that photo can have such an image (its licence, its URLs), and only the variants
    /// the commit queues were looked at for it (``ImageQueue/queuedThrough(variant:)``).
    package static func reopen(from sequence: Int64, except queued: [ImageVariant]) -> SQLStatement {
        // `NOT IN` an empty list, `(NULL)`, would match nothing: no variant is excepted then.
        let others: SQLStatement = queued.isEmpty ? "" : "AND variant NOT IN \(list: queued.map(\.rawValue))"
        return
            "UPDATE image_walk SET through_sequence = \(sequence) - 1 WHERE through_sequence >= \(sequence) \(sql: others)"
    }
}
