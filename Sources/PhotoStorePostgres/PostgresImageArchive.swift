import Basics
import Crypto
import Foundation
import PhotoStore
import PostgresNIO

/// Image bytes in PostgreSQL: chunk rows of at most 1 MiB (`image_chunk`), written in the same
/// transaction as the image's `stored` status, and read back a chunk at a time, so that memory
/// stays bounded both ways with images of 20 MB (postgres-nio holds a whole `bytea` value in
/// memory). ``ImageArchive``'s contract, as SQLite's.
struct PostgresImageArchive: SQLImageArchive {
    let database: PostgresDatabase
    var sql: any SQLExecutor { PostgresExecutor(database: database) }
    let bytesTable = "image_chunk"

    /// The bytes of one `image_chunk` row at most.
    static let chunkBytes = 1 << 20

    @discardableResult
    func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure], storageLimit: Int64?
    ) async throws(StoreError) -> StoredBatch {
        guard !images.isEmpty || !failures.isEmpty else { return StoredBatch(stored: [], pruned: []) }
        let (logger, name) = (database.logger, database.name)
        if storageLimit == nil, failures.isEmpty, !images.isEmpty, let batch = InMemoryBatch(images),
            batch.images.allSatisfy({ $0.data.count <= Self.chunkBytes })
        {
            // The common batch (small images, no budget, no failures) is one statement, fenced
            // in itself: one round trip where a transaction takes four.
            let stored = try await database.writeStatement(
                "storing a batch of \(images.count) images", lane: .images
            ) { connection, token in
                try await Self.storeInOneTrip(batch, name: name, fence: token, connection, logger)
            }
            return StoredBatch(stored: stored, pruned: [])
        }
        return try await database.write("storing a batch of \(images.count) images", lane: .images) { connection in
            var pruned: [PrunedImage] = []
            var stored: [Bool] = []
            if storageLimit == nil, !images.isEmpty, let batch = InMemoryBatch(images) {
                stored = try await Self.storeInOneTrip(batch, name: name, fence: nil, connection, logger)
            } else {
                for image in images {
                    stored.append(
                        try await Self.store(
                            image, storageLimit: storageLimit, pruned: &pruned, name: name, connection, logger))
                }
            }
            for failure in failures {
                try failure.check(
                    try await PostgresExecutor.run(failure.statements, connection, logger), path: name)
            }
            return StoredBatch(stored: stored, pruned: pruned)
        }
    }

    @discardableResult
    func prune(toFit storageLimit: Int64) async throws(StoreError) -> [PrunedImage] {
        let logger = database.logger
        return try await database.write("pruning images to fit \(storageLimit) bytes") { connection in
            var pruned: [PrunedImage] = []
            try await Self.makeRoom(for: 0, within: storageLimit, pruned: &pruned, connection, logger)
            return pruned
        }
    }

    func chunks(of image: StoredImage, photoID: String, chunkSize: Int) -> ImageChunks {
        let (database, logger) = (database, database.logger)
        return ImageChunks(image: image, chunkSize: chunkSize) { offset, length throws(StoreError) in
            try await database.read("reading the image of photo \(photoID)") { connection -> Data? in
                let lookup = ArchiveStatements.image(photoID: photoID, variant: image.variant)
                let rows = try await PostgresExecutor.run([lookup], connection, logger, preparing: true)[0]
                guard let row = try rows.first.flatMap({ try ArchiveStatements.image($0, from: 0) }),
                    row.image.sha256 == image.sha256, row.image.byteCount == image.byteCount
                else { return nil }
                return try await Self.bytes(of: row.id, offset: offset, length: length, connection, logger)
            }
        }
    }

    /// ``VerificationWalk`` over the `image_chunk` rows, one read transaction an image. The
    /// server checks its own pages (`data_checksums`, `amcheck`): there is no integrity check here.
    func verify(progress: (VerificationProgress) -> Void) async throws(StoreError) -> VerificationReport {
        let (database, logger) = (database, database.logger)
        return try await VerificationWalk.run(
            PostgresExecutor(database: database), bytesIn: "image_chunk", integrityErrors: [],
            rehash: { image throws(StoreError) in
                try await database.read("verifying the image of photo \(image.photoID)") { connection in
                    var hasher = SHA256()
                    var (size, chunks) = (Int64(0), 0)
                    try await Self.forEachChunk(of: image.id, connection, logger) { chunk in
                        hasher.update(data: chunk)
                        size += Int64(chunk.count)
                        chunks += 1
                    }
                    return chunks == 0 ? nil : VerificationWalk.Bytes(size: size, sha256: Hex.string(hasher.finalize()))
                }
            }, progress: progress)
    }

    // MARK: - Inside a transaction

    /// The stored image described by `row`'s columns from `column` on (id, variant, content
    /// type, byte count, SHA-256, fetch time); nil for a variant this build does not know.
    static func storedImage(_ row: PostgresRow, column: Int) throws -> StoredImage? {
        let cells = Array(row)
        guard let variant = ImageVariant(rawValue: try cells[column + 1].decode(String.self)) else { return nil }
        return StoredImage(
            variant: variant, contentType: try cells[column + 2].decode(String.self),
            byteCount: try cells[column + 3].decode(Int64.self), sha256: try cells[column + 4].decode(String.self),
            fetchedAt: try cells[column + 5].decode(Date.self))
    }

    static func storedBytes(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        try await connection.run([ArchiveStatements.storedBytes], logger)[0].first?.integer(0) ?? 0
    }

    /// Frees the bytes of the stored images fetched longest ago until `incoming` more bytes fit
    /// within `limit`, or none is left.
    static func makeRoom(
        for incoming: Int64, within limit: Int64, pruned: inout [PrunedImage], _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        var used = try await storedBytes(connection, logger)
        while used + incoming > limit,
            let oldest = try await connection.run([ArchiveStatements.oldestStored], logger)[0].first
        {
            let prune = try ArchiveStatements.prune(oldest, bytesIn: "image_chunk")
            _ = try await connection.run(prune.statements, logger)
            used -= prune.byteCount
            if let image = prune.image { pruned.append(image) }
        }
    }

    /// Stores one image's bytes as chunk rows and marks its job stored, first pruning older
    /// images to keep within `storageLimit`; false, changing nothing, when it was already stored
    /// or pruned.
    static func store(
        _ image: ImageToStore, storageLimit: Int64?, pruned: inout [PrunedImage], name: String,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Bool {
        if storageLimit == nil, case .data(let data) = image.bytes {
            return try await storeInOneTrip(image, data, name: name, connection, logger)
        }
        let job = try await connection.run([ArchiveStatements.job(of: image)], logger)[0]
        guard let imageID = try ArchiveStatements.imageIDToStore(job, of: image, path: name) else { return false }
        if let storageLimit {
            try await makeRoom(for: image.byteCount, within: storageLimit, pruned: &pruned, connection, logger)
        }
        var index: Int32 = 0
        let insert: (Data) async throws -> Void = { chunk in
            try await connection.guardedQuery(
                "INSERT INTO image_chunk (image_id, index, bytes) VALUES (\(imageID), \(index), \(chunk))",
                logger: logger)
            index += 1
        }
        switch image.bytes {
        case .data(let data):
            var start = data.startIndex
            while start < data.endIndex {
                let end = data.index(start, offsetBy: chunkBytes, limitedBy: data.endIndex) ?? data.endIndex
                try await insert(data[start..<end])
                start = end
            }
        case .file(let file, let byteCount):
            guard let input = FileHandle(forReadingAtPath: file.path) else {
                throw StoreError.cannotReadImageFile(file: file.path, reason: "it cannot be opened")
            }
            defer { try? input.close() }
            var read: Int64 = 0
            while let chunk = try input.read(upToCount: chunkBytes), !chunk.isEmpty {
                read += Int64(chunk.count)
                guard read <= byteCount else { break }
                try await insert(chunk)
            }
            guard read == byteCount else {
                throw StoreError.imageSizeMismatch(file: file.path, expected: byteCount, actual: read)
            }
        }
        _ = try await connection.run([ArchiveStatements.markStored(image, id: imageID)], logger)
        return true
    }

    /// ``store(_:storageLimit:pruned:name:_:_:)`` for bytes in memory and no storage limit: the
    /// job's status, the stored metadata and the first chunk in one statement (a round trip per
    /// image, not three: they were most of a PostgreSQL sync's time), then any other chunks. All
    /// of it commits with the batch's transaction, or none of it.
    static func storeInOneTrip(
        _ image: ImageToStore, _ data: Data, name: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Bool {
        let first = data.prefix(chunkBytes)
        let rows = try await connection.guardedQuery(
            """
            WITH job AS (
                SELECT id, status FROM image
                WHERE photo_id = \(image.photoID) AND variant = \(image.variant.rawValue) FOR UPDATE
            ), stored AS (
                UPDATE image SET status = \(literal: .stored), content_type = \(image.contentType),
                    byte_count = \(image.byteCount), sha256 = \(image.sha256), fetched_at = \(image.fetchedAt),
                    next_attempt_at = NULL
                FROM job WHERE image.id = job.id AND job.status NOT IN (\(literal: .stored), \(literal: .pruned))
                RETURNING image.id
            ), chunk AS (
                INSERT INTO image_chunk (image_id, index, bytes) SELECT id, 0, \(Data(first)) FROM stored
                RETURNING image_id
            )
            SELECT job.id, (SELECT count(*) FROM chunk) FROM job
            """, logger: logger
        ).collect()
        guard let (imageID, inserted) = try rows.first?.decode((Int64, Int64).self) else {
            throw StoreError.unknownImageJob(path: name, photoID: image.photoID, variant: image.variant)
        }
        // A stored image is stored once; a pruned one would undo the budget that freed it.
        guard inserted == 1 else { return false }
        try await insertChunksAfterTheFirst(of: data, imageID: imageID, connection, logger)
        return true
    }

    /// The chunks of `data` after its first, which the statement that stored the image wrote:
    /// one statement each.
    static func insertChunksAfterTheFirst(
        of data: Data, imageID: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        var start = data.startIndex + min(data.count, chunkBytes)
        var index: Int32 = 1
        while start < data.endIndex {
            let end = data.index(start, offsetBy: chunkBytes, limitedBy: data.endIndex) ?? data.endIndex
            try await connection.guardedQuery(
                "INSERT INTO image_chunk (image_id, index, bytes) VALUES (\(imageID), \(index), \(data[start..<end]))",
                logger: logger)
            index += 1
            start = end
        }
    }

    /// ``storeInOneTrip(_:_:name:_:_:)`` for a whole batch: every job's status, stored metadata
    /// and first chunk in one statement, its rows arrays, then any further chunks. Under load a
    /// batch holds tens of images, each a round trip before.
    ///
    /// With a `fence` (the statement is its own transaction: ``PostgresDatabase/writeStatement(_:lane:_:)``),
    /// it locks the lease row as ``WriterFence/statement(_:)`` does and writes nothing unless it
    /// is found; it throws ``WriterFence/Refused`` when it was not.
    static func storeInOneTrip(
        _ batch: InMemoryBatch, name: String, fence: WriterFence.Token?, _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws -> [Bool] {
        let images = batch.images
        let rows = try await connection.guardedQuery(
            """
            WITH fence AS (
                SELECT 1 FROM writer_lease
                WHERE \(fence != nil) AND id = 1 AND instance = \(fence?.instance ?? "") AND epoch = \(fence?.epoch ?? 0)
                FOR KEY SHARE
            ),
            held AS (
                SELECT (NOT \(fence != nil) OR EXISTS (SELECT FROM fence))
                    AND \(unescaped: PostgresDatabase.transactionSettings) AS held
            ),
            batch AS (
                SELECT * FROM unnest(\(images.map(\.image.photoID))::text[],
                    \(images.map(\.image.variant.rawValue))::text[], \(images.map(\.image.contentType))::text[],
                    \(images.map(\.image.byteCount))::bigint[], \(images.map(\.image.sha256))::text[],
                    \(images.map(\.image.fetchedAt))::timestamptz[],
                    \(images.map { ByteBuffer(bytes: $0.data.prefix(chunkBytes)) })::bytea[])
                    WITH ORDINALITY AS batch (photo_id, variant, content_type, byte_count, sha256, fetched_at, bytes, n)
            ), job AS (
                SELECT image.id, image.status, batch.* FROM batch
                JOIN image ON image.photo_id = batch.photo_id AND image.variant = batch.variant
                WHERE (SELECT held FROM held)
                FOR UPDATE OF image
            ), stored AS (
                UPDATE image SET status = \(literal: .stored), content_type = job.content_type, byte_count = job.byte_count,
                    sha256 = job.sha256, fetched_at = job.fetched_at, next_attempt_at = NULL
                FROM job WHERE image.id = job.id AND job.status NOT IN (\(literal: .stored), \(literal: .pruned))
                RETURNING image.id
            ), chunk AS (
                INSERT INTO image_chunk (image_id, index, bytes)
                SELECT job.id, 0, job.bytes FROM job JOIN stored ON stored.id = job.id
                RETURNING image_id
            )
            SELECT held.held, outcome.n, outcome.id, outcome.stored FROM held LEFT JOIN (
                SELECT job.n, job.id, job.id IN (SELECT image_id FROM chunk) AS stored FROM job
            ) AS outcome ON true
            """, logger: logger
        ).collect()
        var outcomes: [Int: (id: Int64, stored: Bool)] = [:]
        for row in rows {
            let (held, n, id, stored) = try row.decode((Bool, Int64?, Int64?, Bool?).self)
            guard held else { throw WriterFence.Refused() }
            if let n, let id, let stored { outcomes[Int(n) - 1] = (id, stored) }
        }
        var stored: [Bool] = []
        for (index, (image, data)) in images.enumerated() {
            guard let outcome = outcomes[index] else {
                throw StoreError.unknownImageJob(path: name, photoID: image.photoID, variant: image.variant)
            }
            stored.append(outcome.stored)
            // A stored image is stored once; a pruned one would undo the budget that freed it.
            guard outcome.stored else { continue }
            try await insertChunksAfterTheFirst(of: data, imageID: outcome.id, connection, logger)
        }
        return stored
    }

    /// A batch whose images are all in memory, each job once: what one statement stores.
    struct InMemoryBatch {
        let images: [(image: ImageToStore, data: Data)]

        init?(_ images: [ImageToStore]) {
            var seen = Set<String>()
            var inMemory: [(image: ImageToStore, data: Data)] = []
            for image in images {
                guard case .data(let data) = image.bytes,
                    seen.insert(image.photoID + "\u{0}" + image.variant.rawValue).inserted
                else { return nil }
                inMemory.append((image, data))
            }
            self.images = inMemory
        }
    }

    /// Hands the image's chunks to `body`, one row at a time, in order.
    static func forEachChunk(
        of imageID: Int64, _ connection: PostgresConnection, _ logger: Logger, _ body: (Data) throws -> Void
    ) async throws {
        var index: Int32 = 0
        while let chunk = try await connection.guardedQuery(
            "SELECT bytes FROM image_chunk WHERE image_id = \(imageID) AND index = \(index)", logger: logger
        ).collect().first?.decode(Data.self) {
            try body(chunk)
            index += 1
        }
    }

    /// `length` bytes of the image from `offset`, from the chunk rows that hold them: of each row
    /// only the slice asked for leaves the server. The rows' bytes are stored uncompressed
    /// (`STORAGE EXTERNAL`), so the server reads only the pages of a row that hold that slice: a
    /// range of a large image, or a half-row read, no longer reads and sends its rows whole.
    static func bytes(
        of imageID: Int64, offset: Int64, length: Int, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Data? {
        let size = Int64(chunkBytes)
        let (start, end) = (offset, offset + Int64(length))
        let first = Int32(start / size)
        let last = Int32((end - 1) / size)
        var data = Data(capacity: length)
        let rows = try await connection.guardedQuery(
            """
            SELECT substring(bytes
                FROM (greatest(\(start) - index * \(size), 0) + 1)::int
                FOR (least(\(end) - index * \(size), \(size)) - greatest(\(start) - index * \(size), 0))::int)
            FROM image_chunk
            WHERE image_id = \(imageID) AND index BETWEEN \(first) AND \(last) ORDER BY index
            """, logger: logger)
        for try await slice in rows.decode(Data.self) { data.append(slice) }
        return data.count == length ? data : nil
    }
}
