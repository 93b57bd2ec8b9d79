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
    /// forever. So the query runs in a task of its own while the caller waits on a continuation
    /// that ``UnansweredQueries`` fails with ``PostgresConnectionLost`` once the connection has
    /// been closed for a while (the handler fails what it still holds at once, so this is only
    /// for the dropped ones). Every statement of the store goes through here or through
    /// ``preparedRows(_:logger:)``, which waits the same way (``guarded(_:)``).
    @discardableResult
    func guardedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await guarded { try await self.query(query, logger: logger) }
    }

    /// What `body` returns from a statement sent on this connection, or ``PostgresConnectionLost``
    /// once the connection has been closed for a while without an answer (``guardedQuery(_:logger:)``).
    func guarded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !isClosed else { throw PostgresConnectionLost() }
        return try await withCheckedThrowingContinuation { continuation in
            let ticket = UnansweredQueries.shared.add(self) { continuation.resume(throwing: $0) }
            Task {
                let result = await Result(catching: body)
                if UnansweredQueries.shared.remove(ticket) { continuation.resume(with: result) }
            }
        }
    }
}

extension PostgresConnection {
    /// The first column of the first row of `query`, a Boolean; false when there is no row.
    func boolean(_ query: PostgresQuery, logger: Logger) async throws -> Bool {
        try await guardedQuery(query, logger: logger).collect().first?.decode(Bool.self) ?? false
    }

    /// The first column of the first row of `query`, an integer; 0 when there is no row.
    func integer(_ query: PostgresQuery, logger: Logger) async throws -> Int64 {
        try await guardedQuery(query, logger: logger).collect().first?.decode(Int64.self) ?? 0
    }

    /// The first column of every row of `query`, text.
    func strings(_ query: PostgresQuery, logger: Logger) async throws -> [String] {
        var strings: [String] = []
        for try await string in try await guardedQuery(query, logger: logger).decode(String.self) {
            strings.append(string)
        }
        return strings
    }
}

/// The queries sent and not answered yet, with their connections: one task looks at them every
/// ``interval`` and fails those whose connection has been closed for two looks. One watcher for
/// every query, rather than a timer each: a page commit sends a few statements, an image batch a
/// few more, and a timer per statement cost the sync more than the statements.
final class UnansweredQueries: Sendable {
    static let shared = UnansweredQueries()
    static let interval: Duration = .milliseconds(500)

    private struct Entry {
        let connection: PostgresConnection
        let fail: @Sendable (any Error) -> Void
        var closedLooks = 0
    }

    private struct State {
        var next = 0
        var entries: [Int: Entry] = [:]
        var watching = false
    }

    private let state = Mutex(State())

    /// A ticket for a statement sent on `connection`; `fail` is called if the watcher gives up on it.
    func add(_ connection: PostgresConnection, fail: @escaping @Sendable (any Error) -> Void) -> Int {
        let (ticket, start) = state.withLock { state in
            state.next += 1
            state.entries[state.next] = Entry(connection: connection, fail: fail)
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        if start { Task.detached { await self.watch() } }
        return ticket
    }

    /// Whether `ticket` was still waiting: false when the watcher failed it already.
    func remove(_ ticket: Int) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: ticket) != nil }
    }

    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.interval)
            let lost: [@Sendable (any Error) -> Void]? = state.withLock { state in
                if state.entries.isEmpty {
                    state.watching = false
                    return nil
                }
                var lost: [@Sendable (any Error) -> Void] = []
                for (ticket, var entry) in state.entries {
                    entry.closedLooks = entry.connection.isClosed ? entry.closedLooks + 1 : 0
                    if entry.closedLooks >= 2 {
                        state.entries[ticket] = nil
                        lost.append(entry.fail)
                    } else {
                        state.entries[ticket] = entry
                    }
                }
                return lost
            }
            guard let lost else { return }
            for fail in lost { fail(PostgresConnectionLost()) }
        }
    }
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
