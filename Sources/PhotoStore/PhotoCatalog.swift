import Foundation

/// What a person looks up in the store: photos listed and searched, one photo, the sources
/// that listed it, and the statistics of `photosync status`. Every method only reads, from one
/// snapshot. Its lookups are written once for both stores (`SQLPhotoCatalog`); each driver
/// lists and searches in its own way.
public protocol PhotoCatalog: Sendable {
    /// A search by relevance with more matches than this is not ranked (see ``photos(matching:)``).
    var rankLimit: Int { get }

    /// The photo with this id, with the metadata of its stored image of `variant` (of the most
    /// recently fetched stored variant when nil); nil when no such photo exists.
    func photo(id: String, variant: ImageVariant?) async throws(StoreError) -> StoredPhoto?

    /// The ids of stored photos in the order they were first stored; only those with a stored
    /// image when `withStoredImage` is true.
    func photoIDs(withStoredImage: Bool) async throws(StoreError) -> [String]

    /// The sources that listed the photo `id`, by name.
    func sources(ofPhoto id: String) async throws(StoreError) -> [String]

    /// The names of the sources the database knows, in order: without their statistics, which
    /// count every membership.
    func sourceNames() async throws(StoreError) -> [String]

    /// Every source the database knows, by name.
    func sourceStatistics() async throws(StoreError) -> [SourceStatistics]

    /// Counts of photos and images by status, stored bytes and the backfill's progress, from
    /// one snapshot. Reads `byte_count` columns, never image blobs.
    func statistics() async throws(StoreError) -> StoreStatistics

    /// The stored photos `query` selects, in its order, from one snapshot. Reads columns and
    /// indexes only: neither the JSON nor the image bytes, nor any row of the photos a page skips.
    ///
    /// A page costs about the same at any offset without a search. A search by relevance ranks
    /// its matches best first (``SearchRanking``, the same order on every store) when there are
    /// at most ``rankLimit`` of them; with more, it lists them most recently stored first, unranked.
    ///
    /// Cancelling the calling task interrupts the query: a request whose client has gone stops
    /// reading.
    /// - Throws: `StoreError.invalidSearch` when ``PhotoQuery/text`` is not in the search syntax,
    ///   `.unknownPhoto` when ``PhotoQuery/after`` or ``PhotoQuery/before`` names no photo,
    ///   `.interrupted` when the task was cancelled.
    func photos(matching query: PhotoQuery) async throws(StoreError) -> [PhotoSummary]

    /// The stored original JSON of each of `photoIDs` that exists, by id, from one snapshot and
    /// one statement (a page's ids: at most a few dozen).
    func originalJSON(photoIDs: [String]) async throws(StoreError) -> [String: Data]

    /// How many photos ``photos(matching:)`` would list for `query` without its limit and offset,
    /// counted once per connection until the database changes.
    /// Reads the filters `text`, `source`, `username`, `orientation` and `color`; the others are
    /// not counted.
    /// - Throws: `StoreError.invalidSearch` when ``PhotoQuery/text`` is not in the search syntax.
    func count(matching query: PhotoQuery) async throws(StoreError) -> Int

    /// A page of ``photos(matching:)`` as each photo's stored original JSON, with the count of
    /// ``count(matching:)``, from one snapshot: what an Unsplash-shaped list answers. An offset
    /// past the count reads no page.
    ///
    /// Cancelling the calling task interrupts the query, as for ``photos(matching:)``.
    /// - Throws: `StoreError.invalidSearch` when ``PhotoQuery/text`` is not in the search syntax,
    ///   `.interrupted` when the task was cancelled.
    func originalJSONPage(matching query: PhotoQuery) async throws(StoreError) -> OriginalJSONPage

    /// The pages of ``originalJSONPage(matching:)`` for each of `queries`, in their order, from
    /// one snapshot and one trip to a reader: a random draw of many photos is as many one-photo
    /// pages.
    /// - Throws: as ``originalJSONPage(matching:)``.
    func originalJSONPages(matching queries: [PhotoQuery]) async throws(StoreError) -> [OriginalJSONPage]

    /// `count` photos drawn at random from every stored photo, as their stored JSON; distinct
    /// while there are enough photos, repeating only once every photo is drawn.
    ///
    /// Each draw is the first photo at or after a random number between the lowest and highest
    /// `sequence`, a lookup in its index: drawing by position in a listing walked up to a
    /// thousand index entries a photo. Numbers left by removed photos make the photo after them
    /// likelier; photosync removes none but rejected ones.
    func randomOriginalJSON(count: Int) async throws(StoreError) -> [OriginalJSONPage.Photo]

    /// Whether the source was ever configured or synced.
    func hasSource(_ source: PhotoSource) async throws(StoreError) -> Bool

    /// Whether a photo `id` is stored; by its key, reading no JSON.
    func hasPhoto(id: String) async throws(StoreError) -> Bool

    /// The stored object of the first of `sources` that has one, newest fetched first when
    /// several do (`user:ann` and `likes:ann` share a profile); nil when none has.
    func sourceObject(ofAny sources: [PhotoSource]) async throws(StoreError) -> Data?

    /// The topic source whose stored object has `key` as its `id` or `slug`, newest fetched
    /// first: a topic synced by its slug, asked for by its id (or the other way round). Nil when
    /// none has.
    func topic(objectIDOrSlug key: String) async throws(StoreError) -> PhotoSource?
}

extension PhotoCatalog {
    /// The photo with this id, with the metadata of its most recently fetched stored image; nil
    /// when no such photo exists.
    public func photo(id: String) async throws(StoreError) -> StoredPhoto? {
        try await photo(id: id, variant: nil)
    }

    /// The ids of every stored photo in the order they were first stored.
    public func photoIDs() async throws(StoreError) -> [String] {
        try await photoIDs(withStoredImage: false)
    }
}

/// A page of photos as the JSON Unsplash sent, and how many photos the whole listing holds.
public struct OriginalJSONPage: Sendable, Equatable {
    public struct Photo: Sendable, Equatable {
        public let id: String
        public let json: Data

        public init(id: String, json: Data) {
            self.id = id
            self.json = json
        }
    }

    /// How many photos the listing holds, every page together.
    public let total: Int
    /// The page's photos, in the listing's order.
    public let photos: [Photo]

    public init(total: Int, photos: [Photo]) {
        self.total = total
        self.photos = photos
    }
}
