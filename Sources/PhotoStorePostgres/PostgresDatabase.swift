import Foundation
import Logging
import NIOSSL
import PhotoStore
import PostgresNIO

/// The pool of connections to one PostgreSQL database that every part of the store shares, and
/// the name (``PostgresLocation``'s URL, which holds no password) every `StoreError` gives it.
///
/// The pool runs in a task of its own from ``open(_:password:logger:)`` until ``close()``. Every
/// access is `async` over the network: nothing blocks a thread.
final class PostgresDatabase: Sendable {
    let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>
    /// This process's write transactions, one at a time.
    private let turns = WriteTurns()
    /// The turns of the image writer's batches, which need not wait for the other writes.
    private let imageTurns = WriteTurns()
    /// The turns of the writer lease's own statements, which must not wait behind a backlog of
    /// writes to renew it.
    private let leaseTurns = WriteTurns()
    /// This process's writer lease, when it holds one: every write transaction is fenced by it.
    let fence = WriterFence()

    /// Which writes a write takes turns with.
    enum WriteLane {
        /// Every other write: pages, tracking marks, details, sources, upkeep.
        case rows
        /// Image batches: they lock image jobs and write chunks, rows no page commit or tracking
        /// mark locks, so they commit beside those on a connection of their own (a deadlock the
        /// server still finds is run again, as any).
        case images
        /// The writer lease's renewal and release.
        case lease
    }
    /// How long a lost connection is tried again before the failure is the caller's.
    let reconnectWindow: Duration = .seconds(60)

    /// What every `StoreError` names the store by.
    var name: String { location.description }

    private init(location: PostgresLocation, client: PostgresClient, logger: Logger) {
        self.location = location
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
    }

