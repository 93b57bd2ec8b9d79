import GRDB
import PhotoStore

/// The policy's statements (``SQLStatement``) on the store's GRDB connections: a read on one of
/// the readers, a write on the writer, each one transaction.
struct SQLiteExecutor: SQLExecutor {
    let database: StoreDatabase
    var path: String { database.path }

    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        try await database.read(operation()) { db in try decode(Self.run(statements, db)) }
    }

    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T {
        try await database.write(operation()) { db in try decode(Self.run(statements, db)) }
    }

    static func run(_ statements: [SQLStatement], _ db: Database) throws -> [[any SQLRow]] {
        try statements.map { statement in
            let (sql, values) = statement.rendered(.sqlite)
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: sql), arguments: StatementArguments(values.map(\.stored)))
            return rows.map { SQLiteRow(values: Array($0.databaseValues)) }
        }
    }
}

/// A row's values as SQLite returned them, read as ``MirrorValue``'s types read a copy's.
struct SQLiteRow: SQLRow {
    let values: [DatabaseValue]

    func value(_ index: Int, as type: MirrorColumnType) throws -> MirrorValue {
        guard values.indices.contains(index), let value = MirrorValue.decoded(values[index], as: type) else {
            throw MirrorValueMismatch(
                table: "a statement's result", column: "\(index)",
                value: .text(values.indices.contains(index) ? values[index].description : "nothing"))
        }
        return value
    }
}

extension Database {
    /// The rows of the policy's `statements`, run in this transaction.
    func run(_ statements: [SQLStatement]) throws -> [[any SQLRow]] {
        try SQLiteExecutor.run(statements, self)
    }
}
