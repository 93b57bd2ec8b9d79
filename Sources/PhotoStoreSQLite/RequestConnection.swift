import Foundation
import GRDB
import PhotoStore

/// The small connection of a write that `photosync serve` makes for its clients
/// (``DownloadRequests``, ``PhotoDetailsRequests``): one row per request, so that the gallery's
/// store stays read-only. It waits for `photosync run`'s transactions as any writer does, and
/// takes no writer lock: `run` holds that for its whole life, and these writes need only
/// SQLite's.
struct RequestConnection: Sendable {
    /// The connection, whose `write` and `read` these writers use.
    let database: StoreDatabase

    /// Opens the database at `path` for these writes alone, after ``PhotoStore/openExisting(path:)``
    /// has checked the file: this adds no check of its own.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    init(path: String, label: String, purpose: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.label = label
        configuration.busyMode = .timeout(PhotoStore.busyTimeout)
        configuration.foreignKeysEnabled = true
        do {
            database = StoreDatabase(path: path, writer: try DatabaseQueue(path: path, configuration: configuration))
        } catch {
            throw StoreError(error, path: path, operation: "opening for \(purpose)")
        }
    }

    /// Closes the connection; every later call throws.
    func close() throws(StoreError) {
        try database.close()
    }
}
