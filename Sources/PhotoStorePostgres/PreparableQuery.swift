import Basics
import Crypto
import Logging
import PhotoStore
import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// The rows of `statement`, prepared on this connection the first time it is sent here: the
    /// server parses its text once per connection instead of at every request, and plans it once
    /// where a plan for any value is as good as one for the request's (a lookup by photo, a
    /// listing's first page; a page at an offset, whose `LIMIT` and `OFFSET` are placeholders, is
    /// still planned for each).
    /// A statement whose text is new once ``PreparedShapes/limit`` texts are prepared is sent
    /// unprepared, as ``guardedQuery(_:logger:)`` does, and so is every statement once the
    /// database's connections turned out to be pooled per transaction
    /// (``PreparedShapes/stopPreparing()``).
    func preparedRows(_ statement: PreparableQuery, logger: Logger) async throws -> [PostgresRow] {
        guard statement.prepare, let shape = PreparedShapes.current.shape(of: statement) else {
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
    /// The first column of the first row of `statement`, a Boolean, as ``preparedRows(_:logger:)``
    /// reads it; false when there is no row (``boolean(_:logger:)``, prepared).
    func preparedBoolean(_ statement: PreparableQuery, logger: Logger) async throws -> Bool {
        try await preparedRows(statement, logger: logger).first?.decode(Bool.self) ?? false
    }
}

/// A statement whose placeholders' types are known, so that it can be prepared
/// (``PostgresConnection/preparedRows(_:logger:)``): the server takes a placeholder's type from
/// the statement's text when it is prepared, and would refuse a value bound later in another.
struct PreparableQuery: Sendable {
    var query: PostgresQuery
    var types: [PostgresDataType]
    /// False for a statement whose best plan depends on its values (a search's words, common or
    /// rare): it is planned for each request's values, unprepared. A prepared statement's plan
    /// may be a generic one, made once for any value. (A colour is written into the text.)
    var prepare = true
}

/// A statement written as `PostgresQuery` is, each interpolated value a placeholder bound to it,
/// and its type recorded.
extension PreparableQuery: ExpressibleByStringInterpolation {
    struct StringInterpolation: StringInterpolationProtocol {
        var query: PostgresQuery.StringInterpolation
        var types: [PostgresDataType] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            query = .init(literalCapacity: literalCapacity, interpolationCount: interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) { query.appendLiteral(literal) }

        mutating func appendInterpolation<Value: PostgresNonThrowingEncodable>(_ value: Value) {
            query.appendInterpolation(value)
            types.append(Value.psqlType)
        }

        /// NULL for nil, of the type a value would have.
        mutating func appendInterpolation<Value: PostgresNonThrowingEncodable>(_ value: Value?) {
            query.appendInterpolation(value)
            types.append(Value.psqlType)
        }

        mutating func appendInterpolation(unescaped text: String) { query.appendInterpolation(unescaped: text) }

        /// A status word written into the statement (``StoredWord``).
        mutating func appendInterpolation(literal word: ImageStatus) { query.appendInterpolation(literal: word) }

        /// A failure class written into the statement (``StoredWord``).
        mutating func appendInterpolation(literal word: ImageFailureClass) { query.appendInterpolation(literal: word) }
    }

    init(stringInterpolation: StringInterpolation) {
        self.init(
            query: PostgresQuery(stringInterpolation: stringInterpolation.query), types: stringInterpolation.types)
    }

    init(stringLiteral text: String) {
        self.init(query: PostgresQuery(unsafeSQL: text), types: [])
    }
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

/// The name of each statement text a database's connections prepare, and whether they prepare
/// any: ``PostgresDatabase`` makes its own the ``current`` ones for the work it runs.
///
/// There is a text for each combination of a listing's filters and order that clients have asked
/// for, a few dozen in practice; each costs a prepared statement on every connection of the
/// pool, in the server's memory. So past ``limit`` texts, a new one is not prepared.
///
/// A statement's name is drawn from its text and its placeholders' types, so that two processes,
/// or two versions of photosync, never give one name to different statements: behind a pooler
/// in transaction mode (PgBouncer before 1.21), one connection's statements run on the server
/// connections of all, where a statement of the same name prepared by another client would
/// otherwise be run in its place. There the server answers that a statement does not exist, or
/// exists already (``PostgresDatabase/Failure/pooledStatement``); the database then stops
/// preparing and runs the transaction again.
final class PreparedShapes: Sendable {
    /// The shapes of the database whose work runs (the task-local ``PostgresDatabase`` sets);
    /// a shared one elsewhere, for tests that send statements on a bare connection.
    static var current: PreparedShapes { running ?? fallback }
    @TaskLocal static var running: PreparedShapes?
    private static let fallback = PreparedShapes(limit: 200)

    /// How many texts are prepared at most.
    let limit: Int

    struct Shape: Sendable, Equatable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }

    private struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private struct State {
        var shapes: [Key: Shape] = [:]
        var preparing = true
    }

    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// The shape `statement` is prepared as, or nil when it is not prepared.
    func shape(of statement: PreparableQuery) -> Shape? {
        let key = Key(sql: statement.query.sql, types: statement.types.map(\.rawValue))
        return state.withLock { state in
            guard state.preparing else { return nil }
            if let shape = state.shapes[key] { return shape }
            guard state.shapes.count < limit else { return nil }
            let shape = Shape(name: Self.name(key), sql: key.sql, types: statement.types)
            state.shapes[key] = shape
            return shape
        }
    }

    /// `photosync_` and 16 hex digits of the SHA-256 of the text and its types.
    private static func name(_ key: Key) -> String {
        let types = key.types.map(String.init).joined(separator: ",")
        let digest = SHA256.hash(data: Array((key.sql + "\u{0}" + types).utf8))
        return "photosync_" + String(Hex.string(digest).prefix(16))
    }

    /// From now on nothing is prepared. Returns whether statements were prepared until now, so
    /// that only the first to notice says so.
    func stopPreparing() -> Bool {
        state.withLock { state in
            defer { state.preparing = false }
            return state.preparing
        }
    }

    /// Whether statements are prepared.
    var isPreparing: Bool { state.withLock { $0.preparing } }
}

extension PostgresQuery.StringInterpolation {
    /// A status word written into the statement's text, as a partial index needs it (``StoredWord``).
    mutating func appendInterpolation(literal word: ImageStatus) { appendInterpolation(unescaped: word.sqlLiteral) }

    /// A failure class written into the statement's text (``StoredWord``).
    mutating func appendInterpolation(literal word: ImageFailureClass) {
        appendInterpolation(unescaped: word.sqlLiteral)
    }
}
