import Foundation
import GRDB

/// The sources photos are mirrored from, each with its own cursors, and which photos each listed.
///
/// A source is named as it is configured (`feed`, `user:ann`, `search:red fox`). Its row is
/// created by its first page, or by ``activateSources(_:now:)``; it is never deleted, so a
/// source that stops being configured keeps its cursors and its photos, and resumes when it
/// comes back.
extension PhotoStore {
    /// The source every database had before there were others.
    public static let feed = "feed"

    /// Marks `names` as the configured sources (creating rows for new ones), and every other
    /// source as inactive.
    public func activateSources(_ names: [String]) throws {
        try write("recording the configured sources") { db in
            try db.execute(sql: "UPDATE source SET active = 0")
            for name in names {
                _ = try Self.sourceID(named: name, in: db)
                try db.execute(sql: "UPDATE source SET active = 1 WHERE name = ?", arguments: [name])
            }
        }
    }

    /// Records why `source` could not be read (an unknown user answers 404); cleared by its
    /// next stored page.
    public func recordSourceFailure(_ source: String, message: String, at now: Date) throws {
        try write("recording a failure of \(source)") { db in
            let id = try Self.sourceID(named: source, in: db)
            try db.execute(
                sql: "UPDATE source SET error = ?, error_at = COALESCE(error_at, ?) WHERE id = ?",
                arguments: [message, now, id])
        }
    }

    /// The sources that listed the photo `id`, by name.
    public func sources(ofPhoto id: String) throws -> [String] {
        try read("listing the sources of photo \(id)") { db in
            try String.fetchAll(db, sql: """
                SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                WHERE photo_source.photo_id = ? ORDER BY source.name
                """, arguments: [id])
        }
    }

    /// Every source the database knows, by name.
    public func sourceStatistics() throws -> [SourceStatistics] {
        try read("listing the sources") { db in try Self.sourceStatistics(db) }
    }

    /// Counts the Unsplash+ members through the `photo_plus` index (`IN`): a join to `photo`
    /// read every member's photo row instead (`QueryPlanTests`).
    static func sourceStatistics(_ db: Database) throws -> [SourceStatistics] {
        try Row.fetchAll(db, sql: """
            SELECT source.*,
                   (SELECT COUNT(*) FROM photo_source WHERE source_id = source.id) AS photos,
                   (SELECT COUNT(*) FROM photo_source
                    WHERE photo_source.source_id = source.id
                      AND photo_source.photo_id IN (SELECT id FROM photo WHERE is_plus = 1)) AS plus_photos
            FROM source ORDER BY name
            """
        ).map { row in
            SourceStatistics(
                name: row["name"],
                active: row["active"],
                photos: row["photos"],
                plusPhotos: row["plus_photos"],
                state: syncState(row),
                failure: (row["error"] as String?).map { SourceFailure(message: $0, since: (row["error_at"] as StoredDate?)?.date ?? Date(timeIntervalSince1970: 0)) })
        }
    }

    /// The row id of the source named `name`, created (active) if it is new.
    static func sourceID(named name: String, in db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM source WHERE name = ?"), arguments: [name]) {
            return id
        }
        try db.execute(sql: "INSERT INTO source (name) VALUES (?)", arguments: [name])
        return db.lastInsertedRowID
    }
}

/// One source as `photosync status` shows it.
public struct SourceStatistics: Sendable, Equatable {
    public var name: String
    /// Whether the last `run` was configured with it.
    public var active: Bool
    /// Photos it listed.
    public var photos: Int64
    /// Of those, Unsplash+ photos, whose images are skipped.
    public var plusPhotos: Int64
    public var state: SyncState
    /// Why it could not be read, while that lasts.
    public var failure: SourceFailure?

    public init(name: String, active: Bool, photos: Int64, plusPhotos: Int64 = 0, state: SyncState, failure: SourceFailure? = nil) {
        self.name = name
        self.active = active
        self.photos = photos
        self.plusPhotos = plusPhotos
        self.state = state
        self.failure = failure
    }
}

/// A source the API would not list (404: no such user, collection or topic).
public struct SourceFailure: Sendable, Equatable {
    public var message: String
    public var since: Date

    public init(message: String, since: Date) {
        self.message = message
        self.since = since
    }
}
