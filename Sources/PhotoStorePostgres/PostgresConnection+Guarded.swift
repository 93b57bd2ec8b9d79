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
    /// for the dropped ones). Every statement of the store goes through here.
    @discardableResult
    func guardedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await guarded { try await self.query(query, logger: logger) }
    }

    /// What `body` returns from a statement sent on this connection, or ``PostgresConnectionLost``
    /// once the connection has been closed for a while without an answer (``guardedQuery(_:logger:)``).
    private func guarded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !isClosed else { throw PostgresConnectionLost() }
        return try await withCheckedThrowingContinuation { continuation in
            let ticket = UnansweredQueries.shared.add(self) { continuation.resume(throwing: $0) }
            Task {
                let result = await Result(catching: body)
                if UnansweredQueries.shared.remove(ticket) { continuation.resume(with: result) }
            }
        }
    }

    /// The rows of `statement`, prepared on this connection the first time it is sent here:
    /// the server parses and plans its text once per connection instead of at every request
    /// (about a quarter of its time for a listing's page), and locks only the relations the
    /// plan reads, not every index the planner looks at. A statement whose text is new once
    /// ``PreparedShapes/limit`` texts are prepared is sent unprepared, as ``guardedQuery(_:logger:)`` does.
    func preparedRows(_ statement: PreparableQuery, logger: Logger) async throws -> [PostgresRow] {
        guard statement.prepare, let shape = PreparedShapes.shared.shape(of: statement) else {
            return try await guardedQuery(statement.query, logger: logger).collect()
        }
        let bindings = statement.query.binds
        return try await guarded {
            try await TextStatement.$shape.withValue(shape) {
                var rows: [PostgresRow] = []
                for try await row in try await self.execute(TextStatement(bindings: bindings), logger: logger) {
                    rows.append(row)
                }
                return rows
            }
        }
    }
}

/// A statement whose placeholders' types are known, so that it can be prepared
/// (``PostgresConnection/preparedRows(_:logger:)``): the server takes a placeholder's type from
/// the statement's text when it is prepared, and would refuse a value bound later in another.
struct PreparableQuery: Sendable {
    var query: PostgresQuery
    var types: [PostgresDataType]
    /// False for a statement whose best plan depends on its values (a search's words, a colour
    /// that few or most photos have): it is planned for each request's values, unprepared. A
    /// prepared statement's plan may be a generic one, made once for any value.
    var prepare = true
}

/// A prepared statement whose name and text are those of the one call that sends it.
///
/// postgres-nio (1.33.2) prepares a statement once per connection, by a name and a text that are
/// static properties of its type, as for statements written in the source; a listing's text is
/// built for its filters and order. So this type's static properties read a task-local
/// ``shape``, set for the one call to `execute(_:logger:)` (which reads them before it returns),
/// and every text gets a name of its own from ``PreparedShapes``.
private struct TextStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    @TaskLocal static var shape = PreparedShapes.Shape(name: "", sql: "", types: [])
    static var name: String { shape.name }
    static var sql: String { shape.sql }
    static var bindingDataTypes: [PostgresDataType] { shape.types }

    let bindings: PostgresBindings
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The name of each statement text this process prepares, the same on every connection.
///
/// There is a text for each combination of a listing's filters and order that clients have asked
/// for, a few dozen in practice; each costs a prepared statement on every connection of the
/// pool, in the server's memory. So past ``limit`` texts, a new one is not prepared.
final class PreparedShapes: Sendable {
    static let shared = PreparedShapes(limit: 200)
    /// How many texts are prepared at most.
    let limit: Int

    struct Shape: Sendable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }

    private struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private let shapes = Mutex([Key: Shape]())

    init(limit: Int) { self.limit = limit }

    /// The shape `statement` is prepared as, or nil when it is not prepared.
    func shape(of statement: PreparableQuery) -> Shape? {
        let key = Key(sql: statement.query.sql, types: statement.types.map(\.rawValue))
        return shapes.withLock { shapes in
            if let shape = shapes[key] { return shape }
            guard shapes.count < limit else { return nil }
            let shape = Shape(name: "photosync_\(shapes.count + 1)", sql: key.sql, types: statement.types)
            shapes[key] = shape
            return shape
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
