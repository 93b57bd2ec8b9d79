import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// Each SQLite failure a user acts on differently becomes its own `StoreError` case, sorted by
/// the result code SQLite gave, from real failures of real databases.
@Suite("Store errors keep SQLite's facts")
struct StoreErrorTests {
    /// The `StoreError` that `body`'s failure becomes, as the store wraps it.
    func storeError(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch {
            return StoreError(error, path: "/data/photos.sqlite", operation: "testing")
        }
    }

    @Test("a database with no room left is a full disk")
    func full() throws {
        let queue = try DatabaseQueue()
        let error = storeError {
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE t (b BLOB)")
                try db.execute(sql: "PRAGMA max_page_count = \(try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1)")
                try db.execute(sql: "INSERT INTO t VALUES (zeroblob(100000))")
            }
        }
        #expect(error == .diskFull(path: "/data/photos.sqlite", operation: "testing"))
    }

    @Test("a database another connection keeps locked is busy")
    func busy() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("locked.sqlite").path
            let holder = try DatabaseQueue(path: path)
            try holder.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
            var configuration = Configuration()
            configuration.busyMode = .immediateError
            let other = try DatabaseQueue(path: path, configuration: configuration)
            try holder.inDatabase { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                let error = storeError {
                    try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
                }
                #expect(error == .busy(path: "/data/photos.sqlite", operation: "testing"))
                try db.execute(sql: "ROLLBACK")
            }
        }
    }

    @Test("a file whose pages do not read as written is corrupt")
    func corrupt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("damaged.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE t (x TEXT)")
                for n in 0..<200 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["row \(n)"]) }
            }
            try queue.close()
            // Page 2, the table's root, overwritten: the header (page 1) still says SQLite.
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seek(toOffset: 4096)
            try file.write(contentsOf: Data(repeating: 0xA5, count: 4096))
            try file.close()
            let damaged = try DatabaseQueue(path: path)
            let error = storeError {
                _ = try damaged.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            }
            #expect(error == .corrupt(path: "/data/photos.sqlite", operation: "testing"))
        }
    }

    @Test("any other failure keeps SQLite's code and message, never its statement")
    func otherFailure() throws {
        let queue = try DatabaseQueue()
        let error = storeError {
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE t (x NOT NULL)")
                try db.execute(sql: "INSERT INTO t VALUES (NULL)")
            }
        }
        guard case .databaseFailure(_, _, let code, let reason) = error else {
            Issue.record("not a database failure: \(String(describing: error))")
            return
        }
        #expect(code == ResultCode.SQLITE_CONSTRAINT_NOTNULL.rawValue)
        #expect(reason == "NOT NULL constraint failed: t.x")
        let line = error?.localizedDescription ?? ""
        #expect(line == "database error at /data/photos.sqlite while testing: NOT NULL constraint failed: t.x")
        #expect(!line.contains("INSERT"))
    }

    @Test("a search FTS5 refuses while running is the input's fault; a statement that does not compile is not")
    func rejectedSearch() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE VIRTUAL TABLE s USING fts5(x)") }
        func failure(_ sql: String, _ text: String) -> DatabaseError? {
            do {
                _ = try queue.read { db in try Row.fetchAll(db, sql: sql, arguments: [text]) }
                return nil
            } catch {
                return error as? DatabaseError
            }
        }
        for text in ["\"unclosed", "AND", "nosuchcolumn: word"] {
            #expect(failure("SELECT * FROM s WHERE s MATCH ?", text)?.isRejectedSearch == true, "\(text)")
        }
        // A missing index is the file's fault, whatever the text: it fails before running.
        #expect(failure("SELECT * FROM missing WHERE missing MATCH ?", "word")?.isRejectedSearch == false)
        #expect(failure("SELECT * FROM s WHERE nosuch = ?", "word")?.isRejectedSearch == false)
    }
}
