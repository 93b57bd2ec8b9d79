import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import TestSupport
import Testing

/// The catalog's contract (``PhotoCatalog``): listings in each order, cursors, filters, search
/// in photosync's syntax, counts, statistics and the original JSON, held to on every store.
@Suite("The catalog, on every store")
struct CatalogContractTests {
    /// Five photos: `u` has no creation date and no likes; `c` and `d` share one date.
    static let five = [
        Sample.photo("a", created: 100, likes: 5), Sample.photo("b", created: 300, likes: 9),
        Sample.photo("c", created: 200, likes: 5),
        Sample.photo("d", created: 200, likes: 0), Sample.photo("u", created: nil, likes: nil),
    ]

    static func ids(_ store: PhotoStore, _ query: PhotoQuery) async throws -> [String] {
        try await store.catalog.photos(matching: query).map(\.id)
    }

    @Test("each order lists every photo once, undated ones where SQLite sorts NULL", arguments: Backend.allCases)
    func eachOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.five)
            // Sequences: a 1, b 2, c 3, d 4, u 5. Ties on the date go by sequence.
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest)) == ["b", "d", "c", "a", "u"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .oldest)) == ["u", "a", "c", "d", "b"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .likes)) == ["b", "c", "a", "d", "u"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, limit: 2, offset: 2)) == ["c", "a"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, limit: 0)) == [])
        }
    }

    @Test("a cursor continues after or before a photo, and one naming no photo is refused", arguments: Backend.allCases)
    func cursors(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.five)
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, limit: 2, after: "d")) == ["c", "a"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, limit: 2, after: "a")) == ["u"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .newest, limit: 2, before: "a")) == ["d", "c"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .oldest, limit: 2, after: "u")) == ["a", "c"])
            #expect(try await Self.ids(store, PhotoQuery(sort: .likes, limit: 3, after: "b")) == ["c", "a", "d"])
            await #expect(throws: StoreError.unknownPhoto(path: store.path, photoID: "zz")) {
                _ = try await store.catalog.photos(matching: PhotoQuery(after: "zz"))
            }
        }
    }

    @Test("filters: username without case, orientation, colour, dates, source", arguments: Backend.allCases)
    func filters(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let c = Sample.photo("c", created: 300, width: 100, height: 100, color: "#d01a1a", username: "ann")
            try await store.ledger.commit([
                Sample.photo("a", created: 100, width: 3000, height: 4000, color: "#1a3fd0", username: "Ann"),
                Sample.photo("b", created: 200, color: "#f2f2f2", username: "bob"), c,
            ])
            try await store.ledger.commit([c], source: "user:ann")
            #expect(try await Self.ids(store, PhotoQuery(username: "ANN")) == ["c", "a"])
            #expect(try await Self.ids(store, PhotoQuery(orientation: .portrait)) == ["a"])
            #expect(try await Self.ids(store, PhotoQuery(orientation: .squarish)) == ["c"])
            var blue = PhotoQuery()
            blue.color = .blue
            #expect(try await Self.ids(store, blue) == ["a"])
            blue.color = .white
            #expect(try await Self.ids(store, blue) == ["b"])
            #expect(try await Self.ids(store, PhotoQuery(since: Instant.t(200), until: Instant.t(300))) == ["b"])
            #expect(try await Self.ids(store, PhotoQuery(source: "user:ann")) == ["c"])
            #expect(try await Self.ids(store, PhotoQuery(source: "user:nobody")) == [])
            #expect(try await store.catalog.count(matching: PhotoQuery(username: "ann")) == 2)
            #expect(try await store.catalog.count(matching: PhotoQuery(source: "feed")) == 3)
            #expect(try await store.catalog.sources(ofPhoto: "c") == ["feed", "user:ann"])
            #expect(try await store.catalog.sourceNames() == ["feed", "user:ann"])
        }
    }

    @Test("a source's own order, from its memberships, with cursors", arguments: Backend.allCases)
    func sourceOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(Self.five)
            try await store.ledger.commit(
                [Sample.photo("d", created: 200), Sample.photo("a", created: 100)], next: 2,
                source: "collection:1")
            try await store.ledger.commit([Sample.photo("b", created: 300)], next: nil, source: "collection:1")
            var query = PhotoQuery(source: "collection:1")
            query.inSourceOrder = true
            #expect(try await Self.ids(store, query) == ["d", "a", "b"])
            query.after = "d"
            #expect(try await Self.ids(store, query) == ["a", "b"])
            query.after = nil
            query.before = "b"
            query.limit = 1
            #expect(try await Self.ids(store, query) == ["a"])
        }
    }

    @Test("search: words, phrases, prefixes, OR, NOT, accents, the details' tags", arguments: Backend.allCases)
    func search(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([
                Sample.photo("a", created: 100, description: "A mountain lake in Zürich"),
                Sample.photo("b", created: 200, description: "lake of mountains"),
                Sample.photo("c", created: 300, description: "city at night"),
            ])
            func search(_ text: String) async throws -> Set<String> {
                Set(try await Self.ids(store, PhotoQuery(text: text, sort: .relevance)))
            }
            #expect(try await search("lake") == ["a", "b"])
            #expect(try await search("mountain lake") == ["a"])
            #expect(try await search("\"mountain lake\"") == ["a"])
            #expect(try await search("moun*") == ["a", "b"])
            #expect(try await search("zurich") == ["a"])
            #expect(try await search("lake NOT zurich") == ["b"])
            #expect(try await search("night OR zurich") == ["a", "c"])
            #expect(try await search("(night OR zurich) AND lake") == ["a"])
            #expect(try await search("LAKE") == ["a", "b"])
            // A quote is a quote whatever mark follows it, as FTS5 reads it: the same phrase on both.
            #expect(try await search("\"\u{301}mountain lake\"") == ["a"])
            #expect(try await store.catalog.count(matching: PhotoQuery(text: "lake")) == 2)
            // A quote or a backslash with a combining mark after it: part of a word (PostgreSQL folds
            // the mark away, so "lake'" finds the lakes), or invalid, and never the database's
            // error: `to_tsquery` would read such a quote as the end of a quoted word.
            for text in ["l'\u{301}eau", "lake'\u{301}", "la\\\u{301}ke"] {
                do {
                    #expect(try await search(text).isSubset(of: ["a", "b"]), "\(text)")
                } catch let error as StoreError {
                    #expect(error == .invalidSearch(text), "\(text)")
                }
            }
            for invalid in ["\"open", "NOT lake", "lake OR", "(lake", "*"] {
                await #expect(throws: StoreError.invalidSearch(invalid)) {
                    _ = try await store.catalog.photos(matching: PhotoQuery(text: invalid))
                }
            }

            // The details' tags are searched from the moment they are stored.
            #expect(try await search("volcano").isEmpty)
            let details = #"{"id": "c", "tags": [{"title": "volcano"}], "location": {"city": "Reykjavík"}}"#
            #expect(try await store.photoDetails.store(Data(details.utf8), photoID: "c", at: Instant.t0))
            #expect(try await search("volcano") == ["c"])
            #expect(try await search("reykjavik") == ["c"])
            #expect(try await store.photoDetails.details(photoID: "c")?.json == Data(details.utf8))

            // A listing that stores the photo again keeps them; one that changes it, too.
            try await store.ledger.commit([Sample.photo("c", created: 300, description: "city at night")])
            #expect(try await search("volcano") == ["c"])
            try await store.ledger.commit([Sample.photo("c", created: 300, description: "harbour at dawn")])
            #expect(try await search("volcano harbour") == ["c"])
            #expect(try await search("night").isEmpty)
        }
    }

    @Test("the original JSON comes back byte for byte, in pages with their count", arguments: Backend.allCases)
    func originalJSON(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let json = #"{"id":"a",  "z": 1, "a": [2,1], "urls": {"regular": "https://images.example.com/a"}}"#
            try await store.ledger.commit([
                Sample.photo("a", created: 100, json: json), Sample.photo("b", created: 200),
                Sample.photo("c", created: 300),
            ])
            #expect(try await store.catalog.originalJSON(photoIDs: ["a", "zz"]) == ["a": Data(json.utf8)])
            #expect(try await store.catalog.photo(id: "a")?.json == Data(json.utf8))
            let page = try await store.catalog.originalJSONPage(matching: PhotoQuery(limit: 2, offset: 1))
            #expect(page.total == 3 && page.photos.map(\.id) == ["b", "a"])
            #expect(page.photos.last?.json == Data(json.utf8))
            let past = try await store.catalog.originalJSONPage(matching: PhotoQuery(limit: 2, offset: 3))
            #expect(past.total == 3 && past.photos.isEmpty)
            let drawn = try await store.catalog.randomOriginalJSON(count: 3)
            #expect(Set(drawn.map(\.id)) == ["a", "b", "c"], "distinct while there are enough")
            let more = try await store.catalog.randomOriginalJSON(count: 5)
            #expect(more.count == 5 && Set(more.map(\.id)) == ["a", "b", "c"], "then repeated")
        }
    }

    @Test("a count follows the data: a new page is counted at once", arguments: Backend.allCases)
    func countsFollowTheData(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", created: 100)])
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 1)
            try await store.ledger.commit([Sample.photo("b", created: 200)], next: 3)
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 2)
            let page = try await store.catalog.originalJSONPage(matching: PhotoQuery(limit: 10))
            #expect(page.total == 2 && page.photos.count == 2)
        }
    }

    @Test(
        "a search ranks while its matches are few, and lists newest first once they are too many to rank",
        arguments: Backend.allCases)
    func aSearchsRankingFollowsItsMatches(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let search = PhotoQuery(text: "mountain", sort: .relevance, limit: 1)
            try await store.ledger.commit([
                Sample.photo("rich", created: 100, description: "mountain mountain mountain")
            ])
            try await store.ledger.commit([Sample.photo("plain", created: 200, description: "a mountain")], next: 3)
            #expect(try await store.catalog.photos(matching: search).map(\.id) == ["rich"], "the best match first")
            var second = search
            second.offset = 1
            #expect(try await store.catalog.photos(matching: second).map(\.id) == ["plain"], "a page of the ranking")
            second.offset = 2
            #expect(try await store.catalog.photos(matching: second).isEmpty)
            // Both stores rank at most 1,000 matches.
            let many = (0..<1_000).map { Sample.photo("m\($0)", created: 300 + Double($0), description: "a mountain") }
            try await store.ledger.commit(many, next: 4)
            #expect(
                try await store.catalog.photos(matching: search).map(\.id) == ["m999"],
                "the most recently stored first: the count of matches was made again")
            var page = search
            (page.limit, page.offset) = (3, 1)
            #expect(try await store.catalog.photos(matching: page).map(\.id) == ["m998", "m997", "m996"])
            let json = try await store.catalog.originalJSONPages(matching: [page]).first?.photos.map(\.id)
            #expect(json == ["m998", "m997", "m996"], "the pages of the Unsplash-shaped search")
        }
    }

    @Test("the sources follow the data: a new source is found at once", arguments: Backend.allCases)
    func sourcesFollowTheData(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", created: 100)])
            #expect(try await store.catalog.sourceNames() == ["feed"])
            #expect(try await !store.catalog.hasSource(.user("ann")))
            #expect(try await Self.ids(store, PhotoQuery(source: "user:ann")) == [])
            try await store.ledger.commit([Sample.photo("a", created: 100)], source: "user:ann")
            #expect(try await store.catalog.sourceNames() == ["feed", "user:ann"])
            #expect(try await store.catalog.hasSource(.user("ann")))
            #expect(try await Self.ids(store, PhotoQuery(source: "user:ann")) == ["a"])
        }
    }

    @Test("with a lag, a server's count and page total stay behind the data", arguments: Backend.allCases)
    func countsLagBehindTheData(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .seconds(3600)) { store, reader in
            try await store.ledger.commit([Sample.photo("a", created: 100)])
            #expect(try await reader.catalog.count(matching: PhotoQuery()) == 1)
            #expect(try await reader.catalog.originalJSONPage(matching: PhotoQuery(limit: 10)).total == 1)
            try await store.ledger.commit([Sample.photo("b", created: 200)], next: 3)
            #expect(try await reader.catalog.count(matching: PhotoQuery()) == 1, "kept for the lag")
            #expect(try await reader.catalog.originalJSONPage(matching: PhotoQuery(limit: 10)).total == 1)
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 2, "a store without a lag follows")
        }
    }

    @Test(
        "with a lag, a source that held every photo still lists none of another source's that just arrived",
        arguments: Backend.allCases)
    func aSourceHoldingEveryPhotoIsNotTakenOnTrust(_ backend: Backend) async throws {
        try await backend.withStoreAndReader(lag: .seconds(3600)) { store, reader in
            try await store.ledger.commit([Sample.photo("a", created: 100), Sample.photo("b", created: 200)])
            let feed = PhotoQuery(source: "feed")
            // Each store looks at whether a source holds every photo: SQLite for a search within
            // it, PostgreSQL for any listing of it in another order than its own.
            let feedSearch = PhotoQuery(text: "user", source: "feed")
            #expect(try await Self.ids(reader, feed) == ["b", "a"])
            #expect(try await Self.ids(reader, feedSearch).sorted() == ["a", "b"])

            try await store.ledger.commit([Sample.photo("c", created: 300)], source: "user:ann")

            #expect(try await Self.ids(reader, feed) == ["b", "a"])
            #expect(try await Self.ids(reader, feedSearch).sorted() == ["a", "b"])
            #expect(try await store.catalog.count(matching: PhotoQuery()) == 3)
            #expect(try await store.catalog.count(matching: feed) == 2)
        }
    }

    @Test("statistics: photos, images by status, sources and their state", arguments: Backend.allCases)
    func statistics(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("p", isPlus: true)])
            let bytes = Data("jpeg".utf8)
            try await store.archive.storeImages([ArchiveContractTests.image("a", bytes)])
            try await store.ledger.recordSourceFailure("user:gone", message: "Couldn't find User", at: Instant.t0)
            let statistics = try await store.catalog.statistics()
            #expect(statistics.photos == 3 && statistics.plusPhotos == 1)
            #expect(statistics.imagesStored == 1 && statistics.imagesPending == 1 && statistics.bytesStored == 4)
            #expect(statistics.backfillNext == Sample.pageURL(2) && statistics.lastPageAt == Instant.t0)
            #expect(statistics.sources.map(\.name) == ["feed", "user:gone"])
            #expect(statistics.sources[0].photos == 3 && statistics.sources[0].plusPhotos == 1)
            #expect(statistics.sources[1].failure?.message == "Couldn't find User")

            let summary = try #require(
                try await store.catalog.photos(matching: PhotoQuery(limit: 3)).first { $0.id == "a" })
            #expect(summary.image?.byteCount == 4 && summary.sources == ["feed"])
            #expect(try await store.catalog.photo(id: "a")?.image?.sha256.count == 64)
            #expect(try await store.catalog.photoIDs(withStoredImage: true) == ["a"])
        }
    }

    @Test(
        "a listed photo shows its newest image, and its smallest when asked; an archive lists the smallest first",
        arguments: Backend.allCases)
    func newestImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            #expect(try await store.imageQueue.enqueueMissingImages(variant: .small) == 2)
            func image(_ id: String, _ variant: ImageVariant, bytes: Int, at seconds: TimeInterval) -> ImageToStore {
                Sample.image(
                    id, variant: variant, data: ArchiveContractTests.bytes(bytes), fetchedAt: Instant.t(seconds))
            }
            // a's small image came later; b's two came at once, and "regular" is first by name
            try await store.archive.storeImages([
                image("a", .regular, bytes: 3, at: 0), image("a", .small, bytes: 5, at: 60),
                image("b", .small, bytes: 2, at: 0), image("b", .regular, bytes: 4, at: 0),
            ])

            var withSmallest = PhotoQuery()
            withSmallest.withSmallestImage = true
            let listed = try await store.catalog.photos(matching: withSmallest)
            #expect(listed.map(\.id).sorted() == ["a", "b"])
            #expect(listed.first { $0.id == "a" }?.image?.variant == .small)
            #expect(listed.first { $0.id == "b" }?.image?.variant == .regular)
            #expect(listed.first { $0.id == "a" }?.smallestImage?.variant == .regular)
            #expect(listed.first { $0.id == "b" }?.smallestImage?.variant == .small)
            // Not asked for, the smallest is not read, and the rest is the same
            let plain = try await store.catalog.photos(matching: PhotoQuery())
            #expect(plain.allSatisfy { $0.smallestImage == nil })
            #expect(plain.map(\.image) == listed.map(\.image) && plain.map(\.id) == listed.map(\.id))
            let archived = try await store.archive.storedImages(photoIDs: ["a", "b", "a", "none"])
            #expect(archived.mapValues { $0.map(\.variant) } == ["a": [.regular, .small], "b": [.small, .regular]])
        }
    }

    @Test("requests from serve: a download asked for, details asked for, each once", arguments: Backend.allCases)
    func requests(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let downloads = try store.storage.openDownloadRequests()
            #expect(try await downloads.record(photoID: "a", at: Instant.t0))
            #expect(try await downloads.record(photoID: "a", at: Instant.t(60)))
            #expect(try await downloads.record(photoID: "zz", at: Instant.t0) == false)
            #expect(try await downloads.requested() == ["a": Instant.t0])

            let details = try store.storage.openPhotoDetailsRequests()
            #expect(try await details.record(photoID: "b", at: Instant.t0))
            #expect(try await store.photoDetails.isRequested(photoID: "b"))
            #expect(try await store.photoDetails.pending(.requested, limit: 10) == ["b"])
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["b", "a"])
            try await store.photoDetails.store(Data(#"{"id": "b"}"#.utf8), photoID: "b", at: Instant.t0)
            #expect(try await store.photoDetails.isRequested(photoID: "b") == false)
            #expect(try await store.photoDetails.pending(.all, limit: 10) == ["a"])
        }
    }

    @Test("a deep page by number is the same page as the whole listing has there", arguments: Backend.allCases)
    func deepPagesByNumber(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            // 2,600 photos: pages past 2,000 start from an anchor on either store. Dates repeat,
            // so ties go by sequence; a user of their own holds every third photo.
            for page in 0..<13 {
                let photos = (0..<200).map { index in
                    let number = page * 200 + index
                    return Sample.photo(
                        "p\(number)", created: Double(number % 50) * 60, likes: number % 7,
                        username: number % 3 == 0 ? "third" : nil)
                }
                try await store.ledger.commit(photos, next: page + 2, now: Instant.t(Double(page)))
            }
            // The feed in its own order: its memberships alone, and with a filter on the photos
            // (every photo is a landscape).
            var feedOrder = PhotoQuery(source: "feed")
            feedOrder.inSourceOrder = true
            var feedOrderOfLandscapes = feedOrder
            feedOrderOfLandscapes.orientation = .landscape
            let queries = [
                PhotoQuery(sort: .newest), PhotoQuery(sort: .oldest), PhotoQuery(sort: .likes),
                PhotoQuery(source: "feed", sort: .newest), PhotoQuery(username: "third", sort: .oldest),
                feedOrder, feedOrderOfLandscapes,
            ]
            for query in queries {
                let all = try await Self.ids(store, query)
                for offset in [1_999, 2_000, 2_345, 2_590, 2_600, 5_000] {
                    var page = query
                    (page.limit, page.offset) = (13, offset)
                    let expected = Array(all.dropFirst(offset).prefix(13))
                    #expect(try await Self.ids(store, page) == expected, "\(query.sort) at \(offset)")
                }
            }
            // A newest photo more moves every deep page down by one: the anchors follow the data.
            var deep = PhotoQuery(sort: .newest, limit: 3, offset: 2_345)
            let before = try await Self.ids(store, deep)
            try await store.ledger.commit([Sample.photo("newest", created: 9_999)], next: nil, now: Instant.t(99))
            deep.offset = 2_346
            #expect(try await Self.ids(store, deep) == before)
        }
    }

}

