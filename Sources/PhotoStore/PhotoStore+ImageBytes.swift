import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Storing and reading image bytes. Bytes and the job's `stored` status commit together, so a
/// crash never leaves a stored job without bytes nor bytes for a pending job.
extension PhotoStore {
    /// Stores an image streamed from `fileURL`, which must hold exactly `byteCount` bytes, and
    /// marks its job stored, in one transaction. The file is copied 1 MiB at a time (SQLite
    /// incremental blob I/O), so memory use does not grow with the image's size.
    ///
    /// - Parameter sha256: lowercase hex SHA-256 of the bytes, computed by the caller.
    /// - Returns: true when stored; false, changing nothing, when the image was already stored.
    /// - Throws: `StoreError.unknownImageJob`, `.imageTooLarge` (over 2 GiB - 1),
    ///   `.imageSizeMismatch`, `.cannotReadImageFile`, `.databaseFailure`; nothing is stored then.
    @discardableResult
    public func storeImage(
        photoID: String, variant: String, contentType: String, fileURL: URL,
        byteCount: Int64, sha256: String, fetchedAt: Date
    ) throws -> Bool {
        let image = ImageToStore(
            photoID: photoID, variant: variant, contentType: contentType, bytes: .file(fileURL, byteCount: byteCount),
            sha256: sha256, fetchedAt: fetchedAt)
        try Self.checkBlobSize(image)
        return try write("storing the \(variant) image of photo \(photoID)") { db in
            try Self.store(image, path: path, in: db)
        }
    }

    /// Same as the file variant, from bytes in memory: for small images and tests.
    @discardableResult
    public func storeImage(
        photoID: String, variant: String, contentType: String, data: Data,
        sha256: String, fetchedAt: Date
    ) throws -> Bool {
        let image = ImageToStore(
            photoID: photoID, variant: variant, contentType: contentType, bytes: .data(data), sha256: sha256, fetchedAt: fetchedAt)
        try Self.checkBlobSize(image)
        return try write("storing the \(variant) image of photo \(photoID)") { db in
            try Self.store(image, path: path, in: db)
        }
    }

    /// Streams the stored image of `variant` (or, when nil, the most recently fetched stored
    /// variant) into `destination`, creating or truncating it, 1 MiB at a time.
    ///
    /// - Returns: the number of bytes written; nil, without touching `destination`, when no
    ///   such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (the file may then be partly written),
    ///   `.databaseFailure`.
    public func writeImage(photoID: String, variant: String?, to destination: URL) throws -> Int64? {
        try read("reading the image of photo \(photoID)") { db in
            guard let image = try Self.storedImageRow(photoID: photoID, variant: variant, in: db) else {
                return nil
            }
            let imageID: Int64 = try image.decode(forColumn: "id")
            let output = try Self.createOrTruncate(destination)
            defer { try? output.close() }
            return try ImageBlob.read(rowID: imageID, to: output, destination: destination, in: db)
        }
    }

    /// The stored image's bytes in memory, chosen as by `writeImage`; nil when none is stored.
    /// For tests and small images.
    public func imageData(photoID: String, variant: String?) throws -> Data? {
        try read("reading the image of photo \(photoID)") { db in
            guard let image = try Self.storedImageRow(photoID: photoID, variant: variant, in: db) else {
                return nil
            }
            let imageID: Int64 = try image.decode(forColumn: "id")
            return try Data.fetchOne(
                db, sql: "SELECT bytes FROM image_data WHERE image_id = ?", arguments: [imageID])
        }
    }

    // MARK: - SQL

    /// The stored image's job row (id and metadata, never the bytes) of `variant`, or of the
    /// most recently fetched variant when `variant` is nil.
    ///
    /// `+status` keeps SQLite from searching the image queue's status index, where every stored
    /// image sits under one key, instead of the photo's own rows: every read that looks up a
    /// photo's images writes it so (`QueryPlanTests` checks them all).
    static func storedImageRow(photoID: String, variant: String?, in db: Database) throws -> Row? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT id, variant, content_type, byte_count, sha256, fetched_at FROM image
                WHERE photo_id = :photoID AND +status = 'stored' AND (:variant IS NULL OR variant = :variant)
                ORDER BY fetched_at DESC, variant
                LIMIT 1
                """,
            arguments: ["photoID": photoID, "variant": variant])
    }

    /// The job's row id, or nil when its image is already stored.
    private static func imageIDToStore(photoID: String, variant: String, path: String, in db: Database) throws -> Int64? {
        guard let job = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, status FROM image WHERE photo_id = ? AND variant = ?"),
            arguments: [photoID, variant])
        else {
            throw StoreError.unknownImageJob(path: path, photoID: photoID, variant: variant)
        }
        let status: String = try job.decode(forColumn: "status")
        return status == "stored" ? nil : try job.decode(forColumn: "id")
    }

    /// Stores one image's bytes and marks its job stored, inside the caller's transaction.
    /// Returns false, changing nothing, when it was already stored.
    static func store(_ image: ImageToStore, path: String, in db: Database) throws -> Bool {
        guard let imageID = try imageIDToStore(photoID: image.photoID, variant: image.variant, path: path, in: db) else {
            return false
        }
        switch image.bytes {
        case .data(let data):
            try db.cachedStatement(sql: "INSERT INTO image_data (image_id, bytes) VALUES (?, ?)")
                .execute(arguments: [imageID, data])
        case .file(let file, let byteCount):
            try db.cachedStatement(sql: "INSERT INTO image_data (image_id, bytes) VALUES (?, zeroblob(?))")
                .execute(arguments: [imageID, byteCount])
            try ImageBlob.write(from: file, byteCount: byteCount, rowID: imageID, in: db)
        }
        try markStored(
            imageID: imageID, contentType: image.contentType, byteCount: image.byteCount, sha256: image.sha256,
            fetchedAt: image.fetchedAt, in: db)
        return true
    }

    private static func markStored(
        imageID: Int64, contentType: String, byteCount: Int64, sha256: String, fetchedAt: Date, in db: Database
    ) throws {
        // Cached: run for every image, where parsing it again cost more than running it.
        try db.cachedStatement(sql: """
            UPDATE image SET
                status = 'stored', content_type = ?, byte_count = ?, sha256 = ?, fetched_at = ?,
                next_attempt_at = NULL
            WHERE id = ?
            """
        ).execute(arguments: [contentType, byteCount, sha256, fetchedAt.stored, imageID])
    }

    /// Blob offsets in SQLite's C API are 32-bit.
    static func checkBlobSize(_ image: ImageToStore) throws {
        guard image.byteCount <= Int64(Int32.max) else {
            throw StoreError.imageTooLarge(photoID: image.photoID, variant: image.variant, byteCount: image.byteCount)
        }
    }

    private static func createOrTruncate(_ destination: URL) throws -> FileHandle {
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError.cannotWriteImageFile(file: destination.path, reason: String(cString: strerror(errno)))
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    }
}
