import Foundation
import GRDB

/// A photo's full object, as `GET /photos/:id` answers it (exif, location, tags, statistics...),
/// kept beside its list version (`photo.json`) as the exact text the API sent (migration "v15
/// photo details"): the sync stores it, the mirror serves it, `query` shows it, and search finds
/// the photo by its location and tags from the moment it is stored (a trigger re-indexes the
/// photo in the same transaction).
///
/// A photo is *pending* when its details are wanted but not stored: with `photo_details: all`,
/// every photo without them; with `on-demand`, those a client of the mirror asked for
/// (``PhotoDetailsRequests``).
///
/// Writes are `async` (GRDB's `await write`), one small transaction each.
public struct PhotoDetailsStore: Sendable {
    let database: StoreDatabase

    /// When the photo's details are wanted.
    public enum Wanted: Sendable, Equatable {
        /// Only those a client of the mirror asked for.
        case requested
        /// Those asked for first, then every photo without them, newest stored first.
        case all
    }

    /// A photo's stored full object.
    public struct Details: Sendable, Equatable {
        /// The text the API sent.
        public var json: Data
        public var fetchedAt: Date?

        public init(json: Data, fetchedAt: Date?) {
            self.json = json
            self.fetchedAt = fetchedAt
        }
    }

    /// The ids of at most `limit` photos whose details are wanted and not stored, those a
    /// client asked for first (oldest request first), then, for ``Wanted/all``, the others,
    /// newest stored first.
    public func pending(_ wanted: Wanted, limit: Int) async throws(StoreError) -> [String] {
        guard limit > 0 else { return [] }
        return try await database.read("listing photos whose details are due") { db in
            var ids = try String.fetchAll(
                db,
                sql: """
                    SELECT photo_id FROM photo_details
                    WHERE json IS NULL AND requested_at IS NOT NULL ORDER BY requested_at, photo_id LIMIT ?
                    """, arguments: [limit])
            guard wanted == .all, ids.count < limit else { return ids }
            ids += try String.fetchAll(
                db,
                sql: """
                    SELECT photo.id FROM photo
                    WHERE NOT EXISTS (
                        SELECT 1 FROM photo_details AS details
                        WHERE details.photo_id = photo.id AND (details.json IS NOT NULL OR details.requested_at IS NOT NULL))
                    ORDER BY photo.sequence DESC LIMIT ?
                    """, arguments: [limit - ids.count])
            return ids
        }
    }

    /// Stores `json` as the full object of photo `photoID`, fetched `at`, replacing any earlier
    /// one, and re-indexes the photo for search in the same transaction.
    /// - Returns: false when there is no such photo (nothing is stored).
    /// - Throws: `StoreError.databaseFailure`, also when `json` is not valid JSON; nothing is
    ///   changed then.
    @discardableResult
    public func store(_ json: Data, photoID: String, at date: Date) async throws(StoreError) -> Bool {
        let writer = database.writer
        do {
            return try await writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO photo_details (photo_id, json, fetched_at)
                        SELECT id, ?, ? FROM photo WHERE id = ?
                        ON CONFLICT (photo_id) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at
                        """,
                    arguments: [String(decoding: json, as: UTF8.self), date.stored, photoID])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError(error, path: database.path, operation: "storing the details of photo \(photoID)")
        }
    }

    /// The stored full object of photo `photoID`; nil when it has none (yet).
    public func details(photoID: String) async throws(StoreError) -> Details? {
        try await database.read("reading the details of photo \(photoID)") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT CAST(json AS BLOB) AS json, fetched_at FROM photo_details
                    WHERE photo_id = ? AND json IS NOT NULL
                    """, arguments: [photoID])
            guard let row, let json = row["json"] as Data? else { return nil }
            return Details(json: json, fetchedAt: try row.decodeDateIfPresent(forColumn: "fetched_at"))
        }
    }

    /// The stored full objects of the photos `photoIDs` that have one, by photo id (for a list
    /// of photos, such as `/photos/random`'s, in one read).
    public func details(photoIDs: [String]) async throws(StoreError) -> [String: Details] {
        guard !photoIDs.isEmpty else { return [:] }
        return try await database.read("reading the details of \(photoIDs.count) photos") { db in
            var found: [String: Details] = [:]
            // SQLite's default limit on a statement's variables is 32,766: chunks stay well within it.
            for chunk in stride(from: 0, to: photoIDs.count, by: 500).map({
                photoIDs[$0..<min($0 + 500, photoIDs.count)]
            }) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT photo_id, CAST(json AS BLOB) AS json, fetched_at FROM photo_details
                        WHERE json IS NOT NULL AND photo_id IN (\(databaseQuestionMarks(count: chunk.count)))
                        """, arguments: StatementArguments(Array(chunk)))
                for row in rows {
                    guard let id = row["photo_id"] as String?, let json = row["json"] as Data? else { continue }
                    found[id] = Details(json: json, fetchedAt: try row.decodeDateIfPresent(forColumn: "fetched_at"))
                }
            }
            return found
        }
    }

    /// Whether a client asked for the details of photo `photoID` and they are not stored yet.
    public func isRequested(photoID: String) async throws(StoreError) -> Bool {
        try await database.read("reading the details request of photo \(photoID)") { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM photo_details
                    WHERE photo_id = ? AND json IS NULL AND requested_at IS NOT NULL)
                    """, arguments: [photoID]) ?? false
        }
    }
}

extension PhotoStore {
    /// The photos' full objects (see ``PhotoDetailsStore``), over the store's connection.
    public var photoDetails: PhotoDetailsStore {
        PhotoDetailsStore(database: StoreDatabase(path: path, writer: pool))
    }
}
