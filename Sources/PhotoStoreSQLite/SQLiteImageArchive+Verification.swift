import Basics
import Crypto
import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

extension SQLiteImageArchive {
    /// ``VerificationWalk`` over SQLite's `PRAGMA integrity_check`, its `image_data` blobs read
    /// a chunk at a time, one read transaction an image.
    func verify(
        progress: (VerificationProgress) -> Void = { _ in }
    ) async throws(StoreError) -> VerificationReport {
        let integrityErrors = try await database.read("checking integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        }
        let images = try await database.read("listing stored images") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT image.id, image.photo_id, image.variant, image.byte_count, image.sha256
                    FROM image JOIN photo ON photo.id = image.photo_id
                    WHERE image.status = \(ImageStatus.stored.sqlLiteral)
                    ORDER BY photo.sequence, image.variant
                    """
            ).map { row in
                VerificationWalk.Recorded(
                    id: try row.decode(forColumn: "id"), photoID: try row.decode(forColumn: "photo_id"),
                    variant: try row.decode(forColumn: "variant"), byteCount: try row.decode(forColumn: "byte_count"),
                    sha256: try row.decode(forColumn: "sha256"))
            }
        }
        let database = database
        return try await VerificationWalk.run(
            integrityErrors: integrityErrors, images: images,
            rehash: { image throws(StoreError) in
                try await database.read("re-hashing image \(image.id)") { db in
                    try Self.rehash(imageID: image.id, in: db)
                }
            },
            orphans: { () throws(StoreError) in
                try await database.read("looking for orphaned image bytes") { db in try Self.orphanedBytes(db) }
            }, progress: progress)
    }

    // MARK: - SQL

    /// The size and hash of one image's bytes; nil when none are kept.
    private static func rehash(imageID: Int64, in db: Database) throws -> VerificationWalk.Bytes? {
        guard
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM image_data WHERE image_id = ?)", arguments: [imageID]) == true
        else { return nil }
        var hasher = SHA256()
        let size = try ImageBlob.forEachChunk(rowID: imageID, in: db) { chunk in hasher.update(bufferPointer: chunk) }
        return VerificationWalk.Bytes(size: size, sha256: Hex.string(hasher.finalize()))
    }

    private static func orphanedBytes(_ db: Database) throws -> [VerificationProblem] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT image_data.image_id, image.photo_id, image.variant, image.status
                FROM image_data LEFT JOIN image ON image.id = image_data.image_id
                WHERE image.id IS NULL OR image.status <> \(ImageStatus.stored.sqlLiteral)
                ORDER BY image_data.image_id
                """
        ).map { row in
            VerificationWalk.orphan(
                imageID: try row.decode(forColumn: "image_id"), photoID: try row.decode(forColumn: "photo_id"),
                variant: try row.decode(forColumn: "variant"), status: try row.decode(forColumn: "status"))
        }
    }
}
