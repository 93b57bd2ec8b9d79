import Logging
import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// `query(_:logger:)`, except that it fails when the connection is gone instead of waiting
    /// for an answer that cannot come.
    ///
    /// postgres-nio (1.33.2) writes a query to its channel without a promise for the write: on a
    /// connection the server has just closed (a restart, `pg_terminate_backend`), a query that
    /// reaches the channel after its handlers were removed is dropped, and its answer is awaited
    /// forever. So a watcher looks at the connection every ``watchInterval`` while the query
    /// waits, and fails it with ``PostgresConnectionLost`` once the connection has been closed
    /// for that long (the handler fails what it still holds at once, so this is only for the
    /// dropped ones). Every statement of the store goes through here.
    func guardedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else { throw PostgresConnectionLost() }
        let waiting = Mutex<CheckedContinuation<PostgresRowSequence, any Error>?>(nil)
        let finish: @Sendable (Result<PostgresRowSequence, any Error>) -> Void = { result in
            waiting.withLock { $0.take() }?.resume(with: result)
        }
        return try await withCheckedThrowingContinuation { continuation in
            waiting.withLock { $0 = continuation }
            let watcher = Task {
                var closedFor = 0
                while closedFor < 2 {
                    try await Task.sleep(for: Self.watchInterval)
                    closedFor = self.isClosed ? closedFor + 1 : 0
                }
                finish(.failure(PostgresConnectionLost()))
            }
            Task {
                let result = await Result(catching: { try await self.query(query, logger: logger) })
                watcher.cancel()
                finish(result)
            }
        }
    }

    /// How often a waiting query looks at its connection.
    static let watchInterval: Duration = .milliseconds(500)
}

/// The connection a statement was sent on was closed before its answer came.
struct PostgresConnectionLost: Error, CustomStringConvertible {
    var description: String { "the connection was closed before the server answered" }
}

extension Result where Failure == any Error {
    /// The value of `body`, or what it threw.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
