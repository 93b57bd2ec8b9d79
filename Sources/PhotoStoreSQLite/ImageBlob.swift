import Foundation
import GRDB
import GRDBSQLite
import PhotoStore

/// Streams image bytes between files and `image_data.bytes` with SQLite's incremental blob I/O,
/// one chunk at a time, so that a large image never sits in memory whole.
enum ImageBlob {
    static let chunkSize = 1 << 20

    /// Copies exactly `byteCount` bytes of `file` into the blob of `image_data` row `rowID`,
    /// which must already hold a `zeroblob(byteCount)`. Must run inside the write transaction
    /// that created the row.
    ///
    /// - Throws: `StoreError.cannotReadImageFile`, `.imageSizeMismatch` when the file does not
    ///   hold `byteCount` bytes, or a `DatabaseError`.
    static func write(from file: URL, byteCount: Int64, rowID: Int64, in db: Database) throws {
        let input: FileHandle
        let size: UInt64
        do {
            input = try FileHandle(forReadingFrom: file)
            size = try input.seekToEnd()
            try input.seek(toOffset: 0)
        } catch {
            throw StoreError.cannotReadImageFile(file: file.path, reason: reason(error))
        }
        defer { try? input.close() }
        guard size == UInt64(byteCount) else {
            throw StoreError.imageSizeMismatch(file: file.path, expected: byteCount, actual: Int64(size))
        }

        let blob = try open(rowID: rowID, writable: true, in: db)
        defer { sqlite3_blob_close(blob) }

        var offset: Int64 = 0
        while offset < byteCount {
            let wanted = Int(min(Int64(chunkSize), byteCount - offset))
            let chunk: Data
            do {
                chunk = try input.read(upToCount: wanted) ?? Data()
            } catch {
                throw StoreError.cannotReadImageFile(file: file.path, reason: reason(error))
            }
            // The file shrank while being copied.
            if chunk.isEmpty {
                throw StoreError.imageSizeMismatch(file: file.path, expected: byteCount, actual: offset)
            }
            let code = chunk.withUnsafeBytes { buffer in
                sqlite3_blob_write(blob, buffer.baseAddress, Int32(buffer.count), Int32(offset))
            }
            try check(code, in: db)
            offset += Int64(chunk.count)
        }
    }

    /// Hands the whole blob of `image_data` row `rowID` to `body` in chunks of at most
    /// ``chunkSize`` bytes, in order, returning its size. Must run inside a read transaction.
    static func forEachChunk(rowID: Int64, in db: Database, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
        -> Int64
    {
        let blob = try open(rowID: rowID, writable: false, in: db)
        defer { sqlite3_blob_close(blob) }

        let size = Int64(sqlite3_blob_bytes(blob))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(chunkSize), size - offset))
            try check(sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset)), in: db)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
        return size
    }

    /// `count` bytes of the blob of `image_data` row `rowID` from `offset`, which must lie within
    /// it. Must run inside a read transaction.
    static func read(rowID: Int64, offset: Int64, count: Int, in db: Database) throws -> Data {
        let blob = try open(rowID: rowID, writable: false, in: db)
        defer { sqlite3_blob_close(blob) }
        var chunk = Data(count: count)
        let code = chunk.withUnsafeMutableBytes { buffer in
            sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset))
        }
        try check(code, in: db)
        return chunk
    }

    private static func open(rowID: Int64, writable: Bool, in db: Database) throws -> OpaquePointer {
        var blob: OpaquePointer?
        let code = sqlite3_blob_open(db.sqliteConnection, "main", "image_data", "bytes", rowID, writable ? 1 : 0, &blob)
        try check(code, in: db)
        guard let blob else { throw DatabaseError(message: "sqlite3_blob_open returned no handle") }
        return blob
    }

    private static func check(_ code: Int32, in db: Database) throws {
        guard code == SQLITE_OK else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
    }

    /// POSIX errors from Foundation describe themselves better than their `NSError` dump.
    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? error.localizedDescription
    }
}
