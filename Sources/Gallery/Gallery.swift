import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Mustache
import NIOCore
import PhotoStore

/// `photosync serve`: a read-only web gallery over a photosync database.
///
/// Routes:
/// - `/`: the stored photos, newest first (best match first with a search), a page at a time,
///   filtered by `q` (as `photosync search`), `user` and `source`; `page` counts from 1.
/// - `/photos/ID`: one photo, its attribution, size, colour, location and EXIF when stored.
/// - `/images/ID?variant=`: a stored image's bytes, cached forever by its SHA-256 (`ETag`);
///   without a variant (the latest fetched), revalidated by it each time; hot images are
///   answered from memory (``ImageCache``). A GET's single
///   `Range` (with `If-Range`) gets those bytes alone (206), as RFC 9110 says: a download resumes.
///
/// Every route answers `HEAD` too, with GET's headers.
/// - `/api/photos?q=&source=&user=&limit=&offset=`: a JSON array of `list --json`'s objects;
///   `after=ID` (or `before=ID`) continues a listing by key from a photo, and a full page's
///   `Link` header names the next page that way.
/// - `/healthz`: 200 while the database can be read (and, a standby, lags its primary by no more
///   than `maxStandbyLag`), 503 otherwise.
/// - `/unsplash/...`: Unsplash's API answered from the mirror (``UnsplashMirror``).
///
/// It only reads (the one write, a download requested through `/unsplash`, has its own connection:
/// ``DownloadRequests``), so it runs beside `photosync run` on the same database. The gallery has no
/// authentication: whoever reaches its address sees every photo.
public struct Gallery: Sendable {
    let store: PhotoStore
    let pageSize: Int
    let fixedSources: [String]?
    let templates: MustacheLibrary
    let mirror: UnsplashMirror
    /// How far behind its primary a standby may be before `/healthz` says it is unhealthy.
    let maxStandbyLag: Duration
    /// The images `/images` sent last, kept in memory (``ImageCache``).
    let images: ImageCache

    /// The most `/api/photos` answers at once.
    public static let apiLimit = 1_000

    /// How long a connection may stay open without a request, or in the middle of one without
    /// a byte of it: a client that opens connections and sends nothing (or a header a byte a
    /// minute) would otherwise hold each one until `serve` stops. nginx's defaults are of the
    /// same order (60 s for a request's head, 75 s between requests).
    public static let idleTimeout = Duration.seconds(60)

    /// - Parameters:
    ///   - pageSize: tiles a page of the grid shows.
    ///   - sources: the sources the filter offers; by default those the database knows, read
    ///     again for each page, since `run` may add one while the gallery serves.
    ///   - mirror: how `/unsplash`, Unsplash's API answered from the mirror, answers.
    ///   - maxStandbyLag: on a standby database, the lag past which `/healthz` answers 503.
    public init(
        store: PhotoStore, pageSize: Int = 30, sources: [String]? = nil,
        mirror: MirrorConfiguration = MirrorConfiguration(), maxStandbyLag: Duration = Self.defaultMaxStandbyLag
    ) {
        self.init(
            store: store, pageSize: pageSize, sources: sources, mirror: mirror, templates: GalleryTemplates.shared,
            maxStandbyLag: maxStandbyLag)
    }

    /// As the public initializer, with the pages' templates given (a test's, that fail).
    init(
        store: PhotoStore, pageSize: Int, sources: [String]?, mirror: MirrorConfiguration, templates: MustacheLibrary,
        maxStandbyLag: Duration = Self.defaultMaxStandbyLag, images: ImageCache = ImageCache()
    ) {
        self.store = store
        self.mirror = UnsplashMirror(store: store, configuration: mirror)
        self.pageSize = max(1, pageSize)
        self.fixedSources = sources
        self.templates = templates
        self.maxStandbyLag = maxStandbyLag
        self.images = images
    }

    /// 30 s: a standby streaming from a live primary is a second behind or less; one 30 s behind
    /// has lost its primary or cannot keep up, and answers a client what it has long changed.
    public static let defaultMaxStandbyLag = Duration.seconds(30)

