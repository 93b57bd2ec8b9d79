import Foundation
import Logging
import PhotoStore
import PostgresNIO

/// The PostgreSQL store's tables out and in, for `photosync copy` and `backup`: read in each
/// table's key order from one repeatable-read snapshot (on one connection, held for the whole
/// copy), written a batch a transaction, each batch's rows one JSON document and its image
/// chunks one array.
///
/// The progress is kept as ``CopyStatements`` say.
struct PostgresStoreTransfer: StoreTransfer {
    let database: PostgresDatabase

    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let database = database
        return try await database.snapshot("copying the mirror") { connection in
            try await body(PostgresMirrorReader(database: database, connection: connection, logger: database.logger))
        }
    }

    func copyState() async throws(StoreError) -> CopyTargetState {
        try await PostgresExecutor(database: database).copyState()
    }

    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError) {
        let logger = database.logger
        try await database.write("copying \(progress.table.rawValue)") { connection in
            try await Self.insert(rows, connection, logger)
            _ = try await connection.run(CopyStatements.progress(progress), logger)
        }
    }

    /// Ends the copy, then vacuums and analyzes the tables it filled: until autovacuum comes
    /// round to them, the server would plan the mirror's first reads blind (a page of a million
    /// photos by a scan, not its index) and count rows from the heap instead of an index alone.
    func finishCopy() async throws(StoreError) {
        let logger = database.logger
        try await PostgresExecutor(database: database).write("finishing the copy", CopyStatements.finish) { _ in }
        // VACUUM runs outside a transaction: on a connection of its own, as a read does.
        try await database.read("vacuuming the copy") { connection in
            _ = try await connection.guardedQuery("VACUUM (ANALYZE)", logger: logger)
        }
    }

    /// One statement a table's rows (their values one JSON document), and one more for images'
    /// chunks.
    private static func insert(_ rows: MirrorRows, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let statements = PostgresMirrorStatements.of[rows.table]!
        let query: PostgresQuery = """
            \(unescaped: statements.insert.before)\(try document(rows.values, statements.written))\
            \(unescaped: statements.insert.after)
            """
        let inserted = try await connection.guardedQuery(query, logger: logger).collect()
        if case .images(let images) = rows {
            try await insertChunks(images, inserted: inserted, connection, logger)
        }
    }

    /// Every stored image's chunks (of at most `PostgresImageArchive.chunkBytes`) in one
    /// statement, under the ids `inserted` gives their images.
    private static func insertChunks(
        _ images: [MirrorImage], inserted: [PostgresRow], _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        var ids: [String: Int64] = [:]
        for row in inserted {
            let (id, photoID, variant) = try row.decode((Int64, String, String).self)
            ids[photoID + "\u{0}" + variant] = id
        }
        var imageIDs: [Int64] = []
        var indexes: [Int32] = []
        var chunks: [ByteBuffer] = []
        for image in images {
            guard let data = image.bytes, let id = ids[image.photoID + "\u{0}" + image.variant] else { continue }
            var start = data.startIndex
            var index: Int32 = 0
            repeat {
                let end =
                    data.index(start, offsetBy: PostgresImageArchive.chunkBytes, limitedBy: data.endIndex)
                    ?? data.endIndex
                imageIDs.append(id)
                indexes.append(index)
                chunks.append(ByteBuffer(bytes: data[start..<end]))
                index += 1
                start = end
            } while start < data.endIndex
        }
        guard !chunks.isEmpty else { return }
        try await connection.guardedQuery(
            """
            INSERT INTO image_chunk (image_id, index, bytes)
            SELECT * FROM unnest(\(imageIDs)::bigint[], \(indexes)::integer[], \(chunks)::bytea[])
            """, logger: logger)
    }

    /// `rows` as one JSON array, for `jsonb_to_recordset`: each an object of the `columns` it has
    /// and its place in the batch as `n` (a join may reorder rows, and the target numbers them
    /// (`bigserial`) in the order they come, which the next copy reads them in).
    private static func document(_ rows: [[MirrorValue]], _ columns: [(index: Int, name: String)]) throws -> String {
        let objects = rows.enumerated().map { place, values in
            var object: [String: Any] = ["n": place]
            for (index, name) in columns {
                object[name] = values[index].document
            }
            return object
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: objects), as: UTF8.self)
    }
}

/// Reads the PostgreSQL store's tables for a copy, on the one connection whose transaction holds
/// the snapshot.
private struct PostgresMirrorReader: MirrorReader {
    let database: PostgresDatabase
    let connection: PostgresConnection
    let logger: Logger

    func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int) async throws(StoreError) -> MirrorRows {
        do {
            return try await fetch(table, after: key, limit: limit)
        } catch {
            throw database.storeError(error, operation: "reading \(table.rawValue) to copy")
        }
    }

    /// The rows after `key` by the table's statements, their values in the description's order.
    private func fetch(_ table: MirrorTable, after key: MirrorKey?, limit: Int) async throws -> MirrorRows {
        let description = table.tableDescription
        let statements = PostgresMirrorStatements.of[table]!
        // Where the batch starts: after the key given, or before every row of the table.
        let query: PostgresQuery =
            description.key.type == .text
            ? "\(unescaped: statements.select) \(key.textBound) \(unescaped: statements.order) \(limit)"
            : "\(unescaped: statements.select) \(key.integerBound) \(unescaped: statements.order) \(limit)"
        var values: [[MirrorValue]] = []
        for row in try await connection.guardedQuery(query, logger: logger).collect() {
            var rowValues = [MirrorValue](repeating: .null, count: description.columns.count)
            for (index, cell) in zip(statements.read, row) {
                rowValues[index] = try MirrorValue(cell, description.columns[index].type)
            }
            values.append(rowValues)
        }
        let rows = try MirrorRows(table, values: values)
        guard case .images(let images) = rows else { return rows }
        return .images(try await withBytes(images))
    }

    /// `images` up to where their stored bytes reach ``MirrorTable/batchBytes``, with the bytes of
    /// those stored, read chunk by chunk in one more statement.
    private func withBytes(_ images: [MirrorImage]) async throws -> [MirrorImage] {
        var images = images
        var bytes: Int64 = 0
        for (index, image) in images.enumerated() where image.status == ImageStatus.stored.rawValue {
            guard bytes < MirrorTable.batchBytes else {
                images.removeSubrange(index...)
                break
            }
            bytes += image.byteCount ?? 0
        }
        let stored = images.filter { $0.status == ImageStatus.stored.rawValue }.map(\.key)
        guard !stored.isEmpty else { return images }
        var data: [Int64: Data] = [:]
        let chunks = try await connection.guardedQuery(
            "SELECT image_id, bytes FROM image_chunk WHERE image_id = ANY(\(stored)) ORDER BY image_id, index",
            logger: logger)
        for try await (id, chunk) in chunks.decode((Int64, ByteBuffer).self) {
            data[id, default: Data()].append(contentsOf: chunk.readableBytesView)
        }
        for index in images.indices where images[index].status == ImageStatus.stored.rawValue {
            images[index].bytes = data[images[index].key] ?? Data()
        }
        return images
    }
}
