import Foundation
import Logging
import PhotoStore
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// The one-writer rule on PostgreSQL: a lease in the database, where every host sees it (SQLite's
/// lock file means nothing to another host). One row names its holder (host, PID, a random
/// instance id) and an `epoch` that grows with every new holder; the holder renews it every
/// ``renewal`` until ``duration`` after the server's clock, and gives it up when it stops.
///
/// A lease whose holder stopped renewing (killed, its host gone) is free once it expires. One
/// held by a process of this host that no longer exists is free at once, so that a `run`
/// restarted after `kill -9` does not wait out the lease. Times are the server's, so hosts'
/// clocks do not matter.
public final class PostgresWriterLease: Sendable {
    /// How long a lease holds without renewal.
    public static let duration: Duration = .seconds(15)
    /// How often the holder renews it.
    public static let renewal: Duration = .seconds(5)

    /// Who holds the lease: what `run` names when it cannot take it.
    public struct Holder: Sendable, Equatable {
        public var host: String
        public var pid: Int32
    }

    /// The lease's table, in the schema's first version.
    static let schema: [String] = [
        """
        CREATE TABLE writer_lease (
            id integer PRIMARY KEY CHECK (id = 1),
            host text NOT NULL,
            pid integer NOT NULL,
            instance text NOT NULL,
            epoch bigint NOT NULL CHECK (epoch > 0),
            renewed_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        )
        """
    ]

    let database: PostgresDatabase
    /// This holder's own id: a new one for every process.
    let instance: String
    /// The epoch this holder took the lease at.
    public let epoch: Int64
    private let renewing: Task<Void, Never>

    private init(database: PostgresDatabase, instance: String, epoch: Int64) {
        self.database = database
        self.instance = instance
        self.epoch = epoch
        renewing = Task { [database] in
            var lost = false
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.renewal)
                guard !Task.isCancelled else { return }
                do {
                    let renewed = try await Self.renew(database, instance: instance, epoch: epoch)
                    if !renewed && !lost {
                        database.logger.error("lost the writer lease of \(database.name): another run took it")
                    }
                    lost = !renewed
                } catch {
                    database.logger.warning("could not renew the writer lease: \(error.localizedDescription)")
                }
            }
        }
    }

    /// Takes the lease for this process (`host`, `pid`).
    /// - Throws: `WriterLockError.leased` naming the holder when another process holds it;
    ///   a `StoreError` when the database cannot be reached.
    static func acquire(
        _ database: PostgresDatabase, host: String, pid: Int32
    ) async throws -> PostgresWriterLease {
        let instance = UUID().uuidString
        let (logger, seconds) = (database.logger, Int(duration.components.seconds))
        let taken = try await database.write("taking the writer lease") {
            connection -> Result<Int64, WriterLockError> in
            let holder = try await connection.guardedQuery(
                "SELECT host, pid, expires_at <= now() FROM writer_lease WHERE id = 1 FOR UPDATE", logger: logger
            ).collect().first?.decode((String, Int32, Bool).self)
            if let (holderHost, holderPID, expired) = holder, !expired,
                !(holderHost == host && !Self.isRunning(holderPID))
            {
                return .failure(.leased(database: database.name, host: holderHost, pid: holderPID))
            }
            let epoch = try await connection.guardedQuery(
                """
                INSERT INTO writer_lease AS lease (id, host, pid, instance, epoch, renewed_at, expires_at)
                VALUES (1, \(host), \(pid), \(instance), 1, now(), now() + make_interval(secs => \(seconds)))
                ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid,
                    instance = excluded.instance, epoch = lease.epoch + 1, renewed_at = excluded.renewed_at,
                    expires_at = excluded.expires_at
                RETURNING epoch
                """, logger: logger
            ).collect()[0].decode(Int64.self)
            return .success(epoch)
        }
        let epoch = try taken.get()
        logger.info("took the writer lease", metadata: ["database": "\(database.name)", "epoch": "\(epoch)"])
        return PostgresWriterLease(database: database, instance: instance, epoch: epoch)
    }

    /// Whether a process `pid` runs on this host.
    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    private static func renew(_ database: PostgresDatabase, instance: String, epoch: Int64) async throws -> Bool {
        let (logger, seconds) = (database.logger, Int(duration.components.seconds))
        return try await database.write("renewing the writer lease") { connection in
            try await !connection.guardedQuery(
                """
                UPDATE writer_lease SET renewed_at = now(), expires_at = now() + make_interval(secs => \(seconds))
                WHERE id = 1 AND instance = \(instance) AND epoch = \(epoch)
                RETURNING epoch
                """, logger: logger
            ).collect().isEmpty
        }
    }

    /// Gives the lease up, so that the next `run`, on any host, takes it at once.
    public func release() async {
        renewing.cancel()
        let (logger, instance) = (database.logger, instance)
        _ = try? await database.write("giving up the writer lease") { connection in
            try await connection.guardedQuery(
                "UPDATE writer_lease SET expires_at = '-infinity' WHERE id = 1 AND instance = \(instance)",
                logger: logger)
        }
    }
}

extension PostgresStore {
    /// Opens the store for `run`: takes the writer lease for this process, then migrates.
    /// - Throws: `WriterLockError.leased` naming the holder when another `run` writes the
    ///   database; a `StoreError` as ``open(_:password:logger:)``.
    public static func openForWriting(
        _ location: PostgresLocation, password: String?, host: String, pid: Int32, logger: Logger
    ) async throws -> (PhotoStore, PostgresWriterLease) {
        let database = try await PostgresDatabase.open(location, password: password, logger: logger)
        do {
            try await PostgresSchema.migrate(database)
            let lease = try await PostgresWriterLease.acquire(database, host: host, pid: pid)
            return (store(database), lease)
        } catch {
            database.close()
            throw error
        }
    }
}