    /// The gallery's routes.
    ///
    /// The listing routes read until their client leaves: when it does, their database read is
    /// interrupted (see ``GalleryRequestContext``). What a route cannot answer it throws as a
    /// ``GalleryError``, which answers it: a store's failure becomes
    /// ``GalleryError/unreadable(_:)`` in ``reading(_:)``.
    public func router() -> Router<GalleryRequestContext> {
        // HEAD answers every route as GET would, with the same headers and no body (curl -I).
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.get("/") { request, context in
            try await context.untilClientLeaves { try await self.gridResponse(request.uri) }
        }
        router.get("/photos/:id") { _, context in
            try await self.photoResponse(id: try context.parameters.require("id"))
        }
        router.get("/images/:id") { request, context in
            try await self.imageResponse(
                id: try context.parameters.require("id"), request.uri, headers: request.headers,
                isGET: request.method == .get)
        }
        router.get("/api/photos") { request, context in
            try await context.untilClientLeaves { try await self.apiResponse(request.uri) }
        }
        router.get("/healthz") { _, _ in try await self.healthResponse() }
        mirror.addRoutes(to: router)
        // Last: it runs only for requests no route above matched.
        router.add(middleware: MirrorFallback())
        return router
    }

    /// A Hummingbird application serving ``router()`` on `host:port` (port 0: a free one).
    /// `onServerRunning` receives the port bound, once the gallery accepts connections. A
    /// connection idle for `idleTimeout` is closed (see ``idleTimeout``); one whose answer is
    /// still being made or sent is not.
    public func application(
        host: String, port: Int, logger: Logger, idleTimeout: Duration = Self.idleTimeout,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            server: Self.http1(idleTimeout: idleTimeout) { [ClientDeparture()] },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "photosync"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// HTTP/1.1 as photosync's servers speak it, the gallery's and `run`'s metrics alike: a
    /// connection idle for `idleTimeout` is closed (``idleTimeout``), and an HTTP/1.0 one after
    /// its answer unless it asked to be kept (``HTTP10ConnectionClose``).
    public static func http1(idleTimeout: Duration = Self.idleTimeout) -> HTTPServerBuilder {
        http1(idleTimeout: idleTimeout) { [] }
    }

    /// The same, with `handlers` (made for each connection) before photosync's own.
    static func http1(
        idleTimeout: Duration, handlers: @escaping @Sendable () -> [any RemovableChannelHandler]
    ) -> HTTPServerBuilder {
        .http1(
            configuration: .init(
                additionalChannelHandlers: handlers() + [HTTP10ConnectionClose()],
                idleTimeout: TimeAmount(idleTimeout)))
    }

    // MARK: - Pages

    func gridResponse(_ uri: URI) async throws -> Response {
        let form: GalleryForm
        let page: Int
        form = try GalleryForm(uri)
        page = try GalleryForm.integer(form.page, named: "page", in: 1...1_000_000) ?? 1
        let query = form.q
        let user = form.user
        let source = form.source
        let search = SearchState(query: query, user: user, source: source, knownSources: try await knownSources())
        var view = GridPage(
            title: query.map { "“\($0)”" } ?? user ?? "Photos", query: search.query, user: search.user,
            sources: search.sources,
            message: nil, matches: nil, empty: false, tiles: [], page: page, newerURL: nil, olderURL: nil)
        let photos: [PhotoSummary]
        do {
            // One more than a page tells whether there is an older page. A tile shows the
            // smallest stored variant.
            var listing = PhotoQuery(
                text: query, username: user, source: source, sort: query == nil ? .newest : .relevance,
                limit: pageSize + 1, offset: (page - 1) * pageSize)
            listing.withSmallestImage = true
            photos = try await store.catalog.photos(matching: listing)
        } catch {
            // Matching the case in the catch clause crashes Swift 6.3's SIL verifier.
            guard case .invalidSearch(let text) = error else { throw GalleryError.unreadable(error) }
            view.message = GalleryError.badSearch(text).message
            view.empty = true
            return GalleryAnswer.html(.badRequest, try render(view, "grid"))
        }
        let shown = Array(photos.prefix(pageSize))
        view.tiles = shown.map { photo in
            let attribution = Attribution(photoID: photo.id, username: photo.userUsername, name: photo.userName)
            return Tile(
                id: photo.id, href: GalleryLinks.photo(photo.id),
                image: photo.smallestImage.map { image in
                    TileImage(
                        url: GalleryLinks.image(photo.id, variant: image.variant),
                        alt: photo.altDescription ?? photo.description ?? attribution.text)
                },
                color: GalleryLinks.cssColor(photo.color) ?? GalleryLinks.placeholderColor,
                photographer: attribution.photographer,
                photographerHref: GalleryLinks.grid(query: nil, user: photo.userUsername, source: nil))
        }
        view.empty = shown.isEmpty
        if let query {
            // A search says how many photos it found, as `/api/photos` and the Unsplash API's
            // `total` do: counted once, then kept until the database changes.
            let total = try await reading { () async throws(StoreError) in
                try await store.catalog.count(matching: PhotoQuery(text: query, username: user, source: source))
            }
            view.matches = total == 1 ? "1 photo matches “\(query)”" : "\(total) photos match “\(query)”"
        }
        if page > 1 { view.newerURL = GalleryLinks.grid(query: query, user: user, source: source, page: page - 1) }
        if photos.count > pageSize {
            view.olderURL = GalleryLinks.grid(query: query, user: user, source: source, page: page + 1)
        }
        return GalleryAnswer.html(.ok, try render(view, "grid"))
    }

    /// The sources the filter offers.
    private func knownSources() async throws(GalleryError) -> [String] {
        if let fixedSources { return fixedSources }
        let names = try await reading { () async throws(StoreError) in try await store.catalog.sourceNames() }
        return names.isEmpty ? [PhotoSource.feed.description] : names
    }

    func photoResponse(id: String) async throws(GalleryError) -> Response {
        guard let photo = try await reading({ () async throws(StoreError) in try await store.catalog.photo(id: id) })
        else {
            throw .notFound(title: "No such photo", message: "There is no photo \(id) in this database.")
        }
        let images = try await reading { () async throws(StoreError) in
            try await store.archive.storedImages(photoIDs: [id])[id] ?? []
        }
        let attribution = Attribution(photoID: photo.id, username: photo.userUsername, name: photo.userName)
        // The full object (`photo_details`) when stored: the list version seldom has a camera,
        // a place or tags.
        let full = try await reading { () async throws(StoreError) in
            try await store.photoDetails.details(photoID: photo.id)
        }
        let details = PhotoDetails(json: full?.json ?? photo.json)
        let search = SearchState(query: nil, user: nil, source: nil, knownSources: try await knownSources())
        let photoSources = try await reading { () async throws(StoreError) in
            try await store.catalog.sources(ofPhoto: photo.id)
        }
        // The largest stored variant: this is the page for looking at the photo.
        let shown = images.last
        var view = SinglePhotoPage(
            title: photo.description ?? photo.altDescription ?? attribution.text,
            query: search.query, user: search.user, sources: search.sources,
            imageURL: shown.map { GalleryLinks.image(photo.id, variant: $0.variant) },
            shape: GalleryLinks.shape(width: photo.width, height: photo.height),
            color: GalleryLinks.cssColor(photo.color),
            alt: photo.altDescription, description: photo.description,
            attribution: attribution,
            photographerHref: GalleryLinks.grid(query: nil, user: photo.userUsername, source: nil),
            size: photo.width.flatMap { width in photo.height.map { "\(width) × \($0) px" } },
            created: photo.createdAt.map { $0.formatted(.iso8601.year().month().day()) },
            likes: photo.likes.map(String.init),
            location: details.location, exif: details.exif, tags: TagList(details.tags),
            photoSources: photoSources.map {
                SourceLink(name: $0, href: GalleryLinks.grid(query: nil, user: nil, source: $0))
            },
            variants: images.map { image in
                VariantLink(
                    name: image.variant.rawValue, href: GalleryLinks.image(photo.id, variant: image.variant),
                    size: GalleryLinks.byteCount(image.byteCount))
            })
        if shown == nil {
            view.pruned =
                try await reading { () async throws(StoreError) in
                    try await store.archive.prunedImage(photoID: photo.id, variant: nil)
                } != nil
            let ratio = Double(photo.width ?? 1) / Double(max(1, photo.height ?? 1))
            view.blurURL = details.blurHash?.dataURL(aspectRatio: ratio)
        }
        return GalleryAnswer.html(.ok, try render(view, "photo"))
    }

    // MARK: - Images

    /// The bytes with their type, length and SHA-256 as `ETag`; 304 when the client has them.
    ///
    /// A GET's `Range` is answered as RFC 9110 §14 says (``ByteRange``), once `If-None-Match`
    /// found the client lacks the image: one range is 206 Partial Content with only those bytes
    /// read from the store, one that starts past the end is 416, and several ranges, another unit,
    /// a range not in the grammar, or an `If-Range` that is not the image's `ETag` are ignored,
    /// answering 200 with the whole image. A HEAD's `Range` is ignored (§14.2: only GET has
    /// ranges). `Accept-Ranges: bytes` says so on every 200 and 206.
    ///
    /// The bytes are streamed from the store a chunk at a time, each chunk in its own short read,
    /// as the client takes them: memory stays the same whatever the image's size, and a slow
    /// client holds no snapshot open. Should the image be stored again under the stream, the
    /// connection is closed rather than mixing two images' bytes.
    func imageResponse(id: String, _ uri: URI, headers request: HTTPFields, isGET: Bool) async throws(GalleryError)
        -> Response
    {
        let name = try GalleryForm.variant(of: uri)
        let variant = name.flatMap(ImageVariant.init(rawValue:))
        guard name == nil || variant != nil,
            let kept = try await reading({ () async throws(StoreError) in
                try await self.images.image(photoID: id, variant: variant) { () async throws(StoreError) in
                    try await store.archive.storedImage(photoID: id, variant: variant)
                }
            })
        else {
            throw .notFound(title: "No such image", message: "No \(name ?? "") image of photo \(id) is stored.")
        }
        let image = kept.image
        let etag = "\"\(image.sha256)\""
        // A named variant's bytes never change. Without one, the URL means the latest variant
        // fetched, which another fetch can replace: kept, but checked by its ETag each time.
        let caching = name == nil ? "no-cache" : "public, max-age=31536000, immutable"
        var headers: HTTPFields = [.eTag: etag, .cacheControl: caching]
        if Self.matches(etag, request[values: .ifNoneMatch]) {
            return Response(status: .notModified, headers: headers)
        }
        // Conditions come before Range (RFC 9110 §13.2.2), and only a GET has ranges (§14.2).
        var requested: ByteRange?
        if isGET {
            requested = ByteRange.requested(
                range: request[values: .range], ifRange: request[values: .ifRange], etag: etag)
        }
        var (status, part) = (HTTPResponse.Status.ok, 0..<image.byteCount)
        switch requested?.selection(ofLength: image.byteCount) {
        case .unsatisfiable:
            return Response(
                status: .rangeNotSatisfiable,
                headers: [.contentRange: ContentRange.unsatisfied(length: image.byteCount), .acceptRanges: "bytes"])
        case .part(let range):
            (status, part) = (.partialContent, range)
            headers[.contentRange] = ContentRange.part(range, of: image.byteCount)
        case .whole, nil:
            break
        }
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = image.contentType
        headers[.contentLength] = String(part.count)
        // Bytes kept in memory are sent as they are, a range as a slice of them (no copy).
        if let bytes = kept.bytes?.getSlice(at: Int(part.lowerBound), length: part.count) {
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bytes))
        }
        // The chunks name the variant, so a newer variant stored meanwhile cannot swap the bytes.
        let chunks = store.archive.chunks(of: image, photoID: id).bytes(in: part)
        // A whole image small enough is kept as it is sent, for the requests after this one.
        let images = self.images
        var keep: (@Sendable (ByteBuffer) -> Void)?
        if part.count == image.byteCount && images.keeps(image) {
            keep = { @Sendable bytes in images.keep(bytes, of: image, photoID: id, variant: variant) }
        }
        return Response(
            status: status, headers: headers, body: Self.body(chunks, photoID: id, variant: image.variant, keep: keep))
    }

    /// A body streaming `chunks` as the client takes them, its `Content-Length` theirs; cut short
    /// with ``GalleryError/imageChanged(photoID:variant:)`` when fewer bytes came than expected,
    /// since the image was stored again or removed meanwhile. With `keep`, the bytes are also
    /// gathered, and handed to it once all of them were sent.
    private static func body(
        _ chunks: ImageChunks, photoID: String, variant: ImageVariant, keep: (@Sendable (ByteBuffer) -> Void)?
    ) -> ResponseBody {
        ResponseBody(contentLength: Int(chunks.byteCount)) { writer in
            var sent: Int64 = 0
            var gathered = keep.map { _ in ByteBufferAllocator().buffer(capacity: Int(chunks.byteCount)) }
            for try await chunk in chunks {
                let buffer = ByteBuffer(bytes: chunk)
                gathered?.writeImmutableBuffer(buffer)
                try await writer.write(buffer)
                sent += Int64(chunk.count)
            }
            guard sent == chunks.byteCount else {
                throw GalleryError.imageChanged(photoID: photoID, variant: variant.rawValue)
            }
            try await writer.finish(nil)
            if let keep, let gathered { keep(gathered) }
        }
    }

    /// RFC 9110's weak comparison: `*`, or any listed tag equal to `etag` with or without `W/`.
    static func matches(_ etag: String, _ ifNoneMatch: [String]) -> Bool {
        ifNoneMatch.flatMap { $0.split(separator: ",") }.contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    // MARK: - API

    func apiResponse(_ uri: URI) async throws(GalleryError) -> Response {
        let form = try GalleryForm(uri)
        if form.q != nil && (form.after != nil || form.before != nil) {
            throw .badParameter("after and before page through a listing, not a search: use offset with q")
        }
        let query = PhotoQuery(
            text: form.q, username: form.user, source: form.source, sort: form.q == nil ? .newest : .relevance,
            limit: try GalleryForm.integer(form.limit, named: "limit", in: 0...Self.apiLimit) ?? pageSize,
            offset: try GalleryForm.integer(form.offset, named: "offset", in: 0...Int(Int32.max)) ?? 0,
            after: form.after, before: form.after == nil ? form.before : nil)
        let photos: [PhotoSummary]
        do {
            photos = try await store.catalog.photos(matching: query)
        } catch {
            switch error {
            case .invalidSearch(let text): throw .badSearch(text)
            case .unknownPhoto(_, let id): throw .unknownAnchor(photoID: id)
            default: throw .unreadable(error)
            }
        }
        var response = GalleryAnswer.json(.ok, photos.map(PhotoListingJSON.object))
        if let link = Self.nextLink(query, photos) { response.headers[Self.link] = link }
        return response
    }

    /// RFC 8288's header, which HTTPTypes does not name.
    static let link = HTTPFields.Element.Name("Link")!

    /// `Link: </api/photos?...&after=ID>; rel="next"` after a full page of a listing: the next
    /// page by key, which costs what the first does however deep it is.
    static func nextLink(_ query: PhotoQuery, _ photos: [PhotoSummary]) -> String? {
        guard query.text == nil, let limit = query.limit, limit > 0, photos.count == limit, let last = photos.last
        else { return nil }
        let parameters = GalleryLinks.query([
            ("user", query.username), ("source", query.source), ("limit", String(limit)), ("after", last.id),
        ])
        return "</api/photos?\(parameters)>; rel=\"next\""
    }

    func healthResponse() async throws(GalleryError) -> Response {
        let standby = try await reading { () async throws(StoreError) in
            _ = try await store.catalog.photos(matching: PhotoQuery(limit: 1))
            return try await store.storage.standby()
        }
        guard let standby else { return GalleryAnswer.text(.ok, "ok\n") }
        let line = standby.description
        guard !standby.lags(beyond: maxStandbyLag) else {
            return GalleryAnswer.text(
                .serviceUnavailable,
                "\(line), more than max_replica_lag (\(maxStandbyLag.components.seconds) s)\n")
        }
        return GalleryAnswer.text(.ok, "ok: \(line)\n")
    }

    // MARK: - Responses

    /// What `read` returns; its failure as ``GalleryError/unreadable(_:)``.
    private func reading<T>(_ read: () async throws(StoreError) -> T) async throws(GalleryError) -> T {
        do {
            return try await read()
        } catch {
            throw .unreadable(error)
        }
    }

    /// The page `template` shows `view` as.
    /// - Throws: ``GalleryError/renderingFailed(template:)``: never an empty page.
    private func render(_ view: Any, _ template: String) throws(GalleryError) -> String {
        guard let page = templates.render(view, withTemplate: template) else {
            throw .renderingFailed(template: template)
        }
        return page
    }
}

/// The gallery's answers, by their type.
enum GalleryAnswer {
    static func html(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        json(status, body: PhotoListingJSON.encode(value))
    }

    /// Listed photos, written by ``PhotoListingJSON/encode(_:)-([PhotoListingJSON.Object])``.
    static func json(_ status: HTTPResponse.Status, _ photos: [PhotoListingJSON.Object]) -> Response {
        json(status, body: PhotoListingJSON.encode(photos))
    }

    private static func json(_ status: HTTPResponse.Status, body: Data) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
