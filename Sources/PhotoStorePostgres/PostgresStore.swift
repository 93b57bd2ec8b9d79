import Logging
import PhotoStore

/// photosync's store in PostgreSQL: a ``PhotoStore`` whose parts are the `Postgres*` types, over
/// one pool of connections (``PostgresDatabase``), held by the contract suite to SQLite's
/// behaviour.
public enum PostgresStore {
    /// Connects to the database at `location` and migrates it to the current schema: what
    /// `run` opens.
    ///
    /// - Throws: `StoreError.cannotOpen` when the server cannot be reached or refuses the login,
    ///   `.notAPhotosyncDatabase` for a database with tables of another application,
    ///   `.newerSchema` when a newer photosync migrated it.
    public static func open(
        _ location: PostgresLocation, password: String?, logger: Logger
    ) async throws(StoreError) -> PhotoStore {
        let database = try await PostgresDatabase.open(location, password: password, logger: logger)
        do {
            try await PostgresSchema.migrate(database)
        } catch {
            database.close()
            throw error
        }
        return store(database)
    }

    /// Connects to the database at `location`, which must be photosync's at this build's schema,
    /// and changes nothing: what the commands that read open.
    ///
    /// A listing's total, the start of a deep page and a search's ranking may lag behind changes
    /// by `lag`: for a server under a writing daemon, whose every commit would otherwise have
    /// each of them made again for the next request.
    ///
    /// - Throws: as ``open(_:password:logger:)``, and `StoreError.missing` for a database that
    ///   holds no mirror yet, `.olderSchema` for one that `run` has to migrate first.
    public static func openExisting(
        _ location: PostgresLocation, password: String?, lag: Duration = .zero, logger: Logger
    ) async throws(StoreError) -> PhotoStore {
        let database = try await PostgresDatabase.open(location, password: password, logger: logger)
        do throws(StoreError) {
            let name = database.name
            let version = try await database.read("reading the schema's version") { connection in
                try await PostgresSchema.version(connection, name: name, logger: logger)
            }
            if version == 0 { throw StoreError.missing(path: name) }
            if version < PostgresSchema.migrations.count { throw StoreError.olderSchema(path: name) }
            if version > PostgresSchema.migrations.count { throw StoreError.newerSchema(path: name) }
        } catch {
            database.close()
            throw error
        }
        return store(database, lag: lag)
    }

    static func store(_ database: PostgresDatabase, lag: Duration = .zero) -> PhotoStore {
        PhotoStore(
            path: database.name, ledger: PostgresSyncLedger(database: database),
            imageQueue: PostgresImageQueue(database: database), archive: PostgresImageArchive(database: database),
            catalog: PostgresPhotoCatalog(database: database, lag: lag),
            photoDetails: SQLPhotoDetailsStore(sql: PostgresExecutor(database: database)),
            storage: PostgresStorage(database: database),
            files: nil, transfer: PostgresStoreTransfer(database: database),
            holdsWriterRole: { [fence = database.fence] in fence.mayAct() })
    }
}
