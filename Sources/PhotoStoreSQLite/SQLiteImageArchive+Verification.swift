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
        let database = database
        return try await VerificationWalk.run(
            SQLiteExecutor(database: database), bytesIn: "image_data", integrityErrors: integrityErrors,
            rehash: { image throws(StoreError) in
                try await database.read("re-hashing image \(image.id)") { db in
                    try Self.rehash(imageID: image.id, in: db)
                }
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
}
