import Foundation
import Logging
import PhotoStore
import PostgresNIO
import Synchronization

/// The primary of a standby that `serve` reads: where the few rows `serve` writes (its clients'
/// download requests and requests for photos' details) go, so that `run` on the primary sees
/// them. A hot standby takes no writes.
///
/// The connection is made at the first request, and made again after a failure, at most every
/// ``retryInterval``: a primary that is away (a failover under way) fails the requests that
/// come meanwhile with `StoreError.unavailable`, which `serve` answers 503, while its reads go on
/// from the standby. Before its first write, the primary is checked to be the one the standby
/// replicates: the same cluster (`pg_control_system()`'s identifier) and the same database, and
/// not in recovery itself.
public final class PostgresPrimary: Sendable {
    let location: PostgresLocation
    let password: String?
    let logger: Logger
    /// The standby's cluster and database, which the primary's must be.
    let expected: Identity?
    static let retryInterval: Duration = .seconds(5)

    private enum State {
        case closed
        case opening(Task<PostgresDatabase, any Error>)
        case open(PostgresDatabase)
        case failed(StoreError, at: ContinuousClock.Instant)
    }

    private let state = Mutex(State.closed)

    /// A physical copy of a database: the cluster's system identifier and the database's oid,
    /// which a standby shares with its primary.
    public struct Identity: Sendable, Equatable {
        let system: Int64
        let database: Int64
    }

    /// The primary at `location`, for a standby whose identity is `expected` (nil: not checked).
    public init(_ location: PostgresLocation, password: String?, expected: Identity?, logger: Logger) {
        self.location = location
        self.password = password
        self.expected = expected
        self.logger = logger
    }

    /// The identity of the database `store` opened, when it is PostgreSQL's.
    public static func identity(of store: PhotoStore) async throws(StoreError) -> Identity? {
        guard let storage = store.storage as? PostgresStorage else { return nil }
        return try await identity(storage.database)
    }

    static func identity(_ database: PostgresDatabase) async throws(StoreError) -> Identity {
        let logger = database.logger
        return try await database.read("reading which cluster and database this is") { connection in
            let (system, oid) = try await connection.guardedQuery(
                """
                SELECT system_identifier, (SELECT oid FROM pg_database WHERE datname = current_database())::int8
                FROM pg_control_system()
                """, logger: logger
            ).collect()[0].decode((Int64, Int64).self)
            return Identity(system: system, database: oid)
        }
    }

    /// The primary's database, connected and checked; made again after a failure once
    /// ``retryInterval`` has passed.
    /// - Throws: the failure of the last attempt: `StoreError.unavailable`, or
    ///   `.connectionMisconfigured` when the database is not this standby's primary.
    func database() async throws(StoreError) -> PostgresDatabase {
        enum Next {
            case ready(PostgresDatabase)
            case wait(Task<PostgresDatabase, any Error>)
        }
        let next = try state.withLock { (state) throws(StoreError) -> Next in
            switch state {
            case .open(let database): return .ready(database)
            case .opening(let task): return .wait(task)
            case .failed(let error, let at) where ContinuousClock.now - at < Self.retryInterval: throw error
            case .closed, .failed:
                let task = Task { [self] in try await connect() }
                state = .opening(task)
                return .wait(task)
            }
        }
        let opening: Task<PostgresDatabase, any Error>
        switch next {
        case .ready(let database): return database
        case .wait(let task): opening = task
        }
        do {
            let database = try await opening.value
            state.withLock { if case .opening = $0 { $0 = .open(database) } }
            return database
        } catch {
            let failure =
                error as? StoreError ?? .unavailable(path: location.description, reason: PostgresDatabase.reason(error))
            state.withLock { if case .opening = $0 { $0 = .failed(failure, at: .now) } }
            throw failure
        }
    }

    private func connect() async throws(StoreError) -> PostgresDatabase {
        let database = try await PostgresDatabase.open(
            location, password: password, applicationName: "photosync serve (requests)", logger: logger)
        do throws(StoreError) {
            let standby = try await PostgresStorage(database: database).standby()
            if standby != nil {
                throw StoreError.connectionMisconfigured(
                    path: location.description,
                    reason: "primary_database names a standby too: it takes no writes; name the primary")
            }
            if let expected, try await Self.identity(database) != expected {
                throw StoreError.connectionMisconfigured(
                    path: location.description,
                    reason: "primary_database names another database than the one serve reads: it must be "
                        + "the primary this standby replicates")
            }
        } catch {
            database.close()
            throw error
        }
        return database
    }

    /// Connects now, so that a primary that is not this standby's is said at the start; one that
    /// cannot be reached is tried again at the first request.
    /// - Returns: the reason the primary cannot be reached now, nil when it was.
    /// - Throws: `StoreError.connectionMisconfigured` and other failures but `.unavailable`.
    public func check() async throws(StoreError) -> String? {
        do {
            _ = try await database()
            return nil
        } catch {
            if case .unavailable(_, let reason) = error { return reason }
            throw error
        }
    }

    /// Where `serve` records its clients' download requests: the primary.
    public var downloadRequests: any DownloadRequests { SQLDownloadRequests(sql: PrimaryExecutor(primary: self)) }

    /// Where `serve` records its clients' requests for photos' details: the primary.
    public var photoDetailsRequests: any PhotoDetailsRequests {
        SQLPhotoDetailsRequests(sql: PrimaryExecutor(primary: self))
    }

    /// Closes the connection, once made.
    public func close() {
        let open: PostgresDatabase? = state.withLock { state in
            defer { state = .closed }
            if case .open(let database) = state { return database }
            return nil
        }
        open?.close()
    }
}

/// Statements run on the primary, connected on their first use.
private struct PrimaryExecutor: SQLExecutor {
    let primary: PostgresPrimary
    var path: String { primary.location.description }

    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        try await PostgresExecutor(database: primary.database()).read(operation(), statements, decode)
    }

    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        try await PostgresExecutor(database: primary.database()).write(operation(), statements, decode)
    }
}
