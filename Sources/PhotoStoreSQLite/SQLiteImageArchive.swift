import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The archive in SQLite: bytes in `image_data` rows beside their `image` row, written and read
/// with SQLite's incremental blob I/O a chunk at a time (``ImageBlob``), so memory never grows
/// with an image.
struct SQLiteImageArchive: SQLImageArchive {
    let database: StoreDatabase
    var sql: any SQLExecutor { SQLiteExecutor(database: database) }
    let bytesTable = "image_data"

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

    /// ``SQLImageArchive/storedImage(photoID:variant:)``'s statement, decoded in place: serve
    /// runs it for every request, and through the executor it took 12 % longer.
    func storedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await database.read("reading the image of photo \(photoID)") { db in
            try StoredImageRow.fetchOne(db, photoID: photoID, variant: variant)?.image
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

    // MARK: - SQL

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
        let job = try db.run([ArchiveStatements.job(of: image)])[0]
        guard let imageID = try ArchiveStatements.imageIDToStore(job, of: image, path: path) else { return false }
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
        _ = try db.run([ArchiveStatements.markStored(image, id: imageID)])
        return true
    }

    /// Blob offsets in SQLite's C API are 32-bit.
    private static func checkBlobSize(_ image: ImageToStore) throws(StoreError) {
        guard image.byteCount <= Int64(Int32.max) else {
            throw .imageTooLarge(photoID: image.photoID, variant: image.variant, byteCount: image.byteCount)
        }
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
