import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import PostgresNIO
import TestSupport
import Testing

@testable import PhotoStorePostgres

/// A listing's statements on PostgreSQL are prepared once per connection and bound for each
/// request; one whose plan depends on its values is planned for each, and past a limit of texts
/// a new one is sent unprepared.
@Suite("PostgreSQL's prepared statements", .timeLimit(.minutes(5)))
struct PostgresPreparedRowsTests {
    let logger = Logger(label: "photosync.contract")

    /// Runs `body` on one connection of a new database.
    func withConnection(_ body: (PostgresConnection, Logger) async throws -> Void) async throws {
        let location = try PostgresLocation(parsing: try await PostgresTestCluster.shared.makeDatabase())
        let database = try await PhotoStorePostgres.PostgresDatabase.open(location, password: nil, logger: logger)
        defer { database.close() }
        try await database.read("a test") { [logger] connection in try await body(connection, logger) }
    }

    /// `text` with `$1` bound to `value`.
    static func statement(_ text: String, _ value: Int64, plannedPerValue: Bool = false) throws -> PreparableQuery {
        var sql = PostgresListing.SQL()
        sql.plannedPerValue = plannedPerValue
        let text = text.replacingOccurrences(of: "$1", with: try sql.bind(value))
        return sql.statement(text)
    }

    /// How many statements this connection has prepared with `text`.
    static func prepared(_ text: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        try await connection.integer(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement = \(text)", logger: logger)
    }

    @Test("a statement is prepared once on a connection and answers each request's values")
    func aStatementIsPreparedOnceAndBoundForEachRequest() async throws {
        try await withConnection { connection, logger in
            // GIVEN two texts, each sent twice with other values
            let (plus, times) = ("SELECT $1 + 1", "SELECT $1 * 10")
            var answers: [Int64] = []
            for (text, value) in [(plus, 41), (times, 4), (plus, 1), (times, 7)] as [(String, Int64)] {
                // WHEN each is sent on the one connection
                let rows = try await connection.preparedRows(try Self.statement(text, value), logger: logger)
                answers.append(try rows.first?.decode(Int64.self) ?? -1)
            }

            // THEN each answered its own text with its own value, and each text is prepared once
            #expect(answers == [42, 40, 2, 70])
            #expect(try await Self.prepared(plus, connection, logger) == 1)
            #expect(try await Self.prepared(times, connection, logger) == 1)
        }
    }

    @Test("a statement written with interpolations binds each value with its type, nil as NULL of its type")
    func anInterpolatedStatementBindsItsValuesWithTheirTypes() async throws {
        try await withConnection { connection, logger in
            // GIVEN a statement of a number, a missing text and a list of texts
            let (number, missing, names): (Int64, String?, [String]) = (2, nil, ["a", "b"])
            let statement: PreparableQuery = "SELECT \(number) * 21, \(missing) IS NULL, \(names)"
            #expect(statement.types == [.int8, .text, .textArray])

            // WHEN it is sent, prepared
            let row = try #require(try await connection.preparedRows(statement, logger: logger).first)

            // THEN the server had each value as it is
            let (product, isNull, list) = try row.decode((Int64, Bool, [String]).self)
            #expect(product == 42 && isNull && list == names)
        }
    }

    @Test("a statement whose plan depends on its values is planned for each, unprepared")
    func aStatementPlannedPerValueIsNotPrepared() async throws {
        try await withConnection { connection, logger in
            // GIVEN a statement with a search's condition
            let text = "SELECT $1 - 1"

            // WHEN it is sent twice
            for value: Int64 in [1, 2] {
                let rows = try await connection.preparedRows(
                    try Self.statement(text, value, plannedPerValue: true), logger: logger)
                #expect(try rows.first?.decode(Int64.self) == value - 1)
            }

            // THEN it answered, and nothing was prepared for it
            #expect(try await Self.prepared(text, connection, logger) == 0)
        }
    }

    @Test("a listing's first page is planned once on a connection; a page at an offset, for each request")
    func aFirstPageIsPlannedOnce() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        // Enough photos that a tenth of them is more than a page: the server's guess for a
        // placeholder in `LIMIT` or `OFFSET`.
        for batch in 0..<4 {
            try await store.ledger.commit((0..<500).map { Sample.photo("p\(batch)-\($0)") })
        }
        try store.close()
        let database = try await PhotoStorePostgres.PostgresDatabase.open(location, password: nil, logger: logger)
        defer { database.close() }
        try await database.read("a test") { [logger] connection in
            // GIVEN a listing's first page and a page at an offset, each read seven times on one
            // connection (the server plans the first five for their values whatever happens)
            for offset in [0, 30] {
                for _ in 0..<7 {
                    let listing = PostgresListing(
                        query: PhotoQuery(limit: 10, offset: offset), limits: ListingLimits(), anchors: .init(),
                        matches: .init(), sources: .init(), connection: connection, logger: logger, name: "test")
                    let page = try #require(try await listing.page())
                    let ids = try await page.rows(
                        "photo.id", from: "JOIN photo ON photo.id = page.id", connection, logger)
                    #expect(ids.count == 10)
                }
            }

            // THEN the first page's statement was then planned once, the other's never
            let plans = try await connection.guardedQuery(
                "SELECT generic_plans, statement LIKE '%OFFSET%' FROM pg_prepared_statements ORDER BY 2",
                logger: logger
            ).collect().map { try $0.decode((Int64, Bool).self) }
            #expect(plans.count == 2)
            #expect(plans.first.map { $0.0 > 0 && !$0.1 } == true, "\(plans)")
            #expect(plans.last.map { $0.0 == 0 && $0.1 } == true, "\(plans)")
        }
    }

    @Test("past the limit of texts, a new text has no prepared statement; those before keep theirs")
    func pastTheLimitANewTextIsNotPrepared() throws {
        // GIVEN room for two texts
        let shapes = PreparedShapes(limit: 2)
        let (first, second) = (try Self.statement("SELECT $1", 1), try Self.statement("SELECT $1 + 1", 1))
        let firstShape = try #require(shapes.shape(of: first))
        let secondShape = try #require(shapes.shape(of: second))

        // WHEN a third text comes, then the first again with another value
        let third = shapes.shape(of: try Self.statement("SELECT $1 + 2", 1))
        let again = try #require(shapes.shape(of: try Self.statement("SELECT $1", 5)))

        // THEN the third has none, and each text kept its own name
        #expect(third == nil)
        #expect(firstShape.name != secondShape.name)
        #expect(again.name == firstShape.name)
    }
}
