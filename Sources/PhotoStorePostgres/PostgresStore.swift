import Logging
import PhotoStore

/// photosync's store in PostgreSQL, as far as it is built: the connection, the schema and its
/// identity checks, the ledger (``SyncLedger``), the image queue (``ImageQueue``) and the archive
/// (``ImageArchive``), which the contract suite holds to SQLite's behaviour. The other parts follow; once they exist this opens a ``PhotoStore`` and
/// `--database postgres://...` reaches it.
public final class PostgresStore: Sendable {
    let database: PostgresDatabase
    /// Pages, cursors, sources, rejected photos, download tracking and source objects.
    public let ledger: any SyncLedger
    /// The image download queue.
    public let imageQueue: any ImageQueue
    /// Image bytes: stored in chunk rows with their status, streamed, verified.
    public let archive: any ImageArchive

    private init(database: PostgresDatabase) {
        self.database = database
        ledger = PostgresSyncLedger(database: database)
        imageQueue = PostgresImageQueue(database: database)
        archive = PostgresImageArchive(database: database)
    }

    /// Connects to the database at `location` and migrates it to the current schema.
    ///
    /// - Throws: `StoreError.cannotOpen` when the server cannot be reached or refuses the login,
    ///   `.notAPhotosyncDatabase` for a database with tables of another application,
    ///   `.newerSchema` when a newer photosync migrated it.
    public static func open(
        _ location: PostgresLocation, password: String?, logger: Logger
    ) async throws(StoreError) -> PostgresStore {
        let database = try await PostgresDatabase.open(location, password: password, logger: logger)
        do {
            try await PostgresSchema.migrate(database)
        } catch {
            database.close()
            throw error
        }
        return PostgresStore(database: database)
    }

    /// Closes the connections; every later call throws.
    public func close() {
        database.close()
    }
}