/// PostgreSQL's own pieces of the catalog, checked against the Swift they stand for.
@Suite("PostgreSQL's colours and search syntax")
struct PostgresCatalogPiecesTests {
    @Test("photosync_colors names the colours PhotoColor names, for every kind of hex")
    func colorsAgreeWithPhotoColor() async throws {
        var hexes = ["#000000", "#ffffff", "#FF0000", "#1f1f1f", "#d9d9d9", "#80ff00", "not a colour", "#12345"]
        var state: UInt64 = 42
        for _ in 0..<400 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            hexes.append(String(format: "#%06x", Int(state >> 40) & 0xFF_FFFF))
        }
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let store = try await PostgresStore.open(
            try PostgresLocation(parsing: url), password: nil, logger: Logger(label: "photosync.contract"))
        defer { try? store.close() }
        let records = hexes.enumerated().map { index, hex in
            Sample.photo("p\(index)", created: 0, color: hex)
        }
        try await store.ledger.commit(records)
        for color in PhotoColor.allCases {
            var query = PhotoQuery()
            query.color = color
            let found = Set(try await store.catalog.photos(matching: query).map(\.id))
            let expected = Set(hexes.enumerated().filter { color.matches(hex: $0.element) }.map { "p\($0.offset)" })
            #expect(found == expected, "\(color)")
        }
    }

    @Test("a photo is known by its id once committed, and no other is", arguments: Backend.allCases)
    func hasPhoto(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await !store.catalog.hasPhoto(id: "a"))
            try await store.ledger.commit([Sample.photo("a", created: 100)])
            #expect(try await store.catalog.hasPhoto(id: "a"))
            #expect(try await !store.catalog.hasPhoto(id: "A"), "ids are compared exactly")
            #expect(try await !store.catalog.hasPhoto(id: "b"))
        }
    }

    @Test("every store ranks up to the same number of matches: 1,000", arguments: Backend.allCases)
    func rankLimit(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            // aSearchsRankingFollowsItsMatches shows what happens on either side of it.
            #expect(store.catalog.rankLimit == 1_000)
        }
    }

    @Test("the details of several photos are read at once, only for those that have them", arguments: Backend.allCases)
    func detailsOfSeveralPhotos(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", created: 100), Sample.photo("b", created: 200)])
            #expect(try await store.photoDetails.details(photoIDs: ["a", "b", "zz"]).isEmpty)
            let a = Data(#"{"id": "a", "exif": {"make": "Canon"}}"#.utf8)
            let b = Data(#"{"id": "b", "location": {"city": "Oslo"}}"#.utf8)
            #expect(try await store.photoDetails.store(a, photoID: "a", at: Instant.t(5)))
            #expect(try await store.photoDetails.store(b, photoID: "b", at: Instant.t(6)))
            #expect(try await !store.photoDetails.store(a, photoID: "zz", at: Instant.t(7)))
            let details = try await store.photoDetails.details(photoIDs: ["a", "b", "zz", "a"])
            #expect(details.mapValues(\.fetchedAt) == ["a": Instant.t(5), "b": Instant.t(6)])
            #expect(details["a"]?.json == a && details["b"]?.json == b)
            #expect(try await store.photoDetails.details(photoIDs: []).isEmpty)
        }
    }
}
