import Foundation
import GRDB

/// The small connection of a write that `photosync serve` makes for its clients
/// (``DownloadRequests``, ``PhotoDetailsRequests``): one row per request, so that the gallery's
/// store stays read-only. It waits for `photosync run`'s transactions as any writer does, and
/// takes no writer lock: `run` holds that for its whole life, and these writes need only
/// SQLite's.
struct RequestConnection: Sendable {
    /// The file, as every `StoreError` names it.
    let path: String
    private let queue: DatabaseQueue

    /// Opens the database at `path` for these writes alone, after ``PhotoStore/openExisting(path:)``
    /// has checked the file: this adds no check of its own.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    init(path: String, label: String, purpose: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.label = label
        configuration.busyMode = .timeout(PhotoStore.busyTimeout)
        configuration.foreignKeysEnabled = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening for \(purpose)")
        }
        self.path = path
    }

    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await queue.write(body)
        } catch {
            throw StoreError(error, path: path, operation: operation())
        }
    }

    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await queue.read(body)
        } catch {
            throw StoreError(error, path: path, operation: operation())
        }
    }

    /// Closes the connection; every later call throws.
    func close() throws(StoreError) {
        do {
            try queue.close()
        } catch {
            throw StoreError(error, path: path, operation: "closing")
        }
    }
}

/// A writer of `serve`'s requests over a ``RequestConnection`` of its own, which closing closes.
protocol OnRequestConnection {
    var connection: RequestConnection { get }
}

extension OnRequestConnection {
    func close() throws(StoreError) {
        try connection.close()
    }
}
