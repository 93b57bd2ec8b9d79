import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The catalog in SQLite: listings from the indexes alone (``PhotoListing``), search through
/// FTS5, every method one read transaction on GRDB's reader queues.
struct SQLitePhotoCatalog: PhotoCatalog {
    let database: StoreDatabase
    /// The keys listings continue from, counts and rankings, kept until the database changes
    /// (and for `lag` past a change).
    let anchors: ListingAnchors
    var limits = ListingLimits()

    init(database: StoreDatabase, lag: Duration = .zero) {
        var keeping = ListingAnchors.Keeping()
        keeping.rule.lag = lag
        self.init(database: database, keeping: keeping)
    }

    init(database: StoreDatabase, keeping: ListingAnchors.Keeping) {
        self.database = database
        anchors = ListingAnchors(keeping: keeping)
    }

    var rankLimit: Int { limits.rankLimit }

    func photo(id: String, variant: ImageVariant?) async throws(StoreError) -> StoredPhoto? {
        try await database.read("reading photo \(id)") { db in
            // By SQL rather than by key: a key lookup first reads the table's schema, which on the
            // fresh connection of `photosync query` costs more than the lookup itself.
            guard
                let photo = try PhotoRow.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM photo WHERE id = ?"), arguments: [id])
            else { return nil }
            let image = try StoredImageRow.fetchOne(db, photoID: id, variant: variant)?.image
            return photo.stored(image: image)
        }
    }

    func photoIDs(withStoredImage: Bool) async throws(StoreError) -> [String] {
        try await database.read("listing photos") { db in
            try String.fetchAll(
                db,
                sql: withStoredImage
                    ? """
                    SELECT id FROM photo
                    WHERE EXISTS (SELECT 1 FROM image WHERE photo_id = photo.id AND +status = \(ImageStatus.stored.sqlLiteral))
                    ORDER BY sequence
                    """
                    : "SELECT id FROM photo ORDER BY sequence")
        }
    }

