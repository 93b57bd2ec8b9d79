import Foundation
import Logging
import PhotoStore
import PostgresNIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one-writer rule on PostgreSQL: a lease in the database, where every host sees it (SQLite's
/// lock file means nothing to another host). One row names its holder (host, PID, a random
/// instance id) and an `epoch` that grows with every new holder; the holder renews it every
/// third of its ``Timing/duration``, and gives it up when it stops.
///
/// A lease whose holder stopped renewing (killed, paused, its host cut off) is free once it
/// expires; a standby ``acquire(_:host:pid:timing:standby:)`` waiting for it then takes it, with
/// the next epoch. One held by a process of this host that no longer exists is free at once, so
/// that a `run` restarted after `kill -9` does not wait out the lease. Times are the server's, so
/// hosts' clocks do not matter.
///
/// The epoch fences the holder's writes (``WriterFence``): after a standby took over, a holder
/// that comes back writes nothing, and learns that it lost the lease (``lost()``).
///
/// The lease is a row and every check is a statement in a transaction, so it holds through a
/// connection pooler in transaction mode (PgBouncer), where session advisory locks do not.
public final class PostgresWriterLease: Sendable {
    /// How long a lease holds, and how often the holder and a standby look at it.
    public struct Timing: Sendable, Equatable {
        /// How long a lease holds without renewal: after the holder is killed or cut off, the
        /// standby takes over within this, and ``poll``.
        public var duration: Duration
        /// How often the holder renews it: a third of ``duration``, so two renewals may fail
        /// before it expires.
        public var renewal: Duration { duration / 3 }
        /// How often a standby looks whether the lease is free.
        public var poll: Duration

        public init(duration: Duration, poll: Duration = .seconds(1)) {
            self.duration = duration
            self.poll = poll
        }

        /// 15 s: a standby takes over within about 16 s of the holder's end.
        public static let standard = Timing(duration: .seconds(15))
    }

    /// Who holds the lease, as the row says: what `run` names when it cannot take it, what a
    /// standby and `status` show.
    public typealias Holder = WriterLeaseHolder

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
    /// This holder's own id: a new one for every lease taken.
    let instance: String
    /// The host and process that hold it.
    public let host: String
    public let pid: Int32
    /// The epoch this holder took the lease at.
    public let epoch: Int64
    public let timing: Timing
    private let renewing: Task<Void, Never>

    private init(
        database: PostgresDatabase, instance: String, host: String, pid: Int32, epoch: Int64, timing: Timing
    ) {
        self.database = database
        self.instance = instance
        self.host = host
        self.pid = pid
        self.epoch = epoch
        self.timing = timing
        renewing = Task { [database] in
            await Self.keepRenewing(database, instance: instance, epoch: epoch, timing: timing)
        }
    }

    /// Whether the lease was lost (taken by another process, or expired unrenewed), rather than
    /// given up by ``release()``.
    public var wasLost: Bool { database.fence.wasLost }

    /// When the holder last sent a renewal the server accepted; nil once the lease is lost.
    public var renewedAt: ContinuousClock.Instant? { database.fence.renewedAt }

    /// Returns once the lease is lost: another process took it, or it could not be renewed for
    /// its whole duration. One caller at a time.
    public func lost() async { await database.fence.lost() }

    /// Takes the lease for this process (`host`, `pid`).
    ///
    /// With a `standby` handler, waits while another process holds the lease: `standby` is told
    /// of the holder at each look (every ``Timing/poll``), and the lease is taken once it is
    /// free (given up, expired, or held by a process of this host that has ended). Cancelling the
    /// calling task ends the wait with `CancellationError`.
    /// - Throws: `WriterLockError.leased` naming the holder when another process holds it and
    ///   there is no `standby`; a `StoreError` when the database cannot be reached.
    static func acquire(
        _ database: PostgresDatabase, host: String, pid: Int32, timing: Timing,
        standby: (@Sendable (Holder) -> Void)? = nil
    ) async throws -> PostgresWriterLease {
        while true {
            let instance = UUID().uuidString
            switch try await unlessCancelled({
                try await attempt(database, host: host, pid: pid, instance: instance, timing: timing)
            }) {
            case .taken(let epoch, let sent):
                database.fence.hold(.init(instance: instance, epoch: epoch), sent: sent, duration: timing.duration)
                database.logger.notice(
                    "took the writer lease", metadata: ["database": "\(database.name)", "epoch": "\(epoch)"])
                return PostgresWriterLease(
                    database: database, instance: instance, host: host, pid: pid, epoch: epoch, timing: timing)
            case .busy where standby != nil:
                // A transaction of the holder still has the row: it is alive, or the server has
                // yet to see that it is not.
                try await Task.sleep(for: timing.poll)
            case .busy(let error):
                throw error
            case .leased(let error):
                guard let standby, let holder = try await unlessCancelled({ try await current(database) }) else {
                    throw error
                }
                standby(holder)
                try await Task.sleep(for: timing.poll)
            }
        }
    }

    /// `body`'s value; `CancellationError` when it fails in a cancelled task: a look at the lease
    /// (or the opening of the connection, or the migration) cut short by the cancellation fails
    /// as a lost connection would, and a standby that is told to stop is not one whose database
    /// is away.
    static func unlessCancelled<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// What one attempt at taking the lease found.
    private enum Attempt {
        /// Taken, by a statement sent at `sent`.
        case taken(epoch: Int64, sent: ContinuousClock.Instant)
        /// Another process holds it.
        case leased(WriterLockError)
        /// A transaction of the holder kept the row past the wait.
        case busy(StoreError)
    }

    /// One attempt at taking the lease, in one transaction.
    private static func attempt(
        _ database: PostgresDatabase, host: String, pid: Int32, instance: String, timing: Timing
    ) async throws(StoreError) -> Attempt {
        do {
            return switch try await take(database, host: host, pid: pid, instance: instance, timing: timing) {
            case .success(let (epoch, sent)): .taken(epoch: epoch, sent: sent)
            case .failure(let error): .leased(error)
            }
        } catch {
            if case .busy = error { return .busy(error) }
            throw error
        }
    }

    /// One attempt at taking the lease, in one transaction: `.leased` when another process holds it.
    private static func take(
        _ database: PostgresDatabase, host: String, pid: Int32, instance: String, timing: Timing
    ) async throws(StoreError) -> Result<(Int64, ContinuousClock.Instant), WriterLockError> {
        let (logger, milliseconds) = (database.logger, Self.milliseconds(timing.duration))
        return try await database.write("taking the writer lease", lane: .lease) {
            connection -> Result<(Int64, ContinuousClock.Instant), WriterLockError> in
            // A holder's write transaction under way has the row: wait for it, but not for long.
            try await connection.guardedQuery("SET LOCAL lock_timeout = 2000", logger: logger)
            let holder = try await connection.guardedQuery(
                "SELECT host, pid, expires_at <= clock_timestamp() FROM writer_lease WHERE id = 1 FOR UPDATE",
                logger: logger
            ).collect().first?.decode((String, Int32, Bool).self)
            if let (holderHost, holderPID, expired) = holder, !expired, holderHost != host || Self.isRunning(holderPID),
                holderHost != host || holderPID != pid
            {
                return .failure(.leased(database: database.name, host: holderHost, pid: holderPID))
            }
            // The lease runs from this statement, not from the transaction's start: the wait for
            // the row above must not eat into it (hence clock_timestamp(), not now()).
            let sent = ContinuousClock.now
            let epoch = try await connection.guardedQuery(
                """
                INSERT INTO writer_lease AS lease (id, host, pid, instance, epoch, renewed_at, expires_at)
                VALUES (
                    1, \(host), \(pid), \(instance), 1, clock_timestamp(),
                    clock_timestamp() + make_interval(secs => \(milliseconds) / 1000.0))
                ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid,
                    instance = excluded.instance, epoch = lease.epoch + 1, renewed_at = excluded.renewed_at,
                    expires_at = excluded.expires_at
                RETURNING epoch
                """, logger: logger
            ).collect()[0].decode(Int64.self)
            return .success((epoch, sent))
        }
    }

    /// The lease as its row says now; nil when no `run` ever took it.
    static func current(_ database: PostgresDatabase) async throws(StoreError) -> Holder? {
        let logger = database.logger
        return try await database.read("reading the writer lease") { connection in
            try await connection.guardedQuery(
                """
                SELECT host, pid, epoch, extract(epoch FROM now() - renewed_at)::float8, expires_at <= now()
                FROM writer_lease WHERE id = 1
                """, logger: logger
            ).collect().first.map { row in
                let (host, pid, epoch, ago, expired) = try row.decode((String, Int32, Int64, Double, Bool).self)
                return Holder(
                    host: host, pid: pid, epoch: epoch, renewedAgo: .milliseconds(Int64(max(0, ago) * 1000)),
                    expired: expired)
            }
        }
    }

    /// Whether a process `pid` runs on this host.
    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Renews the lease every ``Timing/renewal``, and, once a second, judges it by this process's
    /// clock. A renewal the server refuses (another process took the lease) loses it at once; one
    /// that fails or hangs (the server away, this host cut off) loses it once the last accepted
    /// one is older than the lease's duration, because a standby may take it from then on.
    private static func keepRenewing(
        _ database: PostgresDatabase, instance: String, epoch: Int64, timing: Timing
    ) async {
        let fence = database.fence
        // The renewal under way runs in a task of its own and leaves its outcome here, so that a
        // hung one does not keep this loop from judging the lease by the clock.
        let outcome = Outcome()
        var inFlight = false
        var lastSent = ContinuousClock.now
        var warned = false
        while !Task.isCancelled {
            try? await Task.sleep(for: min(timing.poll, timing.renewal / 4))
            guard !Task.isCancelled else { return }
            switch outcome.take() {
            case .success(true)?:
                inFlight = false
                fence.renewed(sent: lastSent)
                warned = false
            case .success(false)?, .failure(.writerLeaseLost)?:
                if fence.lose() {
                    database.logger.error(
                        "another photosync run took the writer lease: this one writes no more",
                        metadata: ["database": "\(database.name)", "epoch": "\(epoch)"])
                }
                return
            case .failure(let error)?:
                inFlight = false
                if !warned {
                    database.logger.warning(
                        "could not renew the writer lease; trying again",
                        metadata: ["database": "\(database.name)", "reason": "\(error.localizedDescription)"])
                    warned = true
                }
            case nil:
                break
            }
            if !fence.isCurrent() {
                if fence.lose() {
                    database.logger.error(
                        """
                        could not renew the writer lease for \(timing.duration.components.seconds) s: a standby \
                        may have taken it; this run writes no more
                        """,
                        metadata: ["database": "\(database.name)", "epoch": "\(epoch)"])
                }
                return
            }
            guard !inFlight, ContinuousClock.now - lastSent >= timing.renewal else { continue }
            inFlight = true
            lastSent = ContinuousClock.now
            Task {
                let result: Result<Bool, StoreError>
                do throws(StoreError) {
                    result = .success(try await renew(database, instance: instance, epoch: epoch, timing: timing))
                } catch {
                    result = .failure(error)
                }
                outcome.put(result)
            }
        }
    }

    /// The outcome of the renewal under way, once it has one.
    private final class Outcome: Sendable {
        private let value = Mutex<Result<Bool, StoreError>?>(nil)

        func put(_ result: Result<Bool, StoreError>) { value.withLock { $0 = result } }

        func take() -> Result<Bool, StoreError>? {
            value.withLock { value in
                defer { value = nil }
                return value
            }
        }
    }

    /// One renewal: false when the lease is no longer this holder's. A lease given up stays
    /// given up: a renewal sent just before ``release()`` and answered after it changes nothing.
    private static func renew(
        _ database: PostgresDatabase, instance: String, epoch: Int64, timing: Timing
    ) async throws(StoreError) -> Bool {
        let (logger, milliseconds) = (database.logger, Self.milliseconds(timing.duration))
        return try await database.write("renewing the writer lease", lane: .lease) { connection in
            try await !connection.guardedQuery(
                """
                UPDATE writer_lease
                SET renewed_at = now(), expires_at = now() + make_interval(secs => \(milliseconds) / 1000.0)
                WHERE id = 1 AND instance = \(instance) AND epoch = \(epoch) AND expires_at > '-infinity'
                RETURNING epoch
                """, logger: logger
            ).collect().isEmpty
        }
    }

    /// Gives the lease up, so that the next `run`, or a standby, on any host, takes it at once.
    public func release() async {
        renewing.cancel()
        let (logger, instance) = (database.logger, instance)
        _ = try? await database.write("giving up the writer lease", lane: .lease) { connection in
            try await connection.guardedQuery(
                "UPDATE writer_lease SET expires_at = '-infinity' WHERE id = 1 AND instance = \(instance)",
                logger: logger)
        }
        database.fence.giveUp()
    }
}

extension PostgresStore {
    /// Opens the store for `run`: migrates, then takes the writer lease for this process (as
    /// ``PostgresWriterLease/acquire(_:host:pid:timing:standby:)``: with a `standby` handler,
    /// it waits for the lease while another process holds it).
    /// - Throws: `WriterLockError.leased` naming the holder when another `run` writes the
    ///   database and there is no `standby`; a `StoreError` as ``open(_:password:logger:)``;
    ///   `CancellationError` when the wait is cancelled.
    public static func openForWriting(
        _ location: PostgresLocation, password: String?, host: String, pid: Int32,
        timing: PostgresWriterLease.Timing = .standard,
        standby: (@Sendable (PostgresWriterLease.Holder) -> Void)? = nil,
        logger: Logger
    ) async throws -> (PhotoStore, PostgresWriterLease) {
        // The server shows which process each connection is: "photosync run 1234 on host".
        // Cancelled while the connection opens or the schema migrates, the pool's connections
        // close under it and that fails as a lost connection would: it is a cancellation.
        let database = try await PostgresWriterLease.unlessCancelled {
            try await PostgresDatabase.open(
                location, password: password,
                applicationName: String(decoding: "photosync run \(pid) on \(host)".utf8.prefix(63), as: UTF8.self),
                logger: logger)
        }
        do {
            try await PostgresWriterLease.unlessCancelled { try await PostgresSchema.migrate(database) }
            let lease = try await PostgresWriterLease.acquire(
                database, host: host, pid: pid, timing: timing, standby: standby)
            return (store(database), lease)
        } catch {
            database.close()
            throw error
        }
    }
}
