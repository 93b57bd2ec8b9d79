import Foundation
import PhotoStore
import PostgresNIO

/// The image queue in PostgreSQL (``SQLImageQueue``), with the statements of its own: the walk
/// that queues missing images (`jsonb_each`, a lateral lookup of each photo's job) and the
/// fetchers' due jobs; a list of variants is bound as one `text[]`.
struct PostgresImageQueue: SQLImageQueue {
    let database: PostgresDatabase
    var sql: any SQLExecutor { PostgresExecutor(database: database) }

    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep
    {
        let logger = database.logger
        return try await database.write("queueing images of variant \(variant)") { connection in
            // The step's last photo: the walk's next start, or nil when fewer photos are left.
            let next = try await PostgresExecutor.run(
                [MissingImagesWalk.last(after: sequence, photos: limit)], connection, logger)[0].first?.integer(0)
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
            _ = try await PostgresExecutor.run(
                [MissingImagesWalk.record(variant, after: sequence, next: next)], connection, logger)
            return MissingImagesStep(queued: Int(queued), next: next)
        }
    }

    /// Lowers the walks a page commit may have changed (``MissingImagesWalk/reopen(from:except:)``),
    /// inside its transaction.
    static func reopenWalks(
        from sequence: Int64, except queued: [ImageVariant], _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        _ = try await PostgresExecutor.run(
            [MissingImagesWalk.reopen(from: sequence, except: queued)], connection, logger)
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
}
