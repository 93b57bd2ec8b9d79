import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import TestSupport
import Testing

/// PostgreSQL keeps the tracking marks beside the photos (schema version 6): a mark leaves the
/// photo's row, and its many indexes, as they are, and a database of an older version keeps its
/// marks when the writer migrates it.
@Suite("PostgreSQL's tracking marks", .timeLimit(.minutes(5)))
struct PostgresTrackingTests {
    let logger = Logger(label: "photosync.contract")

    @Test func aMarkLeavesThePhotosRowAsItIs() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let store = try await PostgresStore.open(try PostgresLocation(parsing: url), password: nil, logger: logger)
        defer { try? store.close() }
        try await store.ledger.commit([Sample.photo("a")])
        try await store.archive.storeImages([ArchiveContractTests.image("a", Data([1, 2, 3]))])
        #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a"])
        // `xmin` names the transaction that wrote a row's version: a row updated gets a new one.
        let rowVersion = "SELECT xmin FROM photo WHERE id = 'a'"
        let before = try await PostgresTestCluster.shared.query(rowVersion, in: url)

        try await store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(20))
        try await store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(30))

        #expect(try await PostgresTestCluster.shared.query(rowVersion, in: url) == before)
        #expect(try await store.catalog.photo(id: "a")?.downloadTrackedAt == Instant.t(20), "the first time is kept")
        #expect(try await store.ledger.pendingDownloadTracking(limit: 10).isEmpty)
    }

    @Test func aDownloadIsDueOnceItsImageIsStoredOrAClientAsksAndThePhotoHasALocation() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let store = try await PostgresStore.open(try PostgresLocation(parsing: url), password: nil, logger: logger)
        defer { try? store.close() }
        var unlocated = Sample.photo("b")
        unlocated.downloadLocation = nil
        try await store.ledger.commit([Sample.photo("a"), unlocated, Sample.photo("c")])
        // Listed is not due: only the downloads due have rows, so finding them reads no others.
        let rows = "SELECT count(*) FROM download_tracking"
        #expect(try await PostgresTestCluster.shared.query(rows, in: url) == "0")

        try await store.archive.storeImages([
            ArchiveContractTests.image("a", Data([1])), ArchiveContractTests.image("b", Data([2])),
        ])
        let requests = try store.storage.openDownloadRequests()
        _ = try await requests.record(photoID: "c", at: Instant.t(5))
        try requests.close()
        #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a", "c"])

        // A photo whose listing gains a download location after its image was stored is due then.
        try await store.ledger.commit([Sample.photo("b")])
        #expect(try await store.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["a", "b", "c"])
        #expect(try await PostgresTestCluster.shared.query(rows, in: url) == "3")
    }

    @Test func aVersion5DatabaseKeepsItsMarksWhenMigrated() async throws {
        // GIVEN a database as version 5 left it: a photo tracked, one with its image stored and
        // not tracked yet, and one with no image
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit([Sample.photo("tracked"), Sample.photo("due"), Sample.photo("later")])
        try await store.archive.storeImages([
            ArchiveContractTests.image("tracked", Data([1])), ArchiveContractTests.image("due", Data([2])),
        ])
        try await store.ledger.markDownloadsTracked(photoIDs: ["tracked"], at: Instant.t(20))
        try store.close()
        try await PostgresTestCluster.shared.execute(
            "UPDATE photosync_schema SET version = 5; \(PostgresSchemaTests.withoutVersion6)", in: url)
        let kept = try await PostgresTestCluster.shared.query(
            "SELECT id FROM photo WHERE download_tracked_at IS NOT NULL", in: url)
        #expect(kept == "tracked")

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN the mark is where the photo's reads find it, the photo due is due, and the
        // column is gone from the photos' rows
        #expect(try await migrated.catalog.photo(id: "tracked")?.downloadTrackedAt == Instant.t(20))
        #expect(try await migrated.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["due"])
        let columns = try await PostgresTestCluster.shared.query(
            "SELECT count(*) FROM information_schema.columns WHERE column_name = 'download_tracked_at'", in: url)
        #expect(columns == "0")
        // AND a photo whose image is stored after the migration is due
        try await migrated.archive.storeImages([ArchiveContractTests.image("later", Data([3]))])
        #expect(try await migrated.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == ["due", "later"])
    }
}
