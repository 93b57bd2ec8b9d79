import Foundation
import PhotoStore
import PostgresNIO

/// The ledger in PostgreSQL: the same rows as SQLite's (``SyncLedger``'s contract), a page
/// commit one transaction with its cursor. Sequences are `MAX(sequence) + 1`, as in SQLite,
/// which numbers photos without gaps because one writer commits at a time (on PostgreSQL, the
/// writer lease to come); a second writer committing at the same moment would break the
/// `UNIQUE` constraint and roll back, never number a photo twice.
struct PostgresSyncLedger: SyncLedger {
    let database: PostgresDatabase

    /// How many memberships one catch-up walk can add to a source (SQLite's figure).
    static let catchUpBlock: Int64 = 1 << 28

    func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto], variant: ImageVariant, moreVariants: [ImageVariant],
        source: PhotoSource, now: Date, cursor: @escaping @Sendable (PageCommit) throws -> CursorChange
    ) async throws(StoreError) -> PageCommit {
        let logger = database.logger
        return try await database.write("committing a page of \(photos.count) photos") { connection in
            let sourceID = try await Self.sourceID(named: source.description, connection, logger)
            var existingSequences: [String: Int64] = [:]
            var existingMemberships: [String: Int64] = [:]
            var insertedNow: Set<String> = []
            var joining: [String] = []
            var joinedNow: Set<String> = []
            var nextSequence = try await Self.maxSequence(connection, logger) + 1
            for photo in photos {
                let known = try await connection.guardedQuery(
                    "SELECT sequence FROM photo WHERE id = \(photo.id)", logger: logger
                ).collect().first?.decode(Int64.self)
                if let known {
                    if !insertedNow.contains(photo.id) { existingSequences[photo.id] = known }
                    try await connection.guardedQuery(Self.update(photo, seenAt: now), logger: logger)
                } else {
                    try await connection.guardedQuery(
                        Self.insert(photo, sequence: nextSequence, seenAt: now), logger: logger)
                    insertedNow.insert(photo.id)
                    nextSequence += 1
                }
                if let membership = try await connection.guardedQuery(
                    "SELECT id FROM photo_source WHERE photo_id = \(photo.id) AND source_id = \(sourceID)",
                    logger: logger
                ).collect().first?.decode(Int64.self) {
                    existingMemberships[photo.id] = membership
                } else if joinedNow.insert(photo.id).inserted {
                    joining.append(photo.id)
                }
                try await connection.guardedQuery(
                    "DELETE FROM rejected_photo WHERE photo_id = \(photo.id)", logger: logger)
                try await Self.queueImages(photo, variant: variant, moreVariants: moreVariants, connection, logger)
            }
            var newlyRejected: [RejectedPhoto] = []
            for element in rejected where try await Self.recordRejected(element, seenAt: now, connection, logger) {
                newlyRejected.append(element)
            }
            let commit = PageCommit(
                existingSequences: existingSequences, existingMemberships: existingMemberships,
                newlyRejected: newlyRejected)
            let change = try cursor(commit)
            var position = try await Self.nextPosition(after: change, source: sourceID, connection, logger)
            for photoID in joining {
                try await connection.guardedQuery(
                    """
                    INSERT INTO photo_source (photo_id, source_id, first_seen_at, position)
                    VALUES (\(photoID), \(sourceID), \(now), \(position))
                    """, logger: logger)
                position += 1
            }
            try await Self.apply(change, source: sourceID, now: now, connection, logger)
            return commit
        }
    }

    func syncState(source: PhotoSource) async throws(StoreError) -> SyncState {
        let logger = database.logger
        return try await database.read("reading the state of \(source)") { connection in
            let rows = try await connection.guardedQuery(
                "SELECT \(unescaped: Self.syncStateColumns) FROM source WHERE name = \(source.description)",
                logger: logger
            ).collect()
            guard let row = rows.first else { return SyncState() }
            return try Self.syncState(Array(row))
        }
    }

    /// The columns of a source's ``SyncState``, as ``syncState(_:)`` reads them.
    static let syncStateColumns = """
        backfill_next, backfill_complete, catch_up_next, catch_up_baseline, last_page_at, backfill_stall_reason,
        backfill_stalled_at
        """

    /// The state in `cells`, the values of ``syncStateColumns`` in order.
    static func syncState(_ cells: [PostgresCell]) throws -> SyncState {
        let stallReason = try cells[5].decode(String?.self)
        let stalledAt = try cells[6].decode(Date?.self)
        return SyncState(
            backfillNext: try cells[0].decode(String?.self).flatMap(URL.init(string:)),
            backfillComplete: try cells[1].decode(Bool.self),
            catchUpNext: try cells[2].decode(String?.self).flatMap(URL.init(string:)),
            catchUpBaseline: try cells[3].decode(Int64?.self), lastPageAt: try cells[4].decode(Date?.self),
            backfillStall: stallReason.map {
                BackfillStall(reason: $0, since: stalledAt ?? Date(timeIntervalSince1970: 0))
            })
    }

    func recordBackfillStall(reason: String, source: PhotoSource, at now: Date) async throws(StoreError) {
        let logger = database.logger
        try await database.write("recording a stall of \(source)") { connection in
            let id = try await Self.sourceID(named: source.description, connection, logger)
            try await connection.guardedQuery(
                """
                UPDATE source SET backfill_stall_reason = \(reason),
                    backfill_stalled_at = COALESCE(backfill_stalled_at, \(now))
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    func recordConfigurationLoaded(at date: Date, reload: Bool) async throws(StoreError) {
        let logger = database.logger
        let reason = reload ? "reload" : "start"
        try await database.write("recording when the configuration was loaded") { connection in
            _ = try await connection.guardedQuery(
                """
                INSERT INTO configuration_load (id, loaded_at, reason) VALUES (1, \(date), \(reason))
                ON CONFLICT (id) DO UPDATE SET loaded_at = excluded.loaded_at, reason = excluded.reason
                """, logger: logger)
        }
    }

    func activateSources(_ sources: [PhotoSource]) async throws(StoreError) {
        let logger = database.logger
        try await database.write("recording the configured sources") { connection in
            try await connection.guardedQuery("UPDATE source SET active = false", logger: logger)
            for name in sources.map(\.description) {
                _ = try await Self.sourceID(named: name, connection, logger)
                try await connection.guardedQuery(
                    "UPDATE source SET active = true WHERE name = \(name)", logger: logger)
            }
        }
    }

    func recordSourceFailure(_ source: PhotoSource, message: String, at now: Date) async throws(StoreError) {
        let logger = database.logger
        try await database.write("recording a failure of \(source)") { connection in
            let id = try await Self.sourceID(named: source.description, connection, logger)
            try await connection.guardedQuery(
                "UPDATE source SET error = \(message), error_at = COALESCE(error_at, \(now)) WHERE id = \(id)",
                logger: logger)
        }
    }

    func rejectedPhotos(limit: Int) async throws(StoreError) -> [RejectedPhoto] {
        let logger = database.logger
        return try await database.read("listing rejected photos") { connection in
            var rejected: [RejectedPhoto] = []
            let rows = try await connection.guardedQuery(
                "SELECT photo_id, json, reason FROM rejected_photo ORDER BY id LIMIT \(limit)", logger: logger)
            for try await (photoID, json, reason) in rows.decode((String?, String, String).self) {
                rejected.append(RejectedPhoto(photoID: photoID, json: Data(json.utf8), reason: reason))
            }
            return rejected
        }
    }

    func maxSequence() async throws(StoreError) -> Int64 {
        let logger = database.logger
        return try await database.read("reading the highest sequence") { connection in
            try await Self.maxSequence(connection, logger)
        }
    }

    func maxMembership() async throws(StoreError) -> Int64 {
        let logger = database.logger
        return try await database.read("reading the newest membership") { connection in
            try await connection.guardedQuery("SELECT COALESCE(MAX(id), 0)::bigint FROM photo_source", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
        }
    }

    func pendingDownloadTracking(limit: Int) async throws(StoreError) -> [DownloadTrackingJob] {
        let logger = database.logger
        return try await database.read("listing downloads to track") { connection in
            var jobs: [DownloadTrackingJob] = []
            let rows = try await connection.guardedQuery(
                """
                SELECT id, download_location FROM photo
                WHERE download_tracked_at IS NULL AND download_location IS NOT NULL
                  AND (EXISTS (SELECT 1 FROM image WHERE image.photo_id = photo.id AND image.status = 'stored')
                       OR EXISTS (SELECT 1 FROM download_request WHERE download_request.photo_id = photo.id))
                ORDER BY sequence
                LIMIT \(limit)
                """, logger: logger)
            for try await (id, location) in rows.decode((String, String).self) {
                jobs.append(DownloadTrackingJob(photoID: id, downloadLocation: location))
            }
            return jobs
        }
    }

    func markDownloadsTracked(photoIDs: [String], at date: Date) async throws(StoreError) {
        guard !photoIDs.isEmpty else { return }
        let (logger, name) = (database.logger, database.name)
        try await database.write("marking \(photoIDs.count) downloads tracked") { connection in
            for photoID in photoIDs {
                let updated = try await connection.guardedQuery(
                    """
                    UPDATE photo SET download_tracked_at = COALESCE(download_tracked_at, \(date))
                    WHERE id = \(photoID) RETURNING id
                    """, logger: logger
                ).collect()
                guard !updated.isEmpty else { throw StoreError.unknownPhoto(path: name, photoID: photoID) }
            }
        }
    }

    func sourceObjectsFetched(sources: [PhotoSource]) async throws(StoreError) -> [PhotoSource: Date] {
        guard !sources.isEmpty else { return [:] }
        let logger = database.logger
        return try await database.read("reading when source objects were fetched") { connection in
            var fetched: [PhotoSource: Date] = [:]
            for source in sources {
                let date = try await connection.guardedQuery(
                    """
                    SELECT object_fetched_at FROM source
                    WHERE name = \(source.description) AND object_json IS NOT NULL
                    """, logger: logger
                ).collect().first?.decode(Date?.self)
                if let date { fetched[source] = date }
            }
            return fetched
        }
    }

    func storeSourceObject(_ json: Data, sources: [PhotoSource], at now: Date) async throws(StoreError) {
        let logger = database.logger
        let text = String(decoding: json, as: UTF8.self)
        try await database.write("storing the object of \(sources.map(\.description).joined(separator: ", "))") {
            connection in
            for source in sources {
                let id = try await Self.sourceID(named: source.description, connection, logger)
                try await connection.guardedQuery(
                    "UPDATE source SET object_json = \(text), object_fetched_at = \(now) WHERE id = \(id)",
                    logger: logger)
            }
        }
    }

    // MARK: - Inside a transaction

    static func maxSequence(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        try await connection.guardedQuery("SELECT COALESCE(MAX(sequence), 0)::bigint FROM photo", logger: logger)
            .collect().first?.decode(Int64.self) ?? 0
    }

    /// The row id of the source named `name`, created (active) if it is new.
    static func sourceID(named name: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        if let id = try await connection.guardedQuery("SELECT id FROM source WHERE name = \(name)", logger: logger)
            .collect().first?.decode(Int64.self)
        {
            return id
        }
        return try await connection.guardedQuery(
            "INSERT INTO source (name) VALUES (\(name)) RETURNING id", logger: logger
        )
        .collect()[0].decode(Int64.self)
    }

    static func insert(_ photo: PhotoRecord, sequence: Int64, seenAt now: Date) -> PostgresQuery {
        let json = String(decoding: photo.json, as: UTF8.self)
        return """
            INSERT INTO photo (id, sequence, created_at, updated_at, width, height, color, blur_hash, description,
                alt_description, user_username, user_name, likes, is_sponsored, download_location, is_plus, json,
                first_seen_at, last_seen_at)
            VALUES (\(photo.id), \(sequence), \(photo.createdAt), \(photo.updatedAt), \(photo.width), \(photo.height),
                \(photo.color), \(photo.blurHash), \(photo.description), \(photo.altDescription), \(photo.userUsername),
                \(photo.userName), \(photo.likes), \(photo.isSponsored), \(photo.downloadLocation), \(photo.isPlus),
                \(json), \(now), \(now))
            """
    }

    /// Only the API's columns are written: the sequence, the first sighting and the tracking stay.
    static func update(_ photo: PhotoRecord, seenAt now: Date) -> PostgresQuery {
        let json = String(decoding: photo.json, as: UTF8.self)
        return """
            UPDATE photo SET created_at = \(photo.createdAt), updated_at = \(photo.updatedAt), width = \(photo.width),
                height = \(photo.height), color = \(photo.color), blur_hash = \(photo.blurHash),
                description = \(photo.description), alt_description = \(photo.altDescription),
                user_username = \(photo.userUsername), user_name = \(photo.userName), likes = \(photo.likes),
                is_sponsored = \(photo.isSponsored), download_location = \(photo.downloadLocation),
                is_plus = \(photo.isPlus), json = \(json), last_seen_at = \(now)
            WHERE id = \(photo.id)
            """
    }

    /// Queues the jobs a page commit creates for `photo`, as SQLite's ledger does.
    static func queueImages(
        _ photo: PhotoRecord, variant: ImageVariant, moreVariants: [ImageVariant], _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        // An Unsplash+ image needs a paid licence: its metadata is kept, its image never fetched.
        guard !photo.isPlus else { return }
        if let imageURL = photo.imageURL {
            try await connection.guardedQuery(
                """
                INSERT INTO image (photo_id, variant, source_url) VALUES (\(photo.id), \(variant.rawValue), \(imageURL))
                ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                WHERE image.status <> 'stored'
                """, logger: logger)
        }
        for extra in moreVariants where extra != variant {
            // The variant is a key looked up as a value, so no JSON path is built from input.
            try await connection.guardedQuery(
                """
                INSERT INTO image (photo_id, variant, source_url)
                SELECT photo.id, \(extra.rawValue), url.value
                FROM photo, jsonb_each_text(photo.json::jsonb -> 'urls') AS url
                WHERE photo.id = \(photo.id) AND url.key = \(extra.rawValue)
                  AND jsonb_typeof(photo.json::jsonb -> 'urls' -> url.key) = 'string'
                ON CONFLICT (photo_id, variant) DO UPDATE SET source_url = excluded.source_url
                WHERE image.status <> 'stored'
                """, logger: logger)
        }
    }

    /// Adds `element` to `rejected_photo`, or moves its last-seen time; true when it is new.
    static func recordRejected(
        _ element: RejectedPhoto, seenAt now: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Bool {
        let json = String(decoding: element.json, as: UTF8.self)
        let inserted = try await connection.guardedQuery(
            """
            INSERT INTO rejected_photo (photo_id, json, reason, first_seen_at, last_seen_at)
            VALUES (\(element.photoID), \(json), \(element.reason), \(now), \(now))
            ON CONFLICT (json) DO UPDATE SET last_seen_at = excluded.last_seen_at, reason = excluded.reason
            RETURNING (xmax = 0)
            """, logger: logger
        ).collect().first?.decode(Bool.self)
        return inserted ?? false
    }

    /// The position of the first membership a page adds to `source`: SQLite's rule.
    static func nextPosition(
        after change: CursorChange, source: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int64 {
        switch change {
        case .backfill:
            let last = try await connection.guardedQuery(
                "SELECT MAX(position) FROM photo_source WHERE source_id = \(source)", logger: logger
            ).collect().first?.decode(Int64?.self)
            return max(last ?? 0, 0) + 1
        case .catchUp(_, let baseline):
            guard baseline >= 0, baseline < Int64.max / catchUpBlock else {
                throw PostgresStoreFault("catch-up baseline \(baseline) is out of range for positions")
            }
            let blockStart = -(baseline + 1) * catchUpBlock
            let blockEnd = blockStart + catchUpBlock
            let last = try await connection.guardedQuery(
                """
                SELECT MAX(position) FROM photo_source
                WHERE source_id = \(source) AND position >= \(blockStart) AND position < \(blockEnd)
                """, logger: logger
            ).collect().first?.decode(Int64?.self)
            return last.map { $0 + 1 } ?? blockStart
        }
    }

    static func apply(
        _ cursor: CursorChange, source: Int64, now: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        // A page stored means the source exists: an earlier failure is over.
        switch cursor {
        case .backfill(let next):
            try await connection.guardedQuery(
                """
                UPDATE source SET backfill_next = \(next?.absoluteString), backfill_complete = \(next == nil),
                    last_page_at = \(now), backfill_stall_reason = NULL, backfill_stalled_at = NULL,
                    error = NULL, error_at = NULL
                WHERE id = \(source)
                """, logger: logger)
        case .catchUp(let next, let baseline):
            let kept: Int64? = next == nil ? nil : baseline
            try await connection.guardedQuery(
                """
                UPDATE source SET catch_up_next = \(next?.absoluteString), catch_up_baseline = \(kept),
                    last_page_at = \(now), error = NULL, error_at = NULL
                WHERE id = \(source)
                """, logger: logger)
        }
    }
}

/// A fault of the store's own making inside a transaction (not the server's): its message.
struct PostgresStoreFault: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
