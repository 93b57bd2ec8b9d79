import Foundation
import GRDB

/// The one write `photosync serve` makes: that a client of the mirror asked for a photo's
/// download (`/unsplash/photos/:id/download`), so that the sync's download tracker tells
/// Unsplash about it, once per photo (``SyncLedger/pendingDownloadTracking(limit:)``).
///
/// It has its own small connection, so that the gallery's store stays read-only: it writes one
/// row per photo and nothing else, waiting for `photosync run`'s transactions as any writer
/// does. It takes no writer lock: `run` holds that for its whole life, and this write needs
/// only SQLite's.
public final class DownloadRequests: Sendable {
    /// The file, as every `StoreError` names it.
    public let path: String
    private let queue: DatabaseQueue

    /// Opens the database at `path` for this write alone. Open it after
    /// ``PhotoStore/openExisting(path:)`` has checked the file: this adds no check of its own.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.label = "PhotoStore.downloadRequests"
        configuration.busyMode = .timeout(PhotoStore.busyTimeout)
        configuration.foreignKeysEnabled = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(error, path: path, operation: "opening for download requests")
        }
        self.path = path
    }

    /// Records that photo `photoID`'s download was requested at `date`; a photo requested
    /// before keeps its first request. Its tracking is forwarded by the sync, not here.
    /// - Returns: false when there is no such photo (nothing is recorded).
    public func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        do {
            return try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO download_request (photo_id, requested_at)
                        SELECT id, ? FROM photo WHERE id = ?
                        ON CONFLICT (photo_id) DO NOTHING
                        """, arguments: [date.stored, photoID])
                return try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM download_request WHERE photo_id = ?)",
                    arguments: [photoID]) ?? false
            }
        } catch {
            throw StoreError(error, path: path, operation: "recording a download request of photo \(photoID)")
        }
    }

    /// The photos whose download was requested, with the first request's time, by id.
    public func requested() async throws(StoreError) -> [String: Date] {
        do {
            return try await queue.read { db in
                var requests: [String: Date] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT photo_id, requested_at FROM download_request") {
                    requests[row["photo_id"]] = (row["requested_at"] as StoredDate?)?.date
                }
                return requests
            }
        } catch {
            throw StoreError(error, path: path, operation: "listing download requests")
        }
    }

    /// Closes the connection; every later call throws.
    public func close() throws(StoreError) {
        do {
            try queue.close()
        } catch {
            throw StoreError(error, path: path, operation: "closing")
        }
    }
}
