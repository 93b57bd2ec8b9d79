import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The catalog in SQLite: listings from the indexes alone (``PhotoListing``), search through
/// FTS5, every method one read transaction on GRDB's reader queues.
struct SQLitePhotoCatalog: SQLPhotoCatalog {
    let database: StoreDatabase
    var sql: any SQLExecutor { SQLiteExecutor(database: database) }
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
}
