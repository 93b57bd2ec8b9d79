// The start floor (Benchmarks/query.sh): `photosync query --id`'s work on the libraries it is
// built on, with none of photosync's own code. It parses its arguments with
// swift-argument-parser, reads the YAML configuration file with Yams' basic resolver, opens the
// database read-only and checks its application id, then looks the photo up either through
// GRDB (`--read grdb`: a read-only DatabaseQueue and a Codable record, as photosync reads) or
// through SQLite's C API alone (`--read sqlite`), and prints one line. Whatever it takes,
// photosync's query cannot take less on the same stack. Its commands are synchronous, which
// photosync's are not (`run` and `serve` need an async `main`, and the store reads with
// `await`): an async `main` starts Swift's concurrency runtime and libdispatch's threads before
// parsing, about 1 ms more here.
import ArgumentParser
import Foundation
import GRDB
import GRDBSQLite
import Yams

@main
struct StartFloor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start-floor", abstract: "photosync query's work with none of photosync's code.",
        version: "1", subcommands: [Query.self])
}

struct Query: ParsableCommand {
    enum Reader: String, ExpressibleByArgument { case grdb, sqlite }

    struct Photo: Codable, FetchableRecord {
        var id: String
        var createdAt: String?
        var width: Int?
        var height: Int?
        var userUsername: String?
        var description: String?

        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    }

    static let configuration = CommandConfiguration(abstract: "Look a photo up.")
    static let sql = "SELECT id, created_at, width, height, user_username, description FROM photo WHERE id = ?"

    @Option(help: "The photo's id.") var id: String
    @Option(help: "The SQLite database file.") var database: String
    @Option(help: "A YAML configuration file, read as photosync reads one.") var config: String?
    @Option(help: "grdb or sqlite.") var read: Reader = .grdb

    func run() throws {
        if let config {
            let text = try String(contentsOfFile: config, encoding: .utf8)
            _ = try Parser(yaml: text, resolver: .basic).singleRoot()?.mapping?["per_page"]?.string
        }
        let photo = try read == .grdb ? throughGRDB() : throughSQLite()
        guard let photo else { throw ExitCode(1) }
        print("\(photo.id) \(photo.width ?? 0)x\(photo.height ?? 0) \(photo.userUsername ?? "")")
    }

    private func throughGRDB() throws -> Photo? {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: database, configuration: configuration)
        return try queue.read { db in
            guard try Int32.fetchOne(db, sql: "PRAGMA application_id") != 0 else { throw ExitCode(2) }
            return try Photo.fetchOne(db, sql: Self.sql, arguments: [id])
        }
    }

    private func throughSQLite() throws -> Photo? {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw ExitCode(2) }
        var identity: OpaquePointer?
        defer { sqlite3_finalize(identity) }
        guard sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &identity, nil) == SQLITE_OK,
            sqlite3_step(identity) == SQLITE_ROW, sqlite3_column_int(identity, 0) != 0
        else { throw ExitCode(2) }
        var lookup: OpaquePointer?
        defer { sqlite3_finalize(lookup) }
        guard sqlite3_prepare_v2(db, Self.sql, -1, &lookup, nil) == SQLITE_OK else { throw ExitCode(2) }
        sqlite3_bind_text(lookup, 1, id, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        guard sqlite3_step(lookup) == SQLITE_ROW else { return nil }
        let text = { (column: Int32) in sqlite3_column_text(lookup, column).map { String(cString: $0) } }
        let number = { (column: Int32) in Int(sqlite3_column_int64(lookup, column)) }
        return Photo(
            id: text(0) ?? "", createdAt: text(1), width: number(2), height: number(3), userUsername: text(4),
            description: text(5))
    }
}
