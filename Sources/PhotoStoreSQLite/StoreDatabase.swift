import Foundation
import GRDB
import PhotoStore

/// The one connection (a `DatabasePool`, or a read-only queue for the commands that only read)
/// that every part of the store shares, and the file it is open on.
///
/// Every failure under it is reported as a `StoreError` naming the file and what the store was
/// doing.
struct StoreDatabase: Sendable {
    let path: String
    let writer: any DatabaseWriter

    /// Runs `body` in a write transaction on GRDB's writer queue while the calling task is
    /// suspended: the sync engine's writes, which must not block the cooperative thread pool.
    ///
    /// The write runs to its end even when the calling task is cancelled (GRDB's async write
    /// would throw `CancellationError`, which is no `StoreError`): a page commit under way when
    /// SIGTERM arrives commits, and the sync stops after it.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        let writer = writer
        return try await Self.toTheEnd { try await writer.write(body) }.get(path: path, operation: operation())
    }

    /// Closes the connection; every later call throws.
    func close() throws(StoreError) {
        do {
            try writer.close()
        } catch {
            throw StoreError(error, path: path, operation: "closing")
        }
    }

    /// Runs `body` outside a transaction on GRDB's writer queue, as ``write(_:_:)`` does:
    /// for `VACUUM`, checkpoints and pragmas that cannot run in one.
    func writeWithoutTransaction<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        let writer = writer
        return try await Self.toTheEnd { try await writer.writeWithoutTransaction(body) }
            .get(path: path, operation: operation())
    }

    /// What `access` returned or threw, run in a task of its own: cancelling the calling task
    /// does not cancel it (GRDB's async accesses would throw `CancellationError`, which is no
    /// `StoreError`), so a read or write runs to its end and callers stop between transactions.
    private static func toTheEnd<T: Sendable>(
        _ access: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error> {
        await Task {
            do {
                return .success(try await access())
            } catch {
                return .failure(error)
            }
        }.value
    }

    /// Runs `body` in a read transaction on one of GRDB's reader queues, so the calling task's
    /// thread (a server's event loop, say) never blocks on SQLite: one consistent snapshot,
    /// never blocked by the writer.
    ///
    /// A read runs to its end even when the calling task is cancelled, as a write does: GRDB's
    /// async reads would throw `CancellationError` instead, which is no `StoreError`, and callers
    /// already stop between transactions (a cancelled sync checks for cancellation itself).
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await readResult(body).get(path: path, operation: operation())
    }

    /// What `body` returned or threw in a read transaction, the error as thrown under GRDB: for
    /// a caller that tells some SQLite errors apart. Runs to its end as ``read(_:_:)`` does.
    func readResult<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async -> Result<T, any Error> {
        let writer = writer
        return await Self.toTheEnd { try await writer.read(body) }
    }
}

extension StoreDatabase {
    /// What `body` returned or threw in a read transaction, as ``readResult(_:)``, except that
    /// cancelling the calling task interrupts the statement running (`sqlite3_interrupt`, by
    /// GRDB) and ends the read with `StoreError.interrupted`: for a reader whose caller may
    /// leave, a server's request say. It stops only this read's connection, never a writer.
    func interruptibleReadResult<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T
    ) async -> Result<T, any Error> {
        do {
            return .success(try await writer.read(body))
        } catch is CancellationError {
            return .failure(StoreError.interrupted(path: path))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            return .failure(StoreError.interrupted(path: path))
        } catch {
            return .failure(error)
        }
    }

    /// Runs `body` as ``read(_:_:)`` does, but interrupted when the calling task is cancelled
    /// (see ``interruptibleReadResult(_:)``).
    /// - Throws: `StoreError.interrupted` when the task was cancelled.
    func interruptibleRead<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await interruptibleReadResult(body).get(path: path, operation: operation())
    }
}

extension Result where Failure == any Error {
    /// The value, or the error as a `StoreError` naming `path` and `operation`.
    fileprivate func get(path: String, operation: String) throws(StoreError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw StoreError(error, path: path, operation: operation)
        }
    }
}

extension StoreError {
    /// Wraps any error thrown under the store as a `StoreError`, keeping those that already are,
    /// and sorting SQLite's by their result code.
    init(_ error: any Error, path: String, operation: String) {
        if let error = error as? StoreError {
            self = error
        } else if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                self = .notAPhotosyncDatabase(path: path)
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                self = .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_FULL:
                self = .diskFull(path: path, operation: operation)
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                self = .busy(path: path, operation: operation)
            case .SQLITE_CORRUPT:
                self = .corrupt(path: path, operation: operation)
            default:
                // The message, not `error.description`, which quotes the statement.
                self = .databaseFailure(
                    path: path, operation: operation, code: error.extendedResultCode.rawValue,
                    reason: error.message ?? "\(error.resultCode)")
            }
        } else {
            self = .databaseFailure(path: path, operation: operation, code: nil, reason: "\(error)")
        }
    }
}

extension DatabaseError {
    /// Whether this is FTS5 refusing the search text bound to a `MATCH`: a plain SQL error
    /// raised while running (GRDB then records the statement's arguments) a statement that
    /// matches the search index. One whose statement did not compile (a missing table, say) has
    /// no arguments: a fault of the file, not of the input. FTS5 has no result code of its own
    /// for a query it cannot parse (`fts5: syntax error near`, `unterminated string`, `no such
    /// column` for a column filter), so this is as near to a code as SQLite comes.
    var isRejectedSearch: Bool {
        resultCode == .SQLITE_ERROR && arguments != nil && (sql ?? "").contains(" MATCH ?")
    }
}
