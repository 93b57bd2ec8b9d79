import Foundation

/// What a driver gives the store's policy to run its statements with: the one primitive the
/// policy written once (``SQLStatement``) needs from each database.
///
/// Each call is one transaction, its statements run in order on one connection, and `decode`
/// reads their rows inside it: a write's changes commit together or not at all, and a read's
/// statements see one snapshot. A driver reports every failure, `decode`'s included, as a
/// `StoreError` that names `operation`, as its own code does.
package protocol SQLExecutor: Sendable {
    /// The database as the driver's errors name it (`StoreError`'s `path`): SQLite's file, or
    /// PostgreSQL's database, for the errors the policy throws itself (an unknown photo, say).
    var path: String { get }

    /// What `decode` makes of each statement's rows, from one read transaction.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T

    /// What `decode` makes of each statement's rows (`RETURNING`), from one write transaction of
    /// the process's writer.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statements: [SQLStatement],
        _ decode: @escaping @Sendable ([[any SQLRow]]) throws -> T
    ) async throws(StoreError) -> T
}

extension SQLExecutor {
    /// What `decode` makes of one statement's rows, read in a transaction of its own.
    package func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ statement: SQLStatement,
        _ decode: @escaping @Sendable ([any SQLRow]) throws -> T
    ) async throws(StoreError) -> T {
        try await read(operation(), [statement]) { rows in try decode(rows[0]) }
    }

    /// The first column of the first row of `statement`, a Boolean; false without a row.
    package func boolean(_ operation: @autoclosure () -> String, _ statement: SQLStatement) async throws(StoreError)
        -> Bool
    {
        try await read(operation(), statement) { rows in try rows.first?.boolean(0) ?? false }
    }

    /// The first column of every row of `statement`, text.
    package func texts(_ operation: @autoclosure () -> String, _ statement: SQLStatement) async throws(StoreError)
        -> [String]
    {
        try await read(operation(), statement) { rows in try rows.compactMap { try $0.text(0) } }
    }
}

/// A row of a statement's result, whose columns the policy reads by their place and type.
package protocol SQLRow {
    /// The value of column `index` as a column of `type` holds it; throws when it holds another.
    func value(_ index: Int, as type: MirrorColumnType) throws -> MirrorValue
}

extension SQLRow {
    package func text(_ index: Int) throws -> String? {
        guard case .text(let text) = try value(index, as: .text) else { return nil }
        return text
    }

    /// A JSON document's text, as the bytes the API sent.
    package func json(_ index: Int) throws -> Data? {
        guard case .text(let text) = try value(index, as: .json) else { return nil }
        return Data(text.utf8)
    }

    package func integer(_ index: Int) throws -> Int64? {
        guard case .integer(let integer) = try value(index, as: .integer) else { return nil }
        return integer
    }

    /// A Boolean; false for NULL.
    package func boolean(_ index: Int) throws -> Bool {
        guard case .boolean(let boolean) = try value(index, as: .boolean) else { return false }
        return boolean
    }

    package func date(_ index: Int) throws -> Date? {
        guard case .date(let date) = try value(index, as: .date) else { return nil }
        return date
    }

    package func bytes(_ index: Int) throws -> Data? {
        guard case .bytes(let bytes) = try value(index, as: .bytes) else { return nil }
        return bytes
    }
}
