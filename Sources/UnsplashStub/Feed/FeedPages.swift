import Foundation

/// The stub's feed as its `GET /photos?page=P&per_page=K` answers it, made without a server and
/// without the feed in memory: each page from the places of its photos alone, so a feed of
/// millions is made a page at a time. For `scale-load` (Benchmarks/Loader), which stores what a
/// sync of a stub with the same configuration would, through photosync's own write path.
///
/// The body is the bytes the server sends; the `Link` header, the one it sends. Feeds with
/// advertisements (`sponsoredEvery`) are not made here.
public struct FeedPages: Sendable {
    public let configuration: UnsplashStub.Configuration
    public let perPage: Int
    /// The stub's address, which the photos' image and tracking URLs name.
    public let baseURL: URL
    private let photographers: [Photographer]
    private let sponsors: [Photographer]
    private let reservedIDs: Set<String>
    /// The pictures thumbnails borrow (``thumbnail(of:pool:)``): kept, as the stub keeps its own.
    private let pool: ImageGenerator

    /// One page: what the server answers, and the feed photos on it, newest first.
    public struct Page: Sendable {
        public let number: Int
        public let body: Data
        public let link: String?
        public let photos: [FeedPhoto]
    }

    /// A photo of the feed: its id and its sequence, 0 for the oldest.
    public struct FeedPhoto: Sendable, Equatable {
        public let id: String
        public let sequence: Int
    }

    public enum Failure: Error, CustomStringConvertible {
        /// The stub would have given this photo another id, which only its whole feed can tell.
        case idTaken(sequence: Int, id: String)

        public var description: String {
            switch self {
            case .idTaken(let sequence, let id):
                "feed photo \(sequence)'s id \(id) is an advertisement's or an Unsplash+ photo's"
            }
        }
    }

    /// - Precondition: `configuration.sponsoredEvery` is nil.
    public init(configuration: UnsplashStub.Configuration, baseURL: URL, perPage: Int = 30) {
        precondition(configuration.sponsoredEvery == nil, "FeedPages makes feeds without advertisements")
        self.configuration = configuration
        self.baseURL = baseURL
        self.perPage = PageQuery(parameters: [("per_page", String(perPage))]).perPage
        photographers = Photographer.photographers(seed: configuration.seed)
        sponsors = Photographer.sponsors(seed: configuration.seed)
        reservedIDs = PhotoFeed(seed: configuration.seed, count: 0).reservedIDs
        pool = ImageGenerator(
            seed: configuration.seed, baseSize: configuration.imageSize, pictures: Pictures(seed: configuration.seed))
    }

    /// The pages that hold photos.
    public var pageCount: Int {
        PageLayout(perPage: perPage, sponsoredEvery: nil).lastPage(total: configuration.photoCount)
    }

    /// Page `number` (1-based, as the stub reads `page`) as the stub answers it; past the last
    /// page, an empty one.
    public func page(_ number: Int) throws(Failure) -> Page {
        let count = configuration.photoCount
        let start = max(0, number - 1) * perPage
        var photos: [StubPhoto] = []
        var feedPhotos: [FeedPhoto] = []
        for position in start..<max(start, min(start + perPage, count)) {
            let sequence = count - 1 - position
            let id = PhotoFeed.firstChoiceID(sequence: sequence, seed: configuration.seed)
            guard !reservedIDs.contains(id) else { throw .idTaken(sequence: sequence, id: id) }
            photos.append(PhotoFeed.feedPhoto(sequence: sequence, id: id, seed: configuration.seed))
            feedPhotos.append(FeedPhoto(id: id, sequence: sequence))
        }
        // A page's own pictures: their swatches are kept while the page is made, then let go.
        let renderer = PhotoRenderer(
            seed: configuration.seed, baseURL: baseURL, photographers: photographers, sponsors: sponsors,
            pictures: Pictures(seed: configuration.seed))
        let body = Data(JSONValue.array(photos.map(renderer.summary)).serialized.utf8)
        let query = PageQuery(parameters: [("page", String(number)), ("per_page", String(perPage))])
        let link = query.linkHeader(
            baseURL: baseURL, lastPage: PageLayout(perPage: perPage, sponsoredEvery: nil).lastPage(total: count))
        return Page(number: number, body: body, link: link, photos: feedPhotos)
    }

    /// The `thumb` the stub serves for `photo`, its size and padding, but with the picture of
    /// feed photo `photo.sequence % pool` painted in it: at most `pool` pictures are ever painted
    /// (and kept), where the stub paints one a photo. The oldest `pool` photos have their own.
    public func thumbnail(of photo: FeedPhoto, pool size: Int) -> Data {
        let lender = photo.sequence % max(1, size)
        let name =
            lender == photo.sequence ? photo.id : PhotoFeed.firstChoiceID(sequence: lender, seed: configuration.seed)
        return pool.bytes(name: photo.id, variant: ImageVariant.thumb, pictureOf: name)
    }
}
