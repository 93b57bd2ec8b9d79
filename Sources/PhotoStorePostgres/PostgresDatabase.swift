import Foundation
import Logging
import NIOPosix
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
    /// The statements this database's connections prepare, until they turn out to be pooled per
    /// transaction (``Failure/pooledStatement``).
    let shapes = PreparedShapes(limit: 200)

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
    /// One connection is made first, alone, as the pool will make each (``PostgresConnector``),
    /// so that a server that cannot be reached, a login it refuses or TLS that does not check out
    /// fails at once with its reason: the pool would keep retrying in the background.
    /// - Throws: `StoreError.unavailable` when the server cannot be reached, `.loginRefused`
    ///   when it refuses the user or the password, `.connectionMisconfigured` for TLS or a pooler
    ///   as configured, `.cannotOpen` for anything else (no such database), each with the
    ///   server's or the network's reason.
    ///
    /// `applicationName` is what the server shows of each connection (`pg_stat_activity`).
    static func open(
        _ location: PostgresLocation, password: String?, applicationName: String = "photosync", logger: Logger
    ) async throws(StoreError) -> PostgresDatabase {
        let connector = try PostgresConnector(location, password: password, applicationName: applicationName)
        let settled = try await connector.settle(logger: logger)
        // The pool's own lines only when they are errors: a lost connection is photosync's to say
        // (``attempting(_:)``), and the pool warns of a first lease that comes before its task
        // has started, which is harmless.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        return PostgresDatabase(
            location: location,
            client: PostgresClient(configuration: connector.poolConfiguration(settled), backgroundLogger: background),
            logger: logger)
    }

    /// Stops the pool; every later call throws.
    func close() {
        running.cancel()
    }

    /// What each write transaction sets for itself, as an SQL expression that is true: its
    /// commit does not wait for the disk (`synchronous_commit=off`). Consistent after a crash,
    /// as SQLite's commits are in WAL mode (synchronous=NORMAL); a crash of the server can lose
    /// the last fraction of a second of commits, which the next run fetches again.
    ///
    /// Set in the transaction, not for the session: a connection pooler passes no session
    /// parameter but the ones it knows, and in transaction mode hands each transaction another
    /// server connection. A statement that is its own transaction sets it too
    /// (``writeStatement(_:lane:_:)``); `set_config(..., true)` holds until the commit, which reads it.
    static let transactionSettings = "set_config('synchronous_commit', 'off', true) = 'off'"

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
                } else {
                    try await connection.guardedQuery("SELECT \(unescaped: Self.transactionSettings)", logger: logger)
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
        let (fence, name) = (fence, name)
        do {
            return try await turns(of: lane).take { () async throws -> sending T in
                try await attempting { () async throws -> sending T in
                    let token = try fence.token(database: name)
                    return try await connected { connection in try await body(connection, token) }
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
    /// - Parameter interruptible: whether a cancelled calling task ends the read
    ///   (``connected(interruptible:_:)``), or it runs to its end.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, interruptible: Bool = false,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        do {
            return try await attempting { () async throws -> sending T in
                try await connected(interruptible: interruptible) { connection in try await body(connection) }
            }
        } catch {
            throw readError(error, interruptible: interruptible, operation: operation())
        }
    }

    /// Runs `body` in one read-only transaction that sees one snapshot of the database
    /// (`REPEATABLE READ`): every statement of a listing, its count and its page, agree.
    func snapshot<T: Sendable>(
        _ operation: @autoclosure () -> String, interruptible: Bool = false,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        let logger = logger
        do {
            return try await attempting { () async throws -> sending T in
                try await connected(interruptible: interruptible) { connection in
                    try await Self.transaction(
                        "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", on: connection,
                        logger: logger, body)
                }
            }
        } catch {
            throw readError(error, interruptible: interruptible, operation: operation())
        }
    }

    /// What `body` returns from a connection of the pool, with this database's
    /// ``PreparedShapes`` as the current ones: run to its end (``toTheEnd(_:)``), or, when
    /// `interruptible` (a reader whose caller may leave: a server's request, as SQLite's
    /// listings are), ended by a calling task cancelled before it has a connection
    /// (`CancellationError`, ``readError(_:interruptible:operation:)``). A statement already
    /// sent runs to its end; its connection goes back to the pool.
    private func connected<T: Sendable>(
        interruptible: Bool = false, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let (client, shapes) = (client, shapes)
        if interruptible { try Task.checkCancellation() }
        return try await Self.toTheEnd(unless: interruptible) {
            try await PreparedShapes.$running.withValue(shapes) {
                try await client.withConnection { connection in try await body(connection) }
            }
        }
    }

    /// The error of a read as a `StoreError`: a cancelled interruptible one's is `interrupted`.
    private func readError(_ error: any Error, interruptible: Bool, operation: String) -> StoreError {
        interruptible && error is CancellationError
            ? .interrupted(path: name) : storeError(error, operation: operation)
    }

    /// What `work` returns, run in a task of its own: cancelling the calling task (a stopping
    /// daemon, a reload) does not cancel it at once, as SQLite's reads and writes run to their
    /// end. The pool's lease of a connection throws `CancellationError` in a cancelled task, which
    /// callers took for a database that could not be read. A transaction is over in moments; one
    /// still going ``cancellationGrace`` after its caller was cancelled is cancelled too, so that
    /// nothing waits on it forever. `work` does not outlive this call: its task is awaited here.
    /// When `cancellable`, `work` runs in the calling task instead, and its cancellation with it.
    static func toTheEnd<T: Sendable>(unless cancellable: Bool = false, _ work: () async throws -> T) async throws -> T
    {
        if cancellable { return try await work() }
        return try await withoutActuallyEscaping(work) { work in
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
    /// it). A statement the server did not find prepared, or found prepared already, tells that
    /// the connections are pooled per transaction: from then on none is prepared, and `body`
    /// runs again at once. Anything else is the caller's at once.
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
                case .pooledStatement where attempt < Self.timingAttempts:
                    attempt += 1
                    if shapes.stopPreparing() {
                        logger.notice(
                            """
                            the database's connections are pooled per transaction (a pooler such as PgBouncer in \
                            transaction mode): photosync prepares no statements on them
                            """,
                            metadata: ["database": "\(name)", "reason": "\(Self.reason(error))"])
                    }
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
        /// A prepared statement was not found where this connection had prepared it, or found
        /// prepared already where it had not: the connection's statements run on server
        /// connections it does not keep (``PreparedShapes``).
        case pooledStatement
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
            // invalid_sql_statement_name, duplicate_prepared_statement: only photosync's own
            // prepared statements have names.
            if state == "26000" || state == "42P05" { return .pooledStatement }
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
            // read_only_sql_transaction: a hot standby takes no writes.
            case "25006": return .readOnlyStandby(path: name, operation: operation)
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
        if "\(error)".contains("connectionCreationCircuitBreakerTripped") {
            return "new connections kept failing (the server is away, or refuses them)"
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        if let failed = error.underlying as? NIOConnectionError { return PostgresConnector.connectionReason(failed) }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}
