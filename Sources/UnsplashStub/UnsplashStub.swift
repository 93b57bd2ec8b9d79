import FlyingFox
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

    var remainingRequests: Int
    var faults = Faults()
    var log = RequestLog()

    private var server: HTTPServer?
    private var serverTask: Task<Void, Never>?
    private var boundPort: UInt16?
    private var isStarting = false

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        feed = PhotoFeed(seed: configuration.seed, count: configuration.photoCount)
        images = ImageGenerator(seed: configuration.seed, baseSize: configuration.imageSize)
        photographers = Photographer.photographers(seed: configuration.seed)
        sponsors = Photographer.sponsors(seed: configuration.seed)
        profileImageNames = Set((photographers + sponsors).map { "profile-" + $0.id })
        remainingRequests = configuration.rateLimitRemaining ?? configuration.rateLimit
    }

    // MARK: - Lifecycle

    /// Opens the listening socket and starts serving; returns once connections are accepted.
    ///
    /// - Throws: `UnsplashStubError.invalidConfiguration` for an invalid configuration,
    ///   `.alreadyStarted` if running, `.cannotListen` if the socket cannot be bound.
    public func start() async throws {
        guard server == nil, !isStarting else { throw UnsplashStubError.alreadyStarted }
        try configuration.validate()
        guard let address = ListeningAddress(host: configuration.host, port: configuration.port) else {
            throw UnsplashStubError.invalidConfiguration("host must be an IPv4 or IPv6 address")
        }
        isStarting = true
        defer { isStarting = false }

        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: try address.socketAddress(),
                // Handlers may be delayed on purpose (`delayImages`); don't time them out early.
                timeout: 600,
                logger: .disabled),
            handler: StubRequestHandler(stub: self))

        // `run()` reports a bind failure by throwing, `waitUntilListening()` success by returning:
        // whichever comes first decides.
        let (outcomes, continuation) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        let runTask = Task {
            do {
                try await server.run()
                continuation.yield(.failure(CancellationError()))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        let listeningTask = Task {
            do {
                try await server.waitUntilListening(timeout: 30)
                continuation.yield(.success(()))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        var outcome: Result<Void, any Error> = .failure(CancellationError())
        for await first in outcomes {
            outcome = first
            break
        }
        continuation.finish()
        listeningTask.cancel()

        do {
            try outcome.get()
            switch await server.listeningAddress {
            case .ip4(_, let port)?, .ip6(_, let port)?:
                boundPort = port
            default:
                throw UnsplashStubError.cannotListen(address: address.description, reason: "no bound address")
            }
            self.server = server
            serverTask = runTask
        } catch {
            await server.stop(timeout: 0)
            runTask.cancel()
            if let error = error as? UnsplashStubError { throw error }
            throw UnsplashStubError.cannotListen(address: address.description, reason: error.localizedDescription)
        }
    }

    /// Closes the listening socket and open connections; waits until the server has stopped.
    /// Safe to call when not running.
    public func stop() async {
        guard let server else { return }
        self.server = nil
        await server.stop(timeout: 0)
        await serverTask?.value
        serverTask = nil
        boundPort = nil
    }

    /// `http://HOST:PORT` of the running stub, with the port actually bound (also when
    /// `configuration.port` is 0). Before `start()` it carries the configured port.
    public var baseURL: URL {
        let address = ListeningAddress(host: configuration.host, port: configuration.port)
        return address?.url(port: boundPort ?? configuration.port)
            ?? URL(string: "http://\(configuration.host):\(boundPort ?? configuration.port)")!
    }

    // MARK: - The feed

    /// The number of photos in the feed, as `X-Total` reports it.
    public var photoCount: Int { feed.count }

    /// The ids of the feed, newest first (the order of `GET /photos`), without advertisements.
    public func photoIDs() -> [String] {
        (0..<feed.count).map { feed.newest(at: $0).id }
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

    // MARK: - Rate limit

    /// The API requests left before answers become `403 Rate Limit Exceeded`.
    public var rateLimitRemaining: Int { remainingRequests }

    /// Refills the budget (the window has passed): to `remaining`, or to the full
    /// `configuration.rateLimit` when nil. Values are clamped to 0...rateLimit.
    public func resetRateLimit(remaining: Int? = nil) {
        remainingRequests = min(max(0, remaining ?? configuration.rateLimit), configuration.rateLimit)
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
