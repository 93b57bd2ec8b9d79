import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The image queue in SQLite (``SQLImageQueue``), with the statements of its own: the walk that
/// queues missing images (`json_each`), the fetchers' due jobs (through `image_due`), and the
/// jobs a page commit queues.
struct SQLiteImageQueue: SQLImageQueue {
    let database: StoreDatabase
    var sql: any SQLExecutor { SQLiteExecutor(database: database) }

    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep
    {
        try await database.write("queueing missing \(variant) images") { db in
            // The step's last photo: the walk's next start, or nil when fewer photos are left.
            let next = try SQLiteExecutor.run([MissingImagesWalk.last(after: sequence, photos: limit)], db)[0]
                .first?.integer(0)
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
            _ = try SQLiteExecutor.run([MissingImagesWalk.record(variant, after: sequence, next: next)], db)
            return MissingImagesStep(queued: queued, next: next)
        }
    }

    /// Lowers the walks a page commit may have changed (``MissingImagesWalk/reopen(from:except:)``),
    /// inside its transaction.
    static func reopenWalks(from sequence: Int64, except queued: [ImageVariant], in db: Database) throws {
        _ = try SQLiteExecutor.run([MissingImagesWalk.reopen(from: sequence, except: queued)], db)
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
