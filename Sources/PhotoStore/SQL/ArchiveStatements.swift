import Foundation

/// The image archive's statements that both drivers run alike. Where an image's bytes live is
/// the driver's (`bytesTable`: SQLite's `image_data` blobs, PostgreSQL's `image_chunk` rows),
/// and so is how they are written and read.
package enum ArchiveStatements {
    /// The stored bytes of every variant, from their tallies (`image_tally`).
    package static let storedBytes: SQLStatement =
        "SELECT CAST(sum(bytes) AS bigint) FROM image_tally WHERE status = \(literal: ImageStatus.stored)"

    /// The stored image fetched longest ago: its id, photo, variant and size.
    ///
    /// From `image_stored_by_fetch`, the partial index `WHERE status = 'stored'`, which only a
    /// statement with that literal in its text can use. SQLite is told so (`INDEXED BY`): left to
    /// itself, without statistics, it took the queue's status index and sorted every stored image
    /// for each one pruned; with it, a statement that cannot use the index fails to prepare
    /// (`QueryPlanTests`).
    package static let oldestStored: SQLStatement = """
        SELECT id, photo_id, variant, byte_count FROM image\(sqlite: " INDEXED BY image_stored_by_fetch", postgres: "")
        WHERE status = \(literal: ImageStatus.stored) ORDER BY fetched_at, id LIMIT 1
        """

    /// The job of `image`: its id and status.
    package static func job(of image: ImageToStore) -> SQLStatement {
        "SELECT id, status FROM image WHERE photo_id = \(image.photoID) AND variant = \(image.variant.rawValue)"
    }

    /// The id of the job in `rows` (of ``job(of:)``) to store `image` under; nil when it was
    /// stored or pruned (a pruned image was stored once: storing it again would undo the budget
    /// that freed it).
    /// - Throws: `StoreError.unknownImageJob` without a job, in the database at `path`.
    package static func imageIDToStore(_ rows: [any SQLRow], of image: ImageToStore, path: String) throws -> Int64? {
        guard let job = rows.first else {
            throw StoreError.unknownImageJob(path: path, photoID: image.photoID, variant: image.variant)
        }
        let status = try job.text(1)
        return status == ImageStatus.stored.rawValue || status == ImageStatus.pruned.rawValue ? nil : try job.integer(0)
    }

    /// Marks job `id` stored with `image`'s metadata, once its bytes are written.
    package static func markStored(_ image: ImageToStore, id: Int64) -> SQLStatement {
        """
        UPDATE image SET status = \(literal: ImageStatus.stored), content_type = \(image.contentType),
            byte_count = \(image.byteCount), sha256 = \(image.sha256), fetched_at = \(image.fetchedAt),
            next_attempt_at = NULL
        WHERE id = \(id)
        """
    }

    /// Frees the bytes of the image in `row` (a row of ``oldestStored``), kept in `bytesTable`,
    /// and marks it pruned; and the image as pruned, nil for a variant this build does not know.
    package static func prune(
        _ row: any SQLRow, bytesIn bytesTable: String
    ) throws -> (statements: [SQLStatement], byteCount: Int64, image: PrunedImage?) {
        let (id, photoID, byteCount) = (try row.integer(0) ?? 0, try row.text(1) ?? "", try row.integer(3) ?? 0)
        let image = try row.text(2).flatMap(ImageVariant.init(rawValue:)).map {
            PrunedImage(photoID: photoID, variant: $0, byteCount: byteCount)
        }
        return (
            [
                "DELETE FROM \(sql: SQLStatement(stringLiteral: bytesTable)) WHERE image_id = \(id)",
                "UPDATE image SET status = \(literal: ImageStatus.pruned) WHERE id = \(id)",
            ], byteCount, image
        )
    }
}

extension VerificationWalk {
    /// The walk over the images `sql` lists in the mirror's order, their bytes kept in
    /// `bytesTable` and re-hashed by `rehash`, then the bytes there kept for no stored image.
    package static func run(
        _ sql: any SQLExecutor, bytesIn bytesTable: String, integrityErrors: [String],
        rehash: (Recorded) async throws(StoreError) -> Bytes?, progress: (VerificationProgress) -> Void
    ) async throws(StoreError) -> VerificationReport {
        let images = try await sql.read(
            "listing stored images",
            """
            SELECT image.id, image.photo_id, image.variant, image.byte_count, image.sha256
            FROM image JOIN photo ON photo.id = image.photo_id
            WHERE image.status = \(literal: ImageStatus.stored)
            ORDER BY photo.sequence, image.variant\(sqlite: "", postgres: #" COLLATE "C""#)
            """
        ) { rows in
            try rows.map { row in
                Recorded(
                    id: try row.integer(0) ?? 0, photoID: try row.text(1) ?? "",
                    variant: try row.text(2).flatMap(ImageVariant.init(rawValue:)), byteCount: try row.integer(3) ?? 0,
                    sha256: try row.text(4) ?? "")
            }
        }
        let table = SQLStatement(stringLiteral: bytesTable)
        return try await run(
            integrityErrors: integrityErrors, images: images, rehash: rehash,
            orphans: { () throws(StoreError) in
                try await sql.read(
                    "looking for orphaned image bytes",
                    """
                    SELECT DISTINCT bytes.image_id, image.photo_id, image.variant, image.status
                    FROM \(sql: table) AS bytes LEFT JOIN image ON image.id = bytes.image_id
                    WHERE image.id IS NULL OR image.status <> \(literal: ImageStatus.stored)
                    ORDER BY bytes.image_id
                    """
                ) { rows in
                    try rows.map { row in
                        orphan(
                            imageID: try row.integer(0) ?? 0, photoID: try row.text(1),
                            variant: try row.text(2).flatMap(ImageVariant.init(rawValue:)), status: try row.text(3))
                    }
                }
            }, progress: progress)
    }
}
