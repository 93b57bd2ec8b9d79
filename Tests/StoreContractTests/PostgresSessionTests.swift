import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import PostgresNIO
import Synchronization
import TestSupport
import Testing

@testable import PhotoStorePostgres

/// What photosync sets for its work on PostgreSQL it sets in each transaction, never for the
/// session, so that a connection pooler passes it; and a pooler that moves a client's
/// transactions between server connections costs prepared statements, never a request.
@Suite("PostgreSQL's sessions, as a pooler passes them", .timeLimit(.minutes(5)))
struct PostgresSessionTests {
    let logger = Logger(label: "photosync.contract")

    /// `synchronous_commit` as a write transaction sees it, and as a read sees it after.
    func synchronousCommit(_ database: PhotoStorePostgres.PostgresDatabase) async throws -> (
        inWrite: String, afterwards: String
    ) {
        let logger = logger
        let inWrite = try await database.write("a test") { connection in
            try await connection.strings("SELECT current_setting('synchronous_commit')", logger: logger)[0]
        }
        let afterwards = try await database.read("a test") { connection in
            try await connection.strings("SELECT current_setting('synchronous_commit')", logger: logger)[0]
        }
        return (inWrite, afterwards)
    }

    @Test("every write transaction commits without waiting for the disk, with or without the lease")
    func writeTransactionsSetSynchronousCommitThemselves() async throws {
        // GIVEN a database whose sessions wait for the disk (the tests' cluster does not), its
        // store at first with no lease, then as the lease's holder
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let name = try #require(URLComponents(string: url)?.path.dropFirst())
        try await PostgresTestCluster.shared.execute("ALTER DATABASE \(name) SET synchronous_commit = on", in: url)
        let database = try await PhotoStorePostgres.PostgresDatabase.open(
            try PostgresLocation(parsing: url), password: nil, logger: logger)
        defer { database.close() }
        try await PostgresSchema.migrate(database)
        let without = try await synchronousCommit(database)
        let lease = try await PostgresWriterLease.acquire(
            database, host: "host-a", pid: 1, timing: PostgresWriterLeaseTests.long)
        let with = try await synchronousCommit(database)
        await lease.release()

        // THEN each write transaction had it off, and the session (the server's default) did not
        #expect(without.inWrite == "off" && with.inWrite == "off")
        #expect(without.afterwards == "on" && with.afterwards == "on")
    }

    @Test("a statement that is its own transaction sets it in itself")
    func aStatementOfItsOwnSetsItInItself() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let database = try await PhotoStorePostgres.PostgresDatabase.open(
            try PostgresLocation(parsing: url), password: nil, logger: logger)
        defer { database.close() }
        let logger = logger
        let setting = try await database.writeStatement("a test") { connection, _ in
            try await connection.strings(
                """
                SELECT current_setting('synchronous_commit') FROM (
                    SELECT \(unescaped: PhotoStorePostgres.PostgresDatabase.transactionSettings) AS set
                ) AS settings WHERE settings.set
                """, logger: logger)
        }
        #expect(setting == ["off"])
    }

    @Test("a prepared statement the server lost is run again unprepared, and nothing is prepared after")
    func aLostPreparedStatementIsRunAgainUnpreparedAndPreparationStops() async throws {
        // GIVEN a database whose connection prepared a statement the server then forgot, as a
        // pooler in transaction mode forgets it by running the next transaction elsewhere
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let database = try await PhotoStorePostgres.PostgresDatabase.open(
            try PostgresLocation(parsing: url), password: nil, logger: logger)
        defer { database.close() }
        let statement = try PostgresPreparedRowsTests.statement("SELECT $1 + 1", 41)
        let runs = Mutex(0)
        let logger = logger

        // WHEN it is run again on that connection
        let answer = try await database.read("a test") { connection in
            runs.withLock { $0 += 1 }
            _ = try await connection.preparedRows(statement, logger: logger)
            try await connection.guardedQuery("DEALLOCATE ALL", logger: logger)
            return try await connection.preparedRows(statement, logger: logger).first?.decode(Int64.self)
        }

        // THEN the read was run again and answered, and the database prepares nothing more
        #expect(answer == 42)
        #expect(runs.withLock { $0 } == 2)
        #expect(!database.shapes.isPreparing)
        let prepared = try await database.read("a test") { connection in
            _ = try await connection.preparedRows(statement, logger: logger)
            return try await connection.integer("SELECT count(*) FROM pg_prepared_statements", logger: logger)
        }
        #expect(prepared == 0)
    }

    @Test("two texts never share a prepared statement's name, in any process")
    func aStatementsNameIsDrawnFromItsTextAndTypes() throws {
        let (one, other) = (PreparedShapes(limit: 10), PreparedShapes(limit: 10))
        let plus = try #require(one.shape(of: try PostgresPreparedRowsTests.statement("SELECT $1 + 1", 1)))
        let times = try #require(one.shape(of: try PostgresPreparedRowsTests.statement("SELECT $1 * 10", 1)))
        // Another process (another instance) names the same text the same, whatever came first.
        let plusElsewhere = try #require(other.shape(of: try PostgresPreparedRowsTests.statement("SELECT $1 + 1", 1)))
        #expect(plus.name != times.name)
        #expect(plus.name == plusElsewhere.name)
    }
}
