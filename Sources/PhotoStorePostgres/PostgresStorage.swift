import Foundation
import PhotoStore
import PostgresNIO

/// The storage under a PostgreSQL store. The server keeps its own files (autovacuum, its
/// write-ahead log, checkpoints, `pg_dump`), so this driver offers no ``FileStorage``.
struct PostgresStorage: StoreStorage {
    let database: PostgresDatabase

    func openDownloadRequests() throws(StoreError) -> any DownloadRequests {
        SQLDownloadRequests(sql: PostgresExecutor(database: database))
    }

    func openPhotoDetailsRequests() throws(StoreError) -> any PhotoDetailsRequests {
        SQLPhotoDetailsRequests(sql: PostgresExecutor(database: database))
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
