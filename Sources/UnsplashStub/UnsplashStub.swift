import Foundation

/// A local, offline imitation of the parts of Unsplash photosync uses: the paginated
/// `GET /photos` feed, `GET /photos/:id`, download tracking through `download_location`, and
/// the image CDN, all served over HTTP from one address.
///
/// Everything it serves is deterministic for a given `Configuration.seed`: photo ids, JSON
/// bodies and image bytes, so tests can state in advance what a client must end up with
/// (`expectedSHA256(photoID:variant:)`). API requests (`/photos...`) are authorized and rate
/// limited as Unsplash's are; image requests (`/images/...`) are neither.
///
/// The stub never writes its access key anywhere: not to output, not into any response.
public actor UnsplashStub {
    public nonisolated let configuration: Configuration

    var feed: PhotoFeed
    let images: ImageGenerator
    let photographers: [Photographer]
    let sponsors: [Photographer]
    /// The image names of photographers' avatars, `profile-<user id>`.
    let profileImageNames: Set<String>

    var budget: StubRateLimit
    var faults = Faults()
    var log = RequestLog()
    var waiters = RequestWaiters()

    private var listener: HTTPListener?
    private var isStarting = false
    private var foreignOrigins: [ForeignOrigin] = []

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        feed = PhotoFeed(seed: configuration.seed, count: configuration.photoCount)
        images = ImageGenerator(
            seed: configuration.seed, baseSize: configuration.imageSize, pictures: Pictures(seed: configuration.seed))
        photographers = Photographer.photographers(seed: configuration.seed)
        sponsors = Photographer.sponsors(seed: configuration.seed)
        profileImageNames = Set((photographers + sponsors).map { "profile-" + $0.id })
        budget = StubRateLimit(
            limit: configuration.rateLimit, remaining: configuration.rateLimitRemaining ?? configuration.rateLimit)
    }

    // MARK: - Lifecycle

    /// Opens the listening socket and starts serving; returns once connections are accepted.
    ///
    /// - Throws: `UnsplashStubError.invalidConfiguration` for an invalid configuration,
    ///   `.alreadyStarted` if running, `.cannotListen` if the socket cannot be bound.
    public func start() async throws {
        guard listener == nil, !isStarting else { throw UnsplashStubError.alreadyStarted }
        try configuration.validate()
        guard let address = ListeningAddress(host: configuration.host, port: configuration.port) else {
            throw UnsplashStubError.invalidConfiguration("host must be an IPv4 or IPv6 address")
        }
        isStarting = true
        defer { isStarting = false }
        listener = try await HTTPListener.start(on: address) { [self] request in
            await reply(to: request)
        }
    }

    /// Closes the listening socket and every connection, cutting off answers still delayed or
    /// being sent, stops the foreign origins it started, and returns once all have stopped.
    /// Waits in `firstRequest(where:)` end with nil. Safe to call when not running.
    public func stop() async {
        let origins = foreignOrigins
        foreignOrigins = []
        for origin in origins { await origin.stop() }
        guard let listener else { return }
        self.listener = nil
        await listener.stop()
        waiters.cancelAll()
    }

    var isRunning: Bool { listener != nil }

    /// Starts a `ForeignOrigin` on `host` (by default the stub's own host) and an ephemeral
    /// port: another origin to redirect clients to. `stop()` stops it too.
    public func startForeignOrigin(host: String? = nil) async throws -> ForeignOrigin {
        let origin = ForeignOrigin(host: host ?? configuration.host)
        try await origin.start()
        foreignOrigins.append(origin)
        return origin
    }

    /// `http://HOST:PORT` of the running stub, with the port actually bound (also when
    /// `configuration.port` is 0). Before `start()` it carries the configured port.
    public var baseURL: URL {
        let address = ListeningAddress(host: configuration.host, port: configuration.port)
        let port = listener?.port ?? configuration.port
        return address?.url(port: port) ?? URL(string: "http://\(configuration.host):\(port)")!
    }

    // MARK: - The feed

    /// The number of photos in the feed, as `X-Total` reports it.
    public var photoCount: Int { feed.count }

    /// The ids of the feed, newest first (the order of `GET /photos`), without advertisements.
    public func photoIDs() -> [String] {
        (0..<feed.count).map { feed.newest(at: $0).id }
    }

    /// The users, collections and topics the stub serves, over its feed.
    private var sourceCatalog: SourceCatalog {
        SourceCatalog(
            feed: feed,
            renderer: PhotoRenderer(
                seed: configuration.seed, baseURL: baseURL, photographers: photographers, sponsors: sponsors,
                pictures: images.pictures),
            seed: configuration.seed)
    }

    /// The ids a source lists (`user:ann`, `likes:ann`, `collection:3773378`, `topic:wallpapers`,
    /// `search:lake`, or `feed`), newest first, as every page of it together holds them; nil for
    /// a user, collection or topic the stub does not have (the API answers 404).
    public func photoIDs(ofSource source: String) -> [String]? {
        if source == "feed" { return photoIDs() }
        guard let colon = source.firstIndex(of: ":") else { return nil }
        let catalog = sourceCatalog
        let kind = String(source[..<colon])
        let value = String(source[source.index(after: colon)...])
        return try? catalog.photos(ofSource: kind, value).get().map(\.id)
    }

    /// The JSON the stub answers for the object of a source (`user:ann`, `likes:ann`,
    /// `collection:3773378`, `topic:wallpapers`); nil for the feed, a search, and one it does not
    /// have.
    public func sourceObject(_ source: String) -> String? {
        guard let colon = source.firstIndex(of: ":") else { return nil }
        let catalog = sourceCatalog
        let value = String(source[source.index(after: colon)...])
        let path: [String]? =
            switch source[..<colon] {
            case "user", "likes": ["users", value]
            case "collection": ["collections", value]
            case "topic": ["topics", value]
            default: nil
            }
        return path.flatMap { try? catalog.object(path: $0).get().serialized }
    }

    /// The ids of the Unsplash+ photos (in likes, topics and search; never in the feed).
    public func premiumPhotoIDs() -> [String] {
        feed.premium.map(\.id)
    }

    /// The usernames of the stub's photographers: `user:` and `likes:` sources that exist.
    public nonisolated var usernames: [String] {
        Photographer.photographers(seed: configuration.seed).map(\.username)
    }

    /// The ids of the advertisements pages rotate through (when `sponsoredEvery` is set).
    public func sponsoredPhotoIDs() -> [String] {
        feed.sponsored.map(\.id)
    }

    /// Publishes `count` photos newer than all others at the head of the feed, as new uploads
    /// arrive on Unsplash while a client pages: every existing photo moves `count` places down.
    /// - Returns: the new ids, newest first.
    @discardableResult
    public func addPhotos(count: Int) -> [String] {
        feed.addPhotos(count: count).map(\.id)
    }

    // MARK: - Images

    /// The bytes the stub serves for a rendition of a photo (`ImageVariant`), whether or not the
    /// photo is in the feed: they depend only on the seed, `imageSize`, the id and the variant.
    public nonisolated func imageBytes(photoID: String, variant: String) -> Data {
        images.bytes(name: photoID, variant: variant)
    }

    /// The SHA-256 of `imageBytes(photoID:variant:)`, in lowercase hex.
    public nonisolated func expectedSHA256(photoID: String, variant: String) -> String {
        images.sha256(name: photoID, variant: variant)
    }
}
