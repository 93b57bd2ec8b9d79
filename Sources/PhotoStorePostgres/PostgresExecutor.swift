import Logging
import PhotoStore
import PostgresNIO

/// The policy's statements (``SQLStatement``) on PostgreSQL's pool: a read on one connection
/// (one snapshot when it has several statements), a write in one fenced transaction of the
/// writer's turns.
///
/// A read's statement is prepared on its connection, as serve's lookups by key were
/// (``PostgresConnection/preparedRows(_:logger:)``), unless its text or its values' types may
/// change from one call to the next: a list (`IN` of as many values as the call has) or a NULL
/// (whose type the server would take from the first call's).
struct PostgresExecutor: SQLExecutor {
    let database: PostgresDatabase
    var path: String { database.name }

    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        let logger = database.logger
        guard statements.count > 1 else {
            return try await database.read(operation()) { connection in
                try decode(try await Self.run(statements, connection, logger, preparing: true))
            }
        }
        return try await database.snapshot(operation()) { connection in
            try decode(try await Self.run(statements, connection, logger, preparing: true))
        }
    }

    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        let logger = database.logger
        return try await database.write(operation()) { connection in
            try decode(try await Self.run(statements, connection, logger))
        }
    }

    static func run(
        _ statements: [SQLStatement], _ connection: PostgresConnection, _ logger: Logger, preparing: Bool = false
    ) async throws -> [[any SQLRow]] {
        var results: [[any SQLRow]] = []
        for statement in statements {
            let (sql, values) = statement.rendered(.postgres)
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { bindings.append(value) }
            let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
            let rows =
                if preparing, let types = preparedTypes(statement, values) {
                    try await connection.preparedRows(PreparableQuery(query: query, types: types), logger: logger)
                } else {
                    try await connection.guardedQuery(query, logger: logger).collect()
                }
            results.append(rows.map { PostgresSQLRow(cells: Array($0)) })
        }
        return results
    }

    /// The types of `values`, the values of `statement`, when it can be prepared: nil for a
    /// statement with a list or a NULL.
    private static func preparedTypes(_ statement: SQLStatement, _ values: [MirrorValue]) -> [PostgresDataType]? {
        guard !statement.fragments.contains(where: { if case .list = $0 { true } else { false } }) else { return nil }
        var types: [PostgresDataType] = []
        for value in values {
            switch value {
            case .null: return nil
            case .text: types.append(.text)
            case .integer: types.append(.int8)
            case .boolean: types.append(.bool)
            case .date: types.append(.timestamptz)
            case .bytes: types.append(.bytea)
            }
        }
        return types
    }
}

/// A row's cells as PostgreSQL returned them, read as ``MirrorValue``'s types read a copy's.
struct PostgresSQLRow: SQLRow {
    let cells: [PostgresCell]

    func value(_ index: Int, as type: MirrorColumnType) throws -> MirrorValue {
        guard cells.indices.contains(index) else {
            throw MirrorValueMismatch(table: "a statement's result", column: "\(index)", value: .text("nothing"))
        }
        return try MirrorValue(cells[index], type)
    }
}

extension PostgresConnection {
    /// The rows of the policy's `statements`, run in this connection's transaction.
    func run(_ statements: [SQLStatement], _ logger: Logger) async throws -> [[any SQLRow]] {
        try await PostgresExecutor.run(statements, self, logger)
    }
}

extension PostgresBindings {
    mutating func append(_ value: MirrorValue) {
        switch value {
        case .null: appendNull()
        case .text(let text): append(text)
        case .integer(let integer): append(integer)
        case .boolean(let boolean): append(boolean)
        case .date(let date): append(date)
        case .bytes(let bytes): append(ByteBuffer(bytes: bytes))
        }
    }
}
