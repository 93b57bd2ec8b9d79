import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

@testable import PhotoStorePostgres

/// A search by colour on PostgreSQL reads its colour's partial index, which a database of an
/// older version gets when the writer migrates it.
@Suite("PostgreSQL's colour indexes", .timeLimit(.minutes(5)))
struct PostgresColorIndexTests {
    let logger = Logger(label: "photosync.contract")

    @Test("a version 4 database is given an index for each colour, and a listing by colour reads its own")
    func aListingByColourReadsItsColoursIndex() async throws {
        // GIVEN a database as version 4 left it, without the colour indexes, a blue photo and a red one
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit([
            Sample.photo("blue", created: 100, color: "#1a3fd0"),
            Sample.photo("red", created: 200, color: "#d01a1a"),
        ])
        try store.close()
        try await PostgresTestCluster.shared.execute(
            "UPDATE photosync_schema SET version = 4; \(PostgresSchemaTests.withoutVersion5)", in: url)

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN the listing's condition for blue is the one blue's index holds, and the server
        // reads that index for a page of blue photos most recently stored first (a search's
        // order when it matches too many photos to rank)
        var blue = PhotoQuery()
        blue.color = .blue
        var sql = PostgresListing.SQL()
        try PostgresListing.filter(blue, source: nil, dates: true, into: &sql)
        let plan = try await PostgresTestCluster.shared.query(
            """
            SET enable_seqscan = off;
            EXPLAIN SELECT photo.id FROM photo \(sql.whereClause()) ORDER BY photo.sequence DESC LIMIT 30
            """, in: url)
        #expect(plan.contains("Index Scan Backward using photo_color_blue on photo"), "\(plan)")
        // AND every colour has its index, and the answer is the blue photo's
        let made = try await PostgresTestCluster.shared.query(
            "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'photo\\_color\\_%' ORDER BY indexname", in: url)
        #expect(made.split(separator: "\n").map(String.init) == PostgresSchemaTests.colorIndexes.sorted())
        #expect(try await migrated.catalog.photos(matching: blue).map(\.id) == ["blue"])
    }
}
