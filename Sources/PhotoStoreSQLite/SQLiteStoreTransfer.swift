import Foundation
import GRDB
import PhotoStore

/// The SQLite store's tables out and in, for `photosync copy`: each table read in its key order
/// from one snapshot, and written a batch a transaction with the copy's progress
/// (``CopyStatements``).
struct SQLiteStoreTransfer: StoreTransfer {
    let database: StoreDatabase

    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let reader: any DatabaseReader
        if let pool = database.writer as? DatabasePool {
            do {
                reader = try pool.makeSnapshot()
            } catch {
                throw StoreError(error, path: database.path, operation: "taking a snapshot to copy")
            }
        } else {
            // One connection (a read-only queue): the copy holds the writer's lock, so nothing
            // changes between its reads.
            reader = database.writer
        }
        return try await body(SQLiteMirrorReader(path: database.path, reader: reader))
    }

    func copyState() async throws(StoreError) -> CopyTargetState {
        try await SQLiteExecutor(database: database).copyState()
    }

    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError) {
        try await database.write("copying \(progress.table.rawValue)") { db in
            try Self.insert(rows, db)
            _ = try db.run(CopyStatements.progress(progress))
        }
    }

    func finishCopy() async throws(StoreError) {
        try await SQLiteExecutor(database: database).write("finishing the copy", CopyStatements.finish) { _ in }
    }

    /// The batch's rows through its table's prepared statements; an image's bytes go beside it.
    private static func insert(_ rows: MirrorRows, _ db: Database) throws {
        let statements = SQLiteMirrorStatements.of[rows.table]!
        let insert = try db.cachedStatement(sql: statements.insert)
        let insertBytes = try statements.insertBytes.map { try db.cachedStatement(sql: $0) }
        for values in rows.values {
            try insert.execute(arguments: StatementArguments(statements.written.map { values[$0].stored }))
            if let insertBytes, let bytes = statements.bytes, case .bytes(let data) = values[bytes] {
                try insertBytes.execute(arguments: [db.lastInsertedRowID, data])
            }
        }
    }
}

/// Reads the SQLite store's tables for a copy, from the snapshot (or the connection) it was
/// given.
private struct SQLiteMirrorReader: MirrorReader {
    let path: String
    let reader: any DatabaseReader

    func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int) async throws(StoreError) -> MirrorRows {
        do {
            return try await reader.read { db in try Self.rows(of: table, after: key, limit: limit, db) }
        } catch {
            throw StoreError(error, path: path, operation: "reading \(table.rawValue) to copy")
        }
    }

    /// The rows after `key` in the table's key order, at most `limit`, and no more once their
    /// bytes reach ``MirrorTable/batchBytes``.
    private static func rows(of table: MirrorTable, after key: MirrorKey?, limit: Int, _ db: Database) throws
        -> MirrorRows
    {
        let description = table.tableDescription
        // Where the batch starts: after the key given, or before every row of the table.
        let after: any DatabaseValueConvertible =
            description.key.type == .text ? key.textBound : key.integerBound
        let cursor = try Row.fetchCursor(
            db, sql: SQLiteMirrorStatements.of[table]!.select, arguments: [after, limit])
        var rows: [[MirrorValue]] = []
        var bytes = 0
        while bytes < MirrorTable.batchBytes, let row = try cursor.next() {
            let values = try description.columns.indices.map { index in
                try MirrorValue(row[index] as DatabaseValue, description.columns[index], table: description.name)
            }
            for case .bytes(let data) in values { bytes += data.count }
            rows.append(values)
        }
        return try MirrorRows(table, values: rows)
    }
}
