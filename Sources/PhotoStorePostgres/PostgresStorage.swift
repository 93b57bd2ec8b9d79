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

    /// A hot standby is in recovery. It is caught up when it has replayed all the primary's
    /// changes it received and still receives them; otherwise it is as far behind as the last
    /// transaction it replayed is old. Each function here is open to any user, and a WAL
    /// receiver's row is visible to all (its details only to `pg_read_all_stats`).
    func standby() async throws(StoreError) -> StandbyState? {
        let logger = database.logger
        return try await database.read("reading whether the database is a standby") { connection in
            let row = try await connection.guardedQuery(
                """
                SELECT pg_is_in_recovery(), EXISTS (SELECT 1 FROM pg_stat_wal_receiver),
                    pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn(),
                    extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
                """, logger: logger
            ).collect()[0]
            let (recovering, receiving, replayedAll, age) = try row.decode((Bool, Bool, Bool, Double?).self)
            guard recovering else { return nil }
            let lag: Duration? =
                receiving && replayedAll ? .zero : age.map { .milliseconds(Int64(max(0, $0) * 1000)) }
            return StandbyState(lag: lag, receiving: receiving)
        }
    }

    func close() throws(StoreError) {
        database.close()
    }
}
