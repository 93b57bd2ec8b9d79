import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The archive in SQLite: bytes in `image_data` rows beside their `image` row, written and read
/// with SQLite's incremental blob I/O a chunk at a time (``ImageBlob``), so memory never grows
/// with an image.
struct SQLiteImageArchive: ImageArchive {
    let database: StoreDatabase

    @discardableResult
    func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure], storageLimit: Int64?
    ) async throws(StoreError) -> StoredBatch {
        for image in images {
            try Self.checkBlobSize(image)
        }
        guard !images.isEmpty || !failures.isEmpty else { return StoredBatch(stored: [], pruned: []) }
        let path = database.path
        return try await database.write("storing a batch of \(images.count) images") { db in
            var pruned: [PrunedImage] = []
            let stored = try images.map { image in
                try Self.store(image, storageLimit: storageLimit, pruned: &pruned, path: path, in: db)
            }
            for failure in failures {
                try failure.check(SQLiteExecutor.run(failure.statements, db), path: path)
            }
            return StoredBatch(stored: stored, pruned: pruned)
        }
    }

    @discardableResult
    func prune(toFit storageLimit: Int64) async throws(StoreError) -> [PrunedImage] {
        try await database.write("pruning images to fit \(storageLimit) bytes") { db in
            var pruned: [PrunedImage] = []
            try Self.makeRoom(for: 0, within: storageLimit, pruned: &pruned, in: db)
            return pruned
        }
    }

    func storedBytes() async throws(StoreError) -> Int64 {
        try await database.read("adding up stored images") { db in try Self.storedBytes(db) }
    }

    func prunedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await database.read("reading the image of photo \(photoID)") { db in
            try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant, status: .pruned)?.image
        }
    }

    func storedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await database.read("reading the image of photo \(photoID)") { db in
            try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant)?.image
        }
    }

    /// One statement for all of `photoIDs`, which it reads as a JSON array (no variable-length
    /// `IN` list), in the order of the `UNIQUE (photo_id, variant)` index; each photo's few
    /// variants are sorted here. A statement a photo, each sorting in a temporary B-tree of its
    /// own, was 14 % of a gallery page's CPU.
    func storedImages(photoIDs: [String]) async throws(StoreError) -> [String: [StoredImage]] {
        guard !photoIDs.isEmpty else { return [:] }
        return try await database.read("reading stored images") { db in
            let ids = String(decoding: try JSONEncoder().encode(Array(Set(photoIDs))), as: UTF8.self)
            var images: [String: [StoredImage]] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT image.photo_id, \(StoredImageRow.columns(of: "image")) FROM json_each(?) AS wanted
                        CROSS JOIN image ON image.photo_id = wanted.value
                        WHERE +image.status = \(ImageStatus.stored.sqlLiteral)
                        """),
                arguments: [ids])
            while let row = try rows.next() {
                images[try row.decode(String.self, atIndex: 0), default: []]
                    .append(try StoredImageRow(row: row, from: 1).image)
            }
            return images.mapValues { variants in variants.sorted { $0.isSmaller(than: $1) } }
        }
    }

    func chunks(of image: StoredImage, photoID: String, chunkSize: Int) -> ImageChunks {
        let database = database
        return ImageChunks(image: image, chunkSize: chunkSize) { offset, length throws(StoreError) in
            try await database.read("reading the image of photo \(photoID)") { db -> Data? in
                guard let row = try StoredImageRow.fetchOne(db, photoID: photoID, variant: image.variant),
                    row.sha256 == image.sha256, row.byteCount == image.byteCount
                else { return nil }
                return try ImageBlob.read(rowID: row.id, offset: offset, count: length, in: db)
            }
        }
    }

    func imageData(photoID: String, variant: ImageVariant?) async throws(StoreError) -> Data? {
        try await database.read("reading the image of photo \(photoID)") { db in
            guard let image = try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant) else { return nil }
            return try Data.fetchOne(db, sql: "SELECT bytes FROM image_data WHERE image_id = ?", arguments: [image.id])
        }
    }

    func writeImage(photoID: String, variant: ImageVariant?, to destination: URL) async throws(StoreError)
        -> Int64?
    {
        try await database.read("reading the image of photo \(photoID)") { db in
            guard let image = try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant) else { return nil }
            let output = try Self.createOrTruncate(destination)
            defer { try? output.close() }
            return try ImageBlob.read(rowID: image.id, to: output, destination: destination, in: db)
        }
    }

    func writeImage(
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
        try db.run([ArchiveStatements.storedBytes])[0].first?.integer(0) ?? 0
    }

    /// Frees the bytes of the stored images fetched longest ago until `incoming` more bytes fit
    /// within `limit`, or none is left; inside the caller's transaction.
    private static func makeRoom(
        for incoming: Int64, within limit: Int64, pruned: inout [PrunedImage], in db: Database
    ) throws {
        var used = try storedBytes(db)
        while used + incoming > limit, let oldest = try db.run([ArchiveStatements.oldestStored])[0].first {
            let prune = try ArchiveStatements.prune(oldest, bytesIn: "image_data")
            _ = try db.run(prune.statements)
            used -= prune.byteCount
            if let image = prune.image { pruned.append(image) }
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

    // The statement the image writer runs for every image, built once, its status literal from
    // `ImageStatus`.
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

extension StoredImage {
    /// Fewer bytes, or as many and the first variant by name: the order of
    /// ``ImageArchive/storedImages(photoIDs:)`` and ``PhotoSummary/smallestImage``, as SQL's
    /// `ORDER BY byte_count, variant` (variant names are lowercase ASCII).
    func isSmaller(than other: StoredImage) -> Bool {
        (byteCount, variant.rawValue) < (other.byteCount, other.variant.rawValue)
    }

    /// Fetched later, or at once and the first variant by name: ``PhotoSummary/image``, as SQL's
    /// `ORDER BY fetched_at DESC, variant`.
    func isNewer(than other: StoredImage) -> Bool {
        (fetchedAt, other.variant.rawValue) > (other.fetchedAt, variant.rawValue)
    }
}

/// A stored `image` row, without its bytes: the one column list of a stored image's metadata.
struct StoredImageRow: FetchableRecord {
    var id: Int64
    var variant: ImageVariant
    var contentType: String
    var byteCount: Int64
    var sha256: String
    var fetchedAt: StoredDate

    /// What every read of this row selects, in this order.
    static let columns = columns(of: nil)

    /// ``columns``, each qualified by `table` when there is one.
    static func columns(of table: String?) -> String {
        ["id", "variant", "content_type", "byte_count", "sha256", "fetched_at"]
            .map { column in table.map { $0 + "." + column } ?? column }.joined(separator: ", ")
    }

    /// The row's ``columns`` read by position: decoding them by name (`Decodable`) built a
    /// dictionary of lowercased column names for every row, 7 % of a gallery page's CPU.
    init(row: Row) throws {
        try self.init(row: row, from: 0)
    }

    /// The ``columns`` from position `first` on, after the columns a read selects before them.
    init(row: Row, from first: Int) throws {
        id = try row.decode(Int64.self, atIndex: first)
        variant = try row.decode(ImageVariant.self, atIndex: first + 1)
        contentType = try row.decode(String.self, atIndex: first + 2)
        byteCount = try row.decode(Int64.self, atIndex: first + 3)
        sha256 = try row.decode(String.self, atIndex: first + 4)
        fetchedAt = try row.decode(StoredDate.self, atIndex: first + 5)
    }

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
