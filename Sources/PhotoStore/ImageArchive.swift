import Foundation
import GRDB
import PhotosyncModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Image bytes, in and out. Bytes and their job's `stored` status commit together, so a crash
/// never leaves a stored job without bytes nor bytes for a pending job. Reads stream the bytes
/// with SQLite's incremental blob I/O, a chunk at a time, so memory never grows with an image.
public struct ImageArchive: Sendable {
    let database: StoreDatabase

    /// Group commit: stores every image of `images` (bytes and `stored` status) and records
    /// every failed attempt of `failures`, all in one transaction: either the whole batch
    /// commits or nothing does. That is what makes storing thousands of small images fast.
    /// A file's bytes are copied 1 MiB at a time, so memory does not grow with an image's size.
    ///
    /// - Returns: for each of `images`, in order, true when stored; false when it was already stored.
    /// - Throws: `StoreError.unknownImageJob`, `.imageTooLarge` (over 2 GiB - 1),
    ///   `.imageSizeMismatch`, `.cannotReadImageFile`, `.databaseFailure`; nothing of the
    ///   batch is stored then.
    @discardableResult
    public func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure] = []
    ) throws(StoreError) -> [Bool] {
        try storeImages(images, failures: failures, storageLimit: nil).stored
    }

    /// Stores a batch as ``storeImages(_:failures:)`` does, keeping the stored image bytes within
    /// `storageLimit` (no limit when nil): before each image is stored, the bytes of the stored
    /// images fetched longest ago are freed, in the same transaction, until it fits. Their rows
    /// stay, marked `pruned` with their size and SHA-256, and are never stored again. An image
    /// larger than the whole limit is stored after everything older was pruned, so the stored
    /// bytes exceed the limit by at most one image.
    ///
    /// - Throws: as ``storeImages(_:failures:)``; nothing of the batch is stored nor pruned then.
    @discardableResult
    public func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure] = [], storageLimit: Int64?
    ) throws(StoreError) -> StoredBatch {
        for image in images {
            try Self.checkBlobSize(image)
        }
        guard !images.isEmpty || !failures.isEmpty else { return StoredBatch(stored: [], pruned: []) }
        let path = database.path
        return try database.write("storing a batch of \(images.count) images") { db in
            var pruned: [PrunedImage] = []
            let stored = try images.map { image in
                try Self.store(image, storageLimit: storageLimit, pruned: &pruned, path: path, in: db)
            }
            for failure in failures {
                try ImageQueue.record(failure, path: path, in: db)
            }
            return StoredBatch(stored: stored, pruned: pruned)
        }
    }

    /// Prunes the stored images fetched longest ago until the stored bytes are within
    /// `storageLimit`, in one transaction: for a limit lowered since the images were stored.
    ///
    /// - Returns: the images pruned, oldest-fetched first.
    @discardableResult
    public func prune(toFit storageLimit: Int64) async throws(StoreError) -> [PrunedImage] {
        try await database.write("pruning images to fit \(storageLimit) bytes") { db in
            var pruned: [PrunedImage] = []
            try Self.makeRoom(for: 0, within: storageLimit, pruned: &pruned, in: db)
            return pruned
        }
    }

    /// The bytes of every stored image together: what `storage_limit` bounds.
    public func storedBytes() async throws(StoreError) -> Int64 {
        try await database.read("adding up stored images") { db in try Self.storedBytes(db) }
    }

    /// The pruned image of `variant` of `photoID` (of its most recently fetched pruned variant
    /// when nil): its bytes were freed to keep within `storage_limit`; nil when there is none.
    public func prunedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await database.read("reading the image of photo \(photoID)") { db in
            try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant, status: .pruned)?.image
        }
    }

    /// Stores an image streamed from `fileURL`, which must hold exactly `byteCount` bytes, and
    /// marks its job stored, in one transaction: a batch of one (``storeImages(_:failures:)``).
    ///
    /// - Parameter sha256: lowercase hex SHA-256 of the bytes, computed by the caller.
    /// - Returns: true when stored; false, changing nothing, when the image was already stored.
    @discardableResult
    public func storeImage(
        photoID: String, variant: ImageVariant, contentType: String, fileURL: URL, byteCount: Int64, sha256: String,
        fetchedAt: Date
    ) throws(StoreError) -> Bool {
        try storeImages([
            ImageToStore(
                photoID: photoID, variant: variant, contentType: contentType,
                bytes: .file(fileURL, byteCount: byteCount), sha256: sha256, fetchedAt: fetchedAt)
        ])[0]
    }

    /// Same as the file variant, from bytes in memory: for small images and tests.
    @discardableResult
    public func storeImage(
        photoID: String, variant: ImageVariant, contentType: String, data: Data, sha256: String, fetchedAt: Date
    ) throws(StoreError) -> Bool {
        try storeImages([
            ImageToStore(
                photoID: photoID, variant: variant, contentType: contentType, bytes: .data(data), sha256: sha256,
                fetchedAt: fetchedAt)
        ])[0]
    }

    /// The metadata of the stored image of `variant` (of the most recently fetched stored
    /// variant when nil), without its bytes; nil when no such image is stored.
    public func storedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await database.read("reading the image of photo \(photoID)") { db in
            try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant)?.image
        }
    }

    /// The stored variants of each photo in `photoIDs`, smallest first; a photo with none is
    /// absent from the result.
    public func storedImages(photoIDs: [String]) async throws(StoreError) -> [String: [StoredImage]] {
        guard !photoIDs.isEmpty else { return [:] }
        return try await database.read("reading stored images") { db in
            var images: [String: [StoredImage]] = [:]
            // One statement a photo keeps the SQL free of a variable-length IN list.
            for id in Set(photoIDs) {
                let rows = try StoredImageRow.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(StoredImageRow.columns) FROM image
                            WHERE photo_id = ? AND +status = \(ImageStatus.stored.sqlLiteral)
                            ORDER BY byte_count, variant
                            """),
                    arguments: [id])
                if !rows.isEmpty { images[id] = rows.map(\.image) }
            }
            return images
        }
    }

    /// The bytes of `image`, the stored image of photo `photoID`, in chunks of at most
    /// `chunkSize` bytes (at most 2^31 - 1), in order.
    ///
    /// Each chunk is read in its own short read transaction, so a slow consumer never holds a
    /// snapshot open (which would keep the writer's WAL from being checkpointed). When the image
    /// is no longer stored as `image` says (removed, or stored again with other bytes), the
    /// sequence ends early: compare the bytes received with ``StoredImage/byteCount``.
    public func chunks(of image: StoredImage, photoID: String, chunkSize: Int = 512 << 10) -> ImageChunks {
        ImageChunks(
            database: database, photoID: photoID, image: image, chunkSize: max(1, min(chunkSize, Int(Int32.max))))
    }

    /// The stored image's bytes in memory, chosen as by ``storedImage(photoID:variant:)``; nil
    /// when none is stored. For small images and tests: ``chunks(of:photoID:chunkSize:)``
    /// streams them.
    public func imageData(photoID: String, variant: ImageVariant?) async throws(StoreError) -> Data? {
        try await database.read("reading the image of photo \(photoID)") { db in
            guard let image = try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant) else { return nil }
            return try Data.fetchOne(db, sql: "SELECT bytes FROM image_data WHERE image_id = ?", arguments: [image.id])
        }
    }

    /// Streams the stored image of `variant` (or, when nil, the most recently fetched stored
    /// variant) into `destination`, creating or truncating it, 1 MiB at a time.
    ///
    /// - Returns: the number of bytes written; nil, without touching `destination`, when no
    ///   such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (the file may then be partly written),
    ///   `.databaseFailure`.
    public func writeImage(photoID: String, variant: ImageVariant?, to destination: URL) async throws(StoreError)
        -> Int64?
    {
        try await database.read("reading the image of photo \(photoID)") { db in
            guard let image = try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant) else { return nil }
            let output = try Self.createOrTruncate(destination)
            defer { try? output.close() }
            return try ImageBlob.read(rowID: image.id, to: output, destination: destination, in: db)
        }
    }

    /// Streams the stored image chosen as by ``writeImage(photoID:variant:to:)`` into an open
    /// `output` (standard output, say), 1 MiB at a time; `name` names it in errors.
    ///
    /// - Returns: the number of bytes written; nil, writing nothing, when no such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (some bytes may have been written),
    ///   `.databaseFailure`.
    public func writeImage(
        photoID: String, variant: ImageVariant?, to output: FileHandle, named name: String
    ) async throws(StoreError) -> Int64? {
        try await database.read("reading the image of photo \(photoID)") { db in
            guard let image = try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant) else { return nil }
            return try ImageBlob.read(rowID: image.id, to: output, destination: URL(fileURLWithPath: name), in: db)
        }
    }

    // MARK: - SQL

    /// The job's row id, or nil when its image is already stored.
    private static func imageIDToStore(
        photoID: String, variant: ImageVariant, path: String, in db: Database
    ) throws -> Int64? {
        guard
            let job = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, status FROM image WHERE photo_id = ? AND variant = ?"),
                arguments: [photoID, variant])
        else {
            throw StoreError.unknownImageJob(path: path, photoID: photoID, variant: variant)
        }
        let status: ImageStatus = try job.decode(forColumn: "status")
        // A pruned image was stored once; storing it again would undo the budget that freed it.
        return status == .stored || status == .pruned ? nil : try job.decode(forColumn: "id")
    }

    static func storedBytes(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT stored_bytes FROM image_storage WHERE id = 1")) ?? 0
    }

    /// Frees the bytes of the stored images fetched longest ago until `incoming` more bytes fit
    /// within `limit`, or none is left; inside the caller's transaction.
    private static func makeRoom(
        for incoming: Int64, within limit: Int64, pruned: inout [PrunedImage], in db: Database
    ) throws {
        var used = try storedBytes(db)
        while used + incoming > limit {
            guard
                let oldest = try Row.fetchOne(
                    db.cachedStatement(sql: oldestStoredSQL))
            else { return }
            let id: Int64 = try oldest.decode(forColumn: "id")
            let byteCount: Int64 = try oldest.decode(forColumn: "byte_count")
            try db.cachedStatement(sql: "DELETE FROM image_data WHERE image_id = ?").execute(arguments: [id])
            try db.cachedStatement(sql: pruneSQL).execute(arguments: [id])
            used -= byteCount
            pruned.append(
                PrunedImage(
                    photoID: try oldest.decode(forColumn: "photo_id"), variant: try oldest.decode(forColumn: "variant"),
                    byteCount: byteCount))
        }
    }

    /// Stores one image's bytes and marks its job stored, inside the caller's transaction, first
    /// pruning older images to keep within `storageLimit`. Returns false, changing nothing, when
    /// it was already stored or pruned.
    private static func store(
        _ image: ImageToStore, storageLimit: Int64?, pruned: inout [PrunedImage], path: String, in db: Database
    ) throws -> Bool {
        guard let imageID = try imageIDToStore(photoID: image.photoID, variant: image.variant, path: path, in: db)
        else { return false }
        if let storageLimit {
            try makeRoom(for: image.byteCount, within: storageLimit, pruned: &pruned, in: db)
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
        // Cached: run for every image, where parsing it again cost more than running it.
        try db.cachedStatement(sql: markStoredSQL).execute(arguments: [
            image.contentType, image.byteCount, image.sha256, image.fetchedAt.stored, imageID,
        ])
        return true
    }

    // The statements the image writer runs for every image, built once, their status literals
    // from `ImageStatus`. The oldest stored image comes from `image_stored_by_fetch`, the partial
    // index `WHERE status = 'stored'`, which only a statement with that literal in its text can
    // use. `INDEXED BY` says so: left to itself, without statistics, SQLite took the queue's
    // status index and sorted every stored image for each one pruned; with it, a statement that
    // cannot use the index (a bound status, say) fails to prepare (`QueryPlanTests`).
    private static let oldestStoredSQL = """
        SELECT id, photo_id, variant, byte_count FROM image INDEXED BY image_stored_by_fetch
        WHERE status = \(ImageStatus.stored.sqlLiteral) ORDER BY fetched_at, id LIMIT 1
        """
    private static let pruneSQL = "UPDATE image SET status = \(ImageStatus.pruned.sqlLiteral) WHERE id = ?"
    private static let markStoredSQL = """
        UPDATE image SET
            status = \(ImageStatus.stored.sqlLiteral), content_type = ?, byte_count = ?, sha256 = ?, fetched_at = ?,
            next_attempt_at = NULL
        WHERE id = ?
        """

    /// Blob offsets in SQLite's C API are 32-bit.
    private static func checkBlobSize(_ image: ImageToStore) throws(StoreError) {
        guard image.byteCount <= Int64(Int32.max) else {
            throw .imageTooLarge(photoID: image.photoID, variant: image.variant, byteCount: image.byteCount)
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

/// The bytes of one stored image, read a chunk at a time: see
/// ``ImageArchive/chunks(of:photoID:chunkSize:)``.
public struct ImageChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    let database: StoreDatabase
    let photoID: String
    let image: StoredImage
    let chunkSize: Int

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ImageChunks
        var offset: Int64 = 0

        /// The next chunk; nil at the end, or when the image changed since it was listed.
        /// - Throws: `StoreError` when the database cannot be read.
        public mutating func next() async throws -> Data? {
            let (image, photoID, offset) = (chunks.image, chunks.photoID, offset)
            guard offset < image.byteCount else { return nil }
            let length = Int(Swift.min(Int64(chunks.chunkSize), image.byteCount - offset))
            let chunk = try await chunks.database.read("reading the image of photo \(photoID)") { db -> Data? in
                guard let row = try StoredImageRow.fetchOne(db, photoID: photoID, variant: image.variant),
                    row.sha256 == image.sha256, row.byteCount == image.byteCount
                else { return nil }
                return try ImageBlob.read(rowID: row.id, offset: offset, count: length, in: db)
            }
            if let chunk { self.offset += Int64(chunk.count) }
            return chunk
        }
    }
}

/// A stored `image` row, without its bytes: the one column list of a stored image's metadata.
struct StoredImageRow: Decodable, FetchableRecord {
    var id: Int64
    var variant: ImageVariant
    var contentType: String
    var byteCount: Int64
    var sha256: String
    var fetchedAt: StoredDate

    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let columns = "id, variant, content_type, byte_count, sha256, fetched_at"

    var image: StoredImage {
        StoredImage(
            variant: variant, contentType: contentType, byteCount: byteCount, sha256: sha256, fetchedAt: fetchedAt.date)
    }

    /// The stored image of `variant` of `photoID`, or of its most recently fetched variant when
    /// `variant` is nil.
    ///
    /// `+status` keeps SQLite from searching the image queue's status index, where every stored
    /// image sits under one key, instead of the photo's own rows: every read that looks up a
    /// photo's images writes it so (`QueryPlanTests` checks them all).
    static func fetchOne(
        _ db: Database, photoID: String, variant: ImageVariant?, status: ImageStatus = .stored
    ) throws -> StoredImageRow? {
        try fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT \(columns) FROM image
                    WHERE photo_id = :photoID AND +status = :status AND (:variant IS NULL OR variant = :variant)
                    ORDER BY fetched_at DESC, variant
                    LIMIT 1
                    """),
            arguments: ["photoID": photoID, "variant": variant, "status": status])
    }
}

/// What storing a batch did: see ``ImageArchive/storeImages(_:failures:storageLimit:)``.
public struct StoredBatch: Sendable, Equatable {
    /// For each image given, in order: true when stored; false when it was already stored or pruned.
    public var stored: [Bool]
    /// The images whose bytes were freed to make room, oldest-fetched first.
    public var pruned: [PrunedImage]
}

/// An image whose bytes were freed to keep within `storage_limit`.
public struct PrunedImage: Sendable, Equatable {
    public var photoID: String
    public var variant: ImageVariant
    public var byteCount: Int64
}