    /// Connects to the database at `location` and checks that the server answers.
    ///
    /// One connection is made first, alone, so that a server that cannot be reached, or a login
    /// it refuses, fails at once with its reason: the pool would keep retrying in the background.
    /// - Throws: `StoreError.unavailable` when the server cannot be reached, `.loginRefused`
    ///   when it refuses the user or the password, `.cannotOpen` for anything else (no such
    ///   database), each with the server's or the network's reason.
    ///
    /// `applicationName` is what the server shows of each connection (`pg_stat_activity`).
    static func open(
        _ location: PostgresLocation, password: String?, applicationName: String = "photosync", logger: Logger
    ) async throws(StoreError) -> PostgresDatabase {
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS =
                switch location.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database,
                tls: tls)
        case .socket(let path, _):
            configuration = PostgresClient.Configuration(
                unixSocketPath: path, username: location.user, password: password, database: location.database)
        }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = location.connections
        // Commits as SQLite's are in WAL mode (synchronous=NORMAL): consistent after a crash,
        // without waiting for the disk at each one; a crash of the server can lose the last
        // fraction of a second of commits, which the next run fetches again.
        //
        // The server probes an idle TCP connection after 5 s, every 2 s, and drops it after 3
        // probes unanswered, and drops one whose answers go unacknowledged for 10 s: a host cut
        // off from the network loses its sessions (and the locks of a transaction under way) in
        // about 11 s, not the kernel's two hours or more.
        configuration.options.additionalStartupParameters = [
            ("application_name", applicationName), ("synchronous_commit", "off"),
            ("tcp_keepalives_idle", "5"), ("tcp_keepalives_interval", "2"), ("tcp_keepalives_count", "3"),
            ("tcp_user_timeout", "10000"),
        ]
        do {
            let probe = try Self.probeConfiguration(location, password: password)
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            try await connection.close()
        } catch {
            let reason = Self.reason(error)
            if let state = (error as? PSQLError)?.serverInfo?[.sqlState], state == "28P01" || state == "28000" {
                throw StoreError.loginRefused(path: location.description, reason: reason)
            }
            if Self.failure(error) == .connection {
                throw StoreError.unavailable(path: location.description, reason: reason)
            }
            throw StoreError.cannotOpen(path: location.description, reason: reason)
        }
        // The pool's own lines only when they are errors: a lost connection is photosync's to say
        // (``attempting(_:)``), and the pool warns of a first lease that comes before its task
        // has started, which is harmless.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        return PostgresDatabase(
            location: location, client: PostgresClient(configuration: configuration, backgroundLogger: background),
            logger: logger)
    }

    /// The configuration of the one connection ``open(_:password:logger:)`` tries first.
    private static func probeConfiguration(
        _ location: PostgresLocation, password: String?
    ) throws -> PostgresConnection.Configuration {
        var probe: PostgresConnection.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            let context = location.tls == .disable ? nil : try NIOSSLContext(configuration: .makeClientConfiguration())
            let tls: PostgresConnection.Configuration.TLS =
                context.map { location.tls == .require ? .require($0) : .prefer($0) } ?? .disable
            probe = PostgresConnection.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database,
                tls: tls)
        case .socket(let path, _):
            probe = PostgresConnection.Configuration(
                unixSocketPath: path, username: location.user, password: password, database: location.database)
        }
        probe.options.connectTimeout = .seconds(10)
        return probe
    }

    /// Stops the pool; every later call throws.
    func close() {
        running.cancel()
    }

    /// Runs `body` in one transaction: all of it commits, or, when it throws, none of it.
    ///
    /// This process's write transactions take turns (``WriteTurns``), as on SQLite, in their
    /// `lane`: image batches beside the rest. One that
    /// failed for its timing or the connection alone is run again (``attempting(_:)``): `body`
    /// must change nothing but the database. Running it again after a commit whose answer the
    /// connection lost is safe for the store's writes, which store each thing once.
    ///
    /// While this process holds the writer lease, each transaction is fenced by it
    /// (``WriterFence``): once another process took the lease, it changes nothing and throws.
    /// - Throws: `StoreError.writerLeaseLost` when the lease is no longer this process's.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, lane: WriteLane = .rows,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        let logger = logger
        return try await writeStatement(operation(), lane: lane) { connection, token in
            try await Self.transaction("BEGIN", on: connection, logger: logger) { connection in
                if let token {
                    let holds = try await !connection.guardedQuery(
                        WriterFence.statement(token), logger: logger
                    ).collect().isEmpty
                    guard holds else { throw WriterFence.Refused() }
                }
                return try await body(connection)
            }
        }
    }

    /// Runs `body`, which sends one statement, as a transaction of its own: one round trip where
    /// ``write(_:lane:_:)`` takes four (`BEGIN`, the fence, the statement, `COMMIT`); that is this
    /// with a transaction around its body. It takes turns in its `lane`, and runs again what
    /// failed for its timing or a lost connection (``attempting(_:)``).
    ///
    /// The statement fences itself: `body` is given this process's lease token (nil without a
    /// lease) to lock the lease row with in the statement, as ``WriterFence/statement(_:)`` does,
    /// writing only while it is found, and throws ``WriterFence/Refused`` when it was not: the
    /// lease is lost.
    /// - Throws: `StoreError.writerLeaseLost` when the lease is no longer this process's.
    func writeStatement<T: Sendable>(
        _ operation: @autoclosure () -> String, lane: WriteLane = .rows,
        _ body: (PostgresConnection, WriterFence.Token?) async throws -> sending T
    ) async throws(StoreError) -> T {
        let (client, fence, name) = (client, fence, name)
        do {
            return try await turns(of: lane).take { () async throws -> sending T in
                try await attempting { () async throws -> sending T in
                    let token = try fence.token(database: name)
                    return try await Self.toTheEnd {
                        try await client.withConnection { connection in try await body(connection, token) }
                    }
                }
            }
        } catch is WriterFence.Refused {
            throw fenceRefused()
        } catch {
            throw storeError(error, operation: operation())
        }
    }

    /// The server found that this process's lease is another's: it is lost.
    private func fenceRefused() -> StoreError {
        if fence.lose() {
            logger.error(
                "another photosync run took the writer lease: this one writes no more",
                metadata: ["database": "\(name)"])
        }
        return .writerLeaseLost(path: name)
    }

    private func turns(of lane: WriteLane) -> WriteTurns {
        switch lane {
        case .rows: turns
        case .images: imageTurns
        case .lease: leaseTurns
        }
    }

    /// Runs `body` on one connection, outside a transaction unless it opens one.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        let client = client
        do {
            return try await attempting { () async throws -> sending T in
                try await Self.toTheEnd {
                    try await client.withConnection { connection in try await body(connection) }
                }
            }
        } catch {
            throw storeError(error, operation: operation())
        }
    }

    /// Runs `body` in one read-only transaction that sees one snapshot of the database
    /// (`REPEATABLE READ`): every statement of a listing, its count and its page, agree.
    func snapshot<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        let (client, logger) = (client, logger)
        do {
            return try await attempting { () async throws -> sending T in
                try await Self.toTheEnd {
                    try await client.withConnection { connection in
                        try await Self.transaction(
                            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", on: connection,
                            logger: logger, body)
                    }
                }
            }
        } catch {
            throw storeError(error, operation: operation())
        }
    }

    /// What `work` returns, run in a task of its own: cancelling the calling task (a stopping
    /// daemon, a reload) does not cancel it at once, as SQLite's reads and writes run to their
    /// end. The pool's lease of a connection throws `CancellationError` in a cancelled task, which
    /// callers took for a database that could not be read. A transaction is over in moments; one
    /// still going ``cancellationGrace`` after its caller was cancelled is cancelled too, so that
    /// nothing waits on it forever. `work` does not outlive this call: its task is awaited here.
    static func toTheEnd<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await withoutActuallyEscaping(work) { work in
            // The task holds the box, not `work`, and the box lets go of `work` before this
            // returns: the task itself may be released a moment after its value was delivered.
            let box = WorkBox(work)
            defer { box.release() }
            let task = Task { try await box.run() }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                Task {
                    try? await Task.sleep(for: cancellationGrace)
                    task.cancel()
                }
            }
        }
    }

    /// How long a transaction whose caller was cancelled may still run.
    static let cancellationGrace: Duration = .seconds(30)

    /// The closure of ``toTheEnd(_:)``, which crosses into its task and is let go of before the
    /// closure's own lifetime ends.
    private final class WorkBox<T>: @unchecked Sendable {
        private var work: (() async throws -> T)?

        init(_ work: @escaping () async throws -> T) { self.work = work }

        /// Runs the work; called once, before ``release()``.
        func run() async throws -> T {
            guard let work else { throw CancellationError() }
            return try await work()
        }

        /// Called once the task that ran the work has ended.
        func release() { work = nil }
    }

    /// Runs `body` between `begin` and `COMMIT` on `connection`, and rolls back when it throws.
    ///
    /// Not postgres-nio's `withTransaction`: after the server closed a connection (a restart,
    /// `pg_terminate_backend`), its `ROLLBACK` is written to a channel already torn down, and
    /// its answer never comes, so the transaction never ends. A connection the server closed
    /// rolled back by itself: it gets no `ROLLBACK`.
    static func transaction<T>(
        _ begin: PostgresQuery, on connection: PostgresConnection, logger: Logger,
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await connection.guardedQuery(begin, logger: logger)
        let value: T
        do {
            value = try await body(connection)
        } catch {
            if failure(error) != .connection && !connection.isClosed {
                _ = try? await connection.guardedQuery("ROLLBACK", logger: logger)
            }
            throw error
        }
        try await connection.guardedQuery("COMMIT", logger: logger)
        return value
    }

    /// How many times a transaction the server ended as a deadlock or a serialization failure
    /// is tried.
    static let timingAttempts = 5

    /// Runs `body`, and again when it failed for a reason that passes by itself: a deadlock or
    /// a serialization failure (up to ``timingAttempts`` times), or a lost connection, while
    /// ``reconnectWindow`` lasts (the pool connects again; a server restarting is back within
    /// it). Anything else is the caller's at once.
    func attempting<T>(_ body: () async throws -> sending T) async throws -> sending T {
        let deadline = ContinuousClock.now + reconnectWindow
        var attempt = 1
        var delay: Duration = .milliseconds(100)
        while true {
            do {
                return try await body()
            } catch {
                switch Self.failure(error) {
                case .timing where attempt < Self.timingAttempts:
                    attempt += 1
                    try await Task.sleep(for: .milliseconds(10 * attempt))
                case .connection where ContinuousClock.now + delay < deadline:
                    if delay == .milliseconds(100) {
                        logger.warning(
                            "lost the connection to the database; trying again",
                            metadata: ["database": "\(name)", "reason": "\(Self.reason(error))"])
                    }
                    try await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                default:
                    throw error
                }
            }
        }
    }

    /// Why a statement failed, as far as trying it again is concerned.
    enum Failure {
        /// The server ended the transaction for its timing alone (deadlock, serialization).
        case timing
        /// The connection was lost, or none could be made: the server is away or restarting.
        case connection
        /// Anything else.
        case other
    }

    static func failure(_ error: any Error) -> Failure {
        if let failed = error as? PostgresTransactionError,
            let cause = failed.closureError ?? failed.beginError ?? failed.commitError
        {
            return failure(cause)
        }
        if error is PostgresConnectionLost || "\(error)".contains("connectionCreationCircuitBreakerTripped") {
            return .connection
        }
        guard let error = error as? PSQLError else { return .other }
        if let state = error.serverInfo?[.sqlState] {
            if state == "40P01" || state == "40001" { return .timing }
            // Connection exceptions, and a server shutting down or starting up.
            if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) { return .connection }
            return .other
        }
        switch error.code {
        // A query queued on a connection the server closed fails as closed by the client.
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return .connection
        default: return .other
        }
    }

    /// Any error under the store as a `StoreError` naming the database and what the store was
    /// doing, sorted by the server's SQLSTATE where it sent one.
    func storeError(_ error: any Error, operation: String) -> StoreError {
        if let error = error as? PostgresTransactionError,
            let cause = error.closureError ?? error.beginError ?? error.commitError
        {
            return storeError(cause, operation: operation)
        }
        if let error = error as? StoreError { return error }
        if Self.failure(error) == .connection { return .unavailable(path: name, reason: Self.reason(error)) }
        if let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] {
            switch state {
            case "53100": return .diskFull(path: name, operation: operation)
            case "40001", "40P01", "55P03": return .busy(path: name, operation: operation)
            case "XX001", "XX002": return .corrupt(path: name, operation: operation)
            default: break
            }
        }
        return .databaseFailure(path: name, operation: operation, code: nil, reason: Self.reason(error))
    }

    /// The server's message (with its SQLSTATE), or the connection's failure, in one line.
    static func reason(_ error: any Error) -> String {
        if let failed = error as? PostgresTransactionError,
            let cause = failed.closureError ?? failed.beginError ?? failed.commitError
        {
            return reason(cause)
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}
