import Foundation
import PhotoStore
import PostgresNIO

/// The storage under a PostgreSQL store: the server keeps its own files (autovacuum, its
/// write-ahead log, checkpoints), so the upkeep SQLite needs from photosync has nothing to do
/// here, and the sizes are the database's as the server counts them.
struct PostgresStorage: StoreStorage {
    let database: PostgresDatabase

    /// No file of photosync's: the server's sizes are in `status`'s statistics, not here.
    var fileSizes: DatabaseFileSizes { DatabaseFileSizes(database: 0, wal: 0) }

    /// The server gives freed space back by itself (autovacuum).
    func hasIncrementalVacuum() async throws(StoreError) -> Bool { true }

    func enableIncrementalVacuum(
        freeDisk: Int64, largest: Int64, starting: (Int64) -> Void
    ) async throws(StoreError) -> IncrementalVacuumConversion {
        .alreadyIncremental
    }

    func incrementalVacuum(maxPages: Int) async throws(StoreError) -> Int { 0 }

    func checkpoint() async throws(StoreError) {}

    func checkpointPassively() async throws(StoreError) {}

    func backup(
        to destination: String, progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws(StoreError) {
        throw .databaseFailure(
            path: database.name, operation: "backing up to \(destination)", code: nil,
            reason: "a PostgreSQL database is backed up with pg_dump")
    }

    func openDownloadRequests() throws(StoreError) -> any DownloadRequests {
        PostgresDownloadRequests(database: database)
    }

    func openPhotoDetailsRequests() throws(StoreError) -> any PhotoDetailsRequests {
        PostgresPhotoDetailsRequests(database: database)
    }

    func writerLease() async throws(StoreError) -> WriterLeaseHolder? {
        try await PostgresWriterLease.current(database)
    }

    func close() throws(StoreError) {
        database.close()
    }
}
