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
    /// - Throws: `StoreError.cannotOpen` naming the server's or the network's reason.
    static func open(
        _ location: PostgresLocation, password: String?, logger: Logger
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
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("application_name", "photosync")]
        do {
            let probe = try Self.probeConfiguration(location, password: password)
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw StoreError.cannotOpen(path: location.description, reason: Self.reason(error))
        }
        return PostgresDatabase(
            location: location, client: PostgresClient(configuration: configuration, backgroundLogger: logger),
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
    /// This process's write transactions take turns (``WriteTurns``), as on SQLite. One that
    /// the server still ends as a deadlock or a serialization failure (with another process's
    /// transaction) is run again, up to ``writeAttempts`` times: `body` must change nothing but
    /// the database.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        do {
            return try await turns.take { () async throws -> sending T in
                var attempt = 1
                while true {
                    do {
                        return try await client.withTransaction(logger: logger) { connection in
                            try await body(connection)
                        }
                    } catch  where attempt < Self.writeAttempts && Self.isWorthRetrying(error) {
                        attempt += 1
                        try await Task.sleep(for: .milliseconds(10 * attempt))
                    }
                }
            }
        } catch {
            throw storeError(error, operation: operation())
        }
    }

    /// How many times a write transaction is tried before its failure is the caller's.
    static let writeAttempts = 5

    /// Whether the server ended a transaction for its timing alone (deadlock, serialization).
    static func isWorthRetrying(_ error: any Error) -> Bool {
        var error = error
        if let failed = error as? PostgresTransactionError,
            let cause = failed.closureError ?? failed.beginError ?? failed.commitError
        {
            error = cause
        }
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// Runs `body` on one connection, outside a transaction unless it opens one.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw storeError(error, operation: operation())
        }
    }

    /// Runs `body` in one read-only transaction that sees one snapshot of the database
    /// (`REPEATABLE READ`): every statement of a listing, its count and its page, agree.
    func snapshot<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> sending T
    ) async throws(StoreError) -> T {
        let logger = logger
        do {
            return try await client.withConnection { connection in
                try await connection.query(
                    "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                let value: T
                do {
                    value = try await body(connection)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
                try await connection.query("COMMIT", logger: logger)
                return value
            }
        } catch {
            throw storeError(error, operation: operation())
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
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}