    func sources(ofPhoto id: String) async throws(StoreError) -> [String] {
        try await database.read("listing the sources of photo \(id)") { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                    WHERE photo_source.photo_id = ? ORDER BY source.name
                    """, arguments: [id])
        }
    }

    func sourceNames() async throws(StoreError) -> [String] {
        try await database.read("listing the sources") { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT name FROM source ORDER BY name"))
        }
    }

    func sourceStatistics() async throws(StoreError) -> [SourceStatistics] {
        try await database.read("listing the sources") { db in try Self.sourceStatistics(db) }
    }

    func statistics() async throws(StoreError) -> StoreStatistics {
        try await database.read("computing statistics") { db in
            let photos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            var counts: [ImageStatus: Int64] = [:]
            var bytesStored: Int64 = 0
            var bytesPruned: Int64 = 0
            // Kept by triggers (schema v17, by variant since v18): counting them read every image row.
            for row in try Row.fetchAll(
                db, sql: "SELECT status, sum(images) AS count, sum(bytes) AS bytes FROM image_tally GROUP BY status")
            {
                let status: ImageStatus = try row.decode(forColumn: "status")
                counts[status] = try row.decode(forColumn: "count")
                if status == .stored { bytesStored = try row.decode(forColumn: "bytes") }
                if status == .pruned { bytesPruned = try row.decode(forColumn: "bytes") }
            }
            // The top-level backfill facts are the feed's, as before there were sources; complete
            // means every active source is complete.
            let sources = try Self.sourceStatistics(db)
            let state = try SQLiteSyncLedger.syncState(db, source: PhotoSource.feed.description)
            let active = sources.filter(\.active)
            var statistics = StoreStatistics(
                photos: photos,
                imagesStored: counts[.stored, default: 0],
                imagesPending: counts[.pending, default: 0],
                imagesFailed: counts[.failed, default: 0],
                bytesStored: bytesStored,
                backfillNext: state.backfillNext,
                backfillComplete: !active.isEmpty && active.allSatisfy(\.state.backfillComplete),
                lastPageAt: sources.compactMap(\.state.lastPageAt).max())
            statistics.rejectedPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM rejected_photo") ?? 0
            statistics.backfillStall = state.backfillStall ?? active.lazy.compactMap(\.state.backfillStall).first
            statistics.sources = sources
            statistics.plusPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE is_plus = 1") ?? 0
            if let retrying = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS count, MIN(next_attempt_at) AS next FROM image
                    WHERE status = \(ImageStatus.pending.sqlLiteral) AND failure_class = \(ImageFailureClass.transient.sqlLiteral)
                    """)
            {
                statistics.imagesRetrying = try retrying.decode(forColumn: "count")
                statistics.nextImageRetryAt = try retrying.decode(Date?.self, forColumn: "next")
            }
            statistics.imagesPruned = counts[.pruned, default: 0]
            statistics.bytesPruned = bytesPruned
            if let load = try Row.fetchOne(db, sql: "SELECT loaded_at, reason FROM configuration_load WHERE id = 1"),
                let loadedAt = (load["loaded_at"] as StoredDate?)?.date
            {
                statistics.configurationLoaded = ConfigurationLoad(
                    at: loadedAt, reload: load["reason"] as String == "reload")
            }
            return statistics
        }
    }

    func photos(matching query: PhotoQuery) async throws(StoreError) -> [PhotoSummary] {
        let path = database.path
        let limits = limits
        let result = await listingRead { db, anchors in
            let listing = PhotoListing(db: db, path: path, query: query, anchors: anchors, limits: limits)
            return try Self.summaries(db, rowIDs: try listing.pageRowIDs(), withSmallest: query.withSmallestImage)
        }
        return try listingResult(result, query, operation: "listing photos")
    }

    /// `body` in a read transaction, with the values listings keep (``ListingAnchors``). A value
    /// a server's read answered with past its time is made again by `body` in a read of its own,
    /// which no request waits for; what else that read finds (a page, a draw) is dropped.
    /// - Parameter interruptible: whether cancelling the calling task ends the read
    ///   (``StoreDatabase/interruptibleReadResult(_:)``), or it runs to its end.
    func listingRead<T: Sendable>(
        interruptible: Bool = true, _ body: @escaping @Sendable (Database, ListingAnchors.Reading) throws -> T
    ) async -> Result<T, any Error> {
        let (database, anchors) = (database, anchors)
        let reading = anchors.reading()
        let result =
            interruptible
            ? await database.interruptibleReadResult { db in try body(db, reading) }
            : await database.readResult { db in try body(db, reading) }
        let deferred = reading.deferred
        if !deferred.isEmpty {
            anchors.refresh(deferred) {
                _ = await database.readResult { db in _ = try body(db, anchors.reading(refreshing: deferred)) }
            }
        }
        return result
    }

    /// The value of a listing's read, or its failure as a `StoreError`.
    func listingResult<T>(_ result: Result<T, any Error>, _ query: PhotoQuery, operation: String) throws(StoreError)
        -> T
    {
        switch result {
        case .success(let value):
            return value
        case .failure(let error as DatabaseError) where query.text != nil && error.isRejectedSearch:
            throw .invalidSearch(query.text ?? "")
        case .failure(let error):
            throw StoreError(error, path: database.path, operation: operation)
        }
    }

    /// The photos of the rows `rowIDs`, in that order, with their latest stored image (and
    /// their smallest, `withSmallest`) and their sources: a lookup by row id for each, whatever
    /// the listing's filters were.
    ///
    /// The images are a second statement, each photo's newest and smallest chosen here: a
    /// subquery for each photo sorted its images in a temporary B-tree of its own, half the first
    /// statement's time.
    private static func summaries(_ db: Database, rowIDs: [Int64], withSmallest: Bool) throws -> [PhotoSummary] {
        guard !rowIDs.isEmpty else { return [] }
        let page = "[" + rowIDs.map(String.init).joined(separator: ",") + "]"
        let photos = try db.cachedStatement(
            sql: """
                SELECT photo.id, photo.created_at, photo.width, photo.height, photo.color, photo.likes,
                       photo.description, photo.alt_description, photo.user_username, photo.user_name,
                       (SELECT group_concat(name, char(31)) FROM (
                            SELECT source.name FROM photo_source JOIN source ON source.id = photo_source.source_id
                            WHERE photo_source.photo_id = photo.id ORDER BY source.name)) AS sources
                FROM json_each(?) AS page
                CROSS JOIN photo ON photo.rowid = page.value
                ORDER BY page.key
                """)
        let images = try db.cachedStatement(
            sql: """
                SELECT photo.id, \(StoredImageRow.columns(of: "image")) FROM json_each(?) AS page
                CROSS JOIN photo ON photo.rowid = page.value
                CROSS JOIN image ON image.photo_id = photo.id
                WHERE +image.status = \(ImageStatus.stored.sqlLiteral)
                """)
        var newest: [String: StoredImage] = [:]
        var smallest: [String: StoredImage] = [:]
        let rows = try Row.fetchCursor(images, arguments: [page])
        while let row = try rows.next() {
            let id = try row.decode(String.self, atIndex: 0)
            let image = try StoredImageRow(row: row, from: 1).image
            if newest[id].map(image.isNewer(than:)) ?? true { newest[id] = image }
            if withSmallest, smallest[id].map(image.isSmaller(than:)) ?? true { smallest[id] = image }
        }
        var summaries: [PhotoSummary] = []
        summaries.reserveCapacity(rowIDs.count)
        let photoRows = try Row.fetchCursor(photos, arguments: [page])
        while let row = try photoRows.next() {
            var summary = try summary(row, images: newest)
            summary.smallestImage = smallest[summary.id]
            summaries.append(summary)
        }
        return summaries
    }

    /// What separates the names of a photo's sources in ``summaries(_:rowIDs:withSmallest:)`` (`char(31)`): a
    /// control character, which no source's name holds (`PhotoSource` refuses them in a search's
    /// query, and every other kind of name is a path segment).
    private static let sourceSeparator: Character = "\u{1F}"

    /// A row of ``summaries(_:rowIDs:withSmallest:)``, read by position from the statement, not copied: by
    /// name, GRDB looked each column up in a dictionary of lowercased names, and a JSON decoder
    /// read the sources, 6 % of a gallery page's CPU.
    private static func summary(_ row: Row, images: [String: StoredImage]) throws -> PhotoSummary {
        let id = try row.decode(String.self, atIndex: 0)
        let sources = try row.decode(String?.self, atIndex: 10)
        return PhotoSummary(
            id: id,
            createdAt: try row.decode(StoredDate?.self, atIndex: 1)?.date,
            width: try row.decode(Int?.self, atIndex: 2),
            height: try row.decode(Int?.self, atIndex: 3),
            color: try row.decode(String?.self, atIndex: 4),
            likes: try row.decode(Int?.self, atIndex: 5),
            description: try row.decode(String?.self, atIndex: 6),
            altDescription: try row.decode(String?.self, atIndex: 7),
            userUsername: try row.decode(String?.self, atIndex: 8),
            userName: try row.decode(String?.self, atIndex: 9),
            image: images[id],
            sources: sources.map { $0.split(separator: sourceSeparator).map(String.init) } ?? [])
    }

    /// Counts the Unsplash+ members through the `photo_plus` index (`IN`): a join to `photo`
    /// read every member's photo row instead (`QueryPlanTests`).
    ///
    /// Counting a source's photos steps through its entries of an index, about 30 ms a million.
    /// The feed, which holds nearly every photo, is counted instead as what the other sources
    /// leave of the memberships' count, which SQLite reads from the table's pages alone.
    static func sourceStatistics(_ db: Database) throws -> [SourceStatistics] {
        let memberships = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo_source") ?? 0
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT source.*,
                       CASE WHEN source.name = ? THEN NULL
                            ELSE (SELECT COUNT(*) FROM photo_source WHERE source_id = source.id) END AS photos,
                       (SELECT COUNT(*) FROM photo_source
                        WHERE photo_source.source_id = source.id
                          AND photo_source.photo_id IN (SELECT id FROM photo WHERE is_plus = 1)) AS plus_photos
                FROM source ORDER BY name
                """, arguments: [PhotoSource.feed.description])
        let others = rows.compactMap { $0["photos"] as Int64? }.reduce(0, +)
        return rows.map { row in
            SourceStatistics(
                name: row["name"],
                active: row["active"],
                photos: (row["photos"] as Int64?) ?? memberships - others,
                plusPhotos: row["plus_photos"],
                state: SQLiteSyncLedger.syncState(row),
                failure: (row["error"] as String?).map { message in
                    SourceFailure(
                        message: message,
                        since: (row["error_at"] as StoredDate?)?.date ?? Date(timeIntervalSince1970: 0))
                })
        }
    }
}
