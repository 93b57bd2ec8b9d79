import Basics
import Crypto
import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

extension SQLiteImageArchive {
    func verify(
        progress: (VerificationProgress) -> Void = { _ in }
    ) async throws(StoreError) -> VerificationReport {
        let integrityErrors = try await database.read("checking integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        }
        var problems = try await database.read("looking for missing and orphaned image bytes") { db in
            try Self.missingBytes(db) + Self.orphanedBytes(db)
        }
        let images = try await database.read("listing stored images") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT image.id FROM image JOIN photo ON photo.id = image.photo_id
                    WHERE image.status = \(ImageStatus.stored.sqlLiteral) AND EXISTS (SELECT 1 FROM image_data WHERE image_id = image.id)
                    ORDER BY photo.sequence, image.variant
                    """
            ).map { row -> Int64 in try row.decode(forColumn: "id") }
        }
        var current = VerificationProgress(imagesChecked: 0, imagesTotal: images.count, bytesChecked: 0)
        for imageID in images {
            let (size, problem) = try await database.read("re-hashing image \(imageID)") { db in
                try Self.rehash(imageID: imageID, in: db)
            }
            if let problem { problems.append(problem) }
            current.imagesChecked += 1
            current.bytesChecked += size
            progress(current)
        }
        return VerificationReport(
            integrityErrors: integrityErrors, imagesChecked: current.imagesChecked,
            bytesChecked: current.bytesChecked, problems: problems)
    }

    // MARK: - SQL

    /// Hashes one stored image's bytes and compares them with its record; returns the size read.
    private static func rehash(imageID: Int64, in db: Database) throws -> (Int64, VerificationProblem?) {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT photo_id, variant, byte_count, sha256 FROM image
                    WHERE id = ? AND status = \(ImageStatus.stored.sqlLiteral)
                    """,
                arguments: [imageID])
        else { return (0, nil) }
        let photoID: String = try row.decode(forColumn: "photo_id")
        let variant: ImageVariant = try row.decode(forColumn: "variant")
        let byteCount: Int64 = try row.decode(forColumn: "byte_count")
        let recorded: String = try row.decode(forColumn: "sha256")

        var hasher = SHA256()
        let size = try ImageBlob.forEachChunk(rowID: imageID, in: db) { chunk in hasher.update(bufferPointer: chunk) }
        let actual = Hex.string(hasher.finalize())
        if size != byteCount {
            return (
                size,
                VerificationProblem(
                    kind: .sizeMismatch, photoID: photoID, variant: variant,
                    detail: "\(size) bytes stored, \(byteCount) recorded")
            )
        }
        if actual != recorded {
            return (
                size,
                VerificationProblem(
                    kind: .sha256Mismatch, photoID: photoID, variant: variant,
                    detail: "bytes hash to \(actual), \(recorded) recorded")
            )
        }
        return (size, nil)
    }

    private static func missingBytes(_ db: Database) throws -> [VerificationProblem] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT photo_id, variant FROM image
                WHERE status = \(ImageStatus.stored.sqlLiteral) AND NOT EXISTS (SELECT 1 FROM image_data WHERE image_id = image.id)
                ORDER BY id
                """
        ).map { row in
            VerificationProblem(
                kind: .missingBytes, photoID: try row.decode(forColumn: "photo_id"),
                variant: try row.decode(forColumn: "variant"), detail: "marked stored, but no bytes are kept")
        }
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
            let status: String? = try row.decode(forColumn: "status")
            let imageID: Int64 = try row.decode(forColumn: "image_id")
            return VerificationProblem(
                kind: .orphanedBytes, photoID: try row.decode(forColumn: "photo_id"),
                variant: try row.decode(forColumn: "variant"),
                detail: status.map { "bytes kept for an image that is \($0), not stored" }
                    ?? "bytes kept for image \(imageID), which does not exist")
        }
    }
}
