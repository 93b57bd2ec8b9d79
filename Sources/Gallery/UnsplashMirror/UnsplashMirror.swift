import Basics
import Foundation
import Hummingbird
import Logging
import NIOCore
import PhotoStore
import UnsplashAPI

/// Unsplash's own API, answered from the mirror, under `/unsplash`: a client written for
/// `https://api.unsplash.com` works with `http://HOST:PORT/unsplash` as its base URL.
///
/// Routes, each answering as Unsplash does (bodies, `Link`, `X-Total`, `X-Per-Page`,
/// `X-Ratelimit-Limit`/`-Remaining`, `{"errors": [...]}`):
/// - `GET /photos`: the feed's photos in the order the API gave them when the feed is mirrored;
///   else every stored photo, newest first.
/// - `GET /photos/:id`, `/photos/random`, `/photos/:id/download`.
/// - `GET /search/photos`: the full-text index, `{total, total_pages, results}`.
/// - `GET /users/:username`, `/users/:username/photos`, `/users/:username/likes`,
///   `/collections/:id`, `/collections/:id/photos`, `/topics/:slug`, `/topics/:slug/photos`: the
///   sources the mirror syncs, in the order the API listed them, and the objects the sync
///   fetched for them; any other answers 404. A photo may be named by its slug (`...-ID`), a
///   topic by its id or its slug, as Unsplash takes them.
/// - `GET /collections`, `/topics`: those objects listed, a page at a time.
///
/// Every photo is its stored JSON, see ``MirroredPhoto``. Bad parameters answer 400 and unknown
/// routes 404, in Unsplash's shape (``MirrorFallback`` answers what no route matched); a
/// database that cannot be read answers 503, never with SQLite's words.
public struct UnsplashMirror: Sendable {
    let store: PhotoStore
    let configuration: MirrorConfiguration
    let rateLimit: MirrorRateLimit
    /// Photos whose full object, or whose download, is asked for already: asked again, nothing
    /// is written.
    let askedDetails: RecordedRequests
    let askedDownloads: RecordedRequests
    let logger: Logger

    public init(
        store: PhotoStore, configuration: MirrorConfiguration, logger: Logger = Logger(label: "photosync.mirror")
    ) {
        self.store = store
        self.configuration = configuration
        rateLimit = MirrorRateLimit(hourlyLimit: configuration.hourlyLimit, now: configuration.now)
        askedDetails = RecordedRequests(now: configuration.now)
        askedDownloads = RecordedRequests(now: configuration.now)
        self.logger = logger
    }

    /// Mounts the routes at `/unsplash` of `router`.
    public func addRoutes(to router: Router<GalleryRequestContext>) {
        let access = MirrorAccess<GalleryRequestContext>(clientKeys: configuration.clientKeys, rateLimit: rateLimit)
        let group = router.group("unsplash").add(middleware: access)
        group.get("photos") { request, _ in await answer(request) { try await feed($0) } }
        group.get("photos/random") { request, _ in await answer(request) { try await random($0) } }
        group.get("photos/:id") { request, context in
            let segment = try context.parameters.require("id")
            return await answer(request) { try await photo(id: photoID(segment), $0) }
        }
        group.get("photos/:id/download") { request, context in
            let segment = try context.parameters.require("id")
            return await answer(request) { try await download(id: photoID(segment), $0) }
        }
        group.get("search/photos") { request, _ in await answer(request) { try await search($0) } }
        group.get("users/:username") { request, context in
            let username = try context.parameters.require("username")
            return await answer(request) { try await user(username, $0) }
        }
        // The lists of a source that the path names; a source the mirror never synced answers 404.
        let lists: [(path: RouterPath, parameter: String, source: @Sendable (String) -> PhotoSource, missing: String)] =
            [
                ("users/:username/photos", "username", PhotoSource.user, "User"),
                ("users/:username/likes", "username", PhotoSource.likes, "User"),
                ("collections/:id/photos", "id", PhotoSource.collection, "Collection"),
            ]
        for route in lists {
            group.get(route.path) { request, context in
                let source = route.source(try context.parameters.require(route.parameter))
                return await answer(request) { try await list(source, missing: route.missing, $0) }
            }
        }
        group.get("collections") { request, _ in await answer(request) { try await collections($0) } }
        group.get("topics") { request, _ in await answer(request) { try await topics($0) } }
        group.get("collections/:id") { request, context in
            let id = try context.parameters.require("id")
            return await answer(request) { try await collection(id, $0) }
        }
        group.get("topics/:slug") { request, context in
            let segment = try context.parameters.require("slug")
            return await answer(request) { try await topic(topicSource(segment), path: segment, $0) }
        }
        group.get("topics/:slug/photos") { request, context in
            let segment = try context.parameters.require("slug")
            return await answer(request) { try await list(topicSource(segment), missing: "Topic", $0) }
        }
        group.get("**") { _, _ in MirrorFailure.notFound("the requested resource").response }
    }

    // MARK: - Routes

    /// Unsplash's `/photos` is its editorial feed, in the feed's order: the feed source's photos
    /// as the API listed them when the mirror syncs the feed (or did). Without it, the mirror has
    /// no feed to be faithful to, and lists what it holds instead: every photo, newest first.
    private func feed(_ request: MirrorRequest) async throws -> Response {
        guard try await store.catalog.hasSource(.feed) else {
            return try await page(of: PhotoQuery(sort: .newest), request)
        }
        var query = PhotoQuery(source: PhotoSource.feed.description, sort: .newest)
        query.inSourceOrder = true
        return try await page(of: query, request)
    }

    private func list(_ source: PhotoSource, missing kind: String, _ request: MirrorRequest) async throws -> Response {
        guard try await store.catalog.hasSource(source) else { throw MirrorFailure.notFound(kind) }
        var query = PhotoQuery(source: source.description, sort: .newest)
        query.inSourceOrder = true
        return try await page(of: query, request)
    }

    private func page(of query: PhotoQuery, _ request: MirrorRequest) async throws -> Response {
        let page = try MirrorPage(request.parameters)
        var query = query
        query.limit = page.size
        query.offset = page.offset
        let listed = try await store.catalog.originalJSONPage(matching: query)
        let body = try await rendered(listed.photos, request)
        return MirrorAnswer.json(.ok, body, headers: listHeaders(page, total: listed.total, request))
    }

    private func search(_ request: MirrorRequest) async throws -> Response {
        let parameters = request.parameters
        guard let text = parameters["query"] else { throw MirrorFailure.badRequest("query is missing") }
        let page = try MirrorPage(parameters)
        let order = try parameters.choice("order_by", in: ["relevant", "latest"]) ?? "relevant"
        let orientation = try parameters.choice("orientation", in: PhotoQuery.Orientation.allCases.map(\.rawValue))
        let color = try parameters.choice("color", in: PhotoColor.allCases.map(\.rawValue))
        // Accepted as Unsplash accepts it: the API says nothing of a photo's content rating, and
        // the mirror holds what Unsplash listed under its default filter.
        _ = try parameters.choice("content_filter", in: ["low", "high"])
        var query = PhotoQuery(
            text: Self.searchText(text), orientation: orientation.flatMap(PhotoQuery.Orientation.init(rawValue:)),
            sort: order == "latest" ? .newest : .relevance, limit: page.size, offset: page.offset)
        query.color = color.flatMap(PhotoColor.init(rawValue:))
        let listed = try await store.catalog.originalJSONPage(matching: query)
        let total = listed.total
        let body = try await rendered(
            listed.photos, request,
            around: ("{\"total\":\(total),\"total_pages\":\((total + page.size - 1) / page.size),\"results\":", "}"))
        return MirrorAnswer.json(.ok, body, headers: listHeaders(page, total: total, request))
    }

    private func photo(id: String, _ request: MirrorRequest) async throws -> Response {
        guard let photo = try await fullPhoto(id: id, request) else { throw MirrorFailure.notFound("Photo") }
        return MirrorAnswer.json(.ok, photo.body, headers: [.xPhotosyncPhoto: photo.version.rawValue])
    }

    private func random(_ request: MirrorRequest) async throws -> Response {
        let parameters = request.parameters
        let count: Int? =
            parameters["count"] == nil ? nil : try parameters.integer("count", maximum: MirrorPage.largest, fallback: 1)
        let orientation = try parameters.choice("orientation", in: PhotoQuery.Orientation.allCases.map(\.rawValue))
            .flatMap(PhotoQuery.Orientation.init(rawValue:))
        _ = try parameters.choice("content_filter", in: ["low", "high"])
        let collections = Self.list(parameters["collections"]).map { PhotoSource.collection($0) }
        // Unsplash takes topic ids here; the mirror also the slugs its sources may name them by.
        var topics: [PhotoSource] = []
        for topic in Self.list(parameters["topics"]) { topics.append(try await topicSource(topic)) }
        let text = parameters["query"]
        if text != nil && !(collections.isEmpty && topics.isEmpty) {
            throw MirrorFailure.badRequest("You can't use the collections or topics filtering with the query parameter")
        }
        let base = PhotoQuery(
            text: text.map(Self.searchText), username: parameters["username"], orientation: orientation)
        if base == PhotoQuery() && collections.isEmpty && topics.isEmpty {
            // Any stored photo: drawn by key, not by position in a listing.
            let photos = try await randomlyDrawn(store.catalog.randomOriginalJSON(count: count ?? 1), request)
            guard !photos.isEmpty else { throw MirrorFailure.notFound("Photo") }
            return try randomAnswer(photos, count: count)
        }
        var queries: [(query: PhotoQuery, count: Int)] = []
        let sources: [PhotoSource?] = (collections + topics).isEmpty ? [nil] : collections + topics
        for source in sources {
            var query = base
            query.source = source?.description
            let total = try await store.catalog.count(matching: query)
            if total > 0 { queries.append((query, total)) }
        }
        let total = queries.reduce(0) { $0 + $1.count }
        guard total > 0 else { throw MirrorFailure.notFound(base.username != nil ? "User" : "Photo") }
        // Distinct draws while there are enough photos, as Unsplash gives; repeats only once
        // every photo is drawn. (Drawn one by one: shuffling every index cost a million-element
        // array a request.)
        var draws: [Int] = []
        var drawn = Set<Int>()
        while draws.count < (count ?? 1) {
            let draw = Int.random(in: 0..<total)
            if drawn.insert(draw).inserted || drawn.count == total { draws.append(draw) }
        }
        // Each draw is a one-photo page of the selection it falls in, all read in one trip.
        let pages = draws.compactMap { draw -> PhotoQuery? in
            var index = draw
            for (query, size) in queries {
                guard index >= size else {
                    var one = query
                    one.limit = 1
                    one.offset = index
                    return one
                }
                index -= size
            }
            return nil
        }
        let drawnPhotos = try await store.catalog.originalJSONPages(matching: pages).flatMap(\.photos)
        return try await randomAnswer(randomlyDrawn(drawnPhotos, request), count: count)
    }

    /// One photo without `count`, as Unsplash answers (saying which version, as `/photos/:id`
    /// does), an array with it.
    private func randomAnswer(_ photos: [(body: Data, version: PhotoVersion)], count: Int?) throws -> Response {
        guard count != nil else {
            guard let first = photos.first else { throw MirrorFailure.notFound("Photo") }
            return MirrorAnswer.json(.ok, first.body, headers: [.xPhotosyncPhoto: first.version.rawValue])
        }
        return MirrorAnswer.json(.ok, MirrorAnswer.array(photos.map(\.body)))
    }

    private func download(id: String, _ request: MirrorRequest) async throws -> Response {
        guard let json = try await store.catalog.originalJSON(photoIDs: [id])[id], let photo = JSONValue.parse(json)
        else { throw MirrorFailure.notFound("Photo") }
        let images = try await storedImages([id])[id] ?? []
        let url: String? =
            if configuration.imageURLs == .local, let largest = images.last {
                request.photo.imageURL(id: id, variant: largest.variant)
            } else {
                photo["urls"]?["full"]?.string ?? photo["urls"]?["raw"]?.string ?? photo["links"]?["download"]?.string
            }
        var headers: HTTPFields = [:]
        // Unsplash+ photos need a paid licence: their downloads are never tracked (README).
        let isPlus = (try? Photo(json: json))?.isPlus ?? false
        headers[.xPhotosyncDownloadTracking] = isPlus ? Self.plusNotTracked : try await recordDownload(id)
        if !configuration.storesImages { headers[.xPhotosyncImages] = "none" }
        let body = JSONValue.object(["url": url.map(JSONValue.string) ?? .null]).encoded
        return MirrorAnswer.json(.ok, body, headers: headers)
    }

    /// `X-Photosync-Download-Tracking` of an Unsplash+ photo, whose download is not recorded.
    static let plusNotTracked = "not-tracked-unsplash-plus"

    /// Records the request for the sync to forward; what became of it, for the header.
    /// - Throws: ``MirrorFailure/notRecorded`` when it cannot be recorded (a database `serve` may
    ///   only read, a standby without its primary, a primary away): the client asks again later.
    private func recordDownload(_ id: String) async throws(MirrorFailure) -> String {
        guard configuration.downloadTracking == .queued else {
            return MirrorConfiguration.DownloadTracking.off.rawValue
        }
        if askedDownloads.contains(id) { return MirrorConfiguration.DownloadTracking.queued.rawValue }
        guard let requests = configuration.downloadRequests else { throw .notRecorded }
        do {
            if try await requests.record(photoID: id, at: configuration.now()) { askedDownloads.insert(id) }
            return MirrorConfiguration.DownloadTracking.queued.rawValue
        } catch {
            logger.warning(
                "a download request could not be recorded", metadata: ["photo": "\(id)", "error": "\(error)"])
            throw .notRecorded
        }
    }

    private func user(_ username: String, _ request: MirrorRequest) async throws -> Response {
        let path = "/users/" + Attribution.encoded(username)
        if let stored = try await storedObject(of: [.user(username), .likes(username)], path: path, request) {
            return MirrorAnswer.json(.ok, stored)
        }
        let newest = try await store.catalog.photos(matching: PhotoQuery(username: username, sort: .newest, limit: 1))
        guard let id = newest.first?.id, let json = try await store.catalog.originalJSON(photoIDs: [id])[id],
            let user = JSONValue.parse(json)?["user"], case .object = user
        else { throw MirrorFailure.notFound("User") }
        return MirrorAnswer.json(.ok, request.photo.user(user).encoded)
    }

    /// The collection's object as the sync last fetched it; 404 as Unsplash says it when the sync
    /// never could (the mirror makes up no title, owner or count).
    private func collection(_ id: String, _ request: MirrorRequest) async throws -> Response {
        let path = "/collections/" + Attribution.encoded(id)
        guard let stored = try await storedObject(of: [.collection(id)], path: path, request) else {
            throw MirrorFailure.notFound("Collection")
        }
        return MirrorAnswer.json(.ok, stored)
    }

    /// The topic's object as the sync last fetched it, by the slug or id its source names or by
    /// the other one of the two (Unsplash takes either); 404 when the sync never fetched it.
    private func topic(_ source: PhotoSource, path segment: String, _ request: MirrorRequest) async throws -> Response {
        let path = "/topics/" + Attribution.encoded(segment)
        guard let stored = try await storedObject(of: [source], path: path, request) else {
            throw MirrorFailure.notFound("Topic")
        }
        return MirrorAnswer.json(.ok, stored)
    }

    // MARK: - Helpers

    /// The JSON array of `photos` rewritten for `request` (``MirroredPhoto``), between the
    /// texts `around`, written once into the answer's buffer.
    private func rendered(
        _ photos: [OriginalJSONPage.Photo], _ request: MirrorRequest, around: (String, String) = ("", "")
    ) async throws -> ByteBuffer {
        let images = try await storedImages(photos.map(\.id))
        var body = ByteBuffer()
        // Each photo's text, and room for the links it gains on the mirror's longer origin.
        body.reserveCapacity(photos.reduce(around.0.utf8.count + around.1.utf8.count + 2) { $0 + $1.json.count + 512 })
        body.writeString(around.0)
        body.writeInteger(UInt8(ascii: "["))
        let firstPhoto = body.writerIndex
        for photo in photos {
            let start = body.writerIndex
            if start > firstPhoto { body.writeInteger(UInt8(ascii: ",")) }
            if !request.photo.write(photo.json, id: photo.id, storedVariants: images[photo.id] ?? [], to: &body) {
                body.moveWriterIndex(to: start)
            }
        }
        body.writeInteger(UInt8(ascii: "]"))
        body.writeString(around.1)
        return body
    }

    /// The stored images of `ids`, read only when the answer points at them.
    func storedImages(_ ids: [String]) async throws -> [String: [StoredImage]] {
        guard configuration.imageURLs == .local else { return [:] }
        return try await store.archive.storedImages(photoIDs: ids)
    }

    func listHeaders(_ page: MirrorPage, total: Int, _ request: MirrorRequest) -> HTTPFields {
        var headers: HTTPFields = [.xTotal: String(total), .xPerPage: String(page.size)]
        if let link = page.link(
            base: request.photo.origin, path: request.path, parameters: request.parameters, total: total)
        {
            headers[.link] = link
        }
        return headers
    }

    /// Every word of a client's search as a phrase of its own: Unsplash takes any text, so the
    /// search syntax's operators and quotes must not reach its parser.
    static func searchText(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace)
            .map { "\"" + String($0).replacingEach("\"", with: "\"\"") + "\"" }
            .joined(separator: " ")
    }

    /// A comma-separated list, blanks dropped.
    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Runs a route, answering its failures in Unsplash's shape.
    private func answer(_ request: Request, _ route: (MirrorRequest) async throws -> Response) async -> Response {
        let mirrorRequest = MirrorRequest(request, imageURLs: configuration.imageURLs)
        do {
            return try await route(mirrorRequest)
        } catch let failure as MirrorFailure {
            return failure.response
        } catch {
            if let failure = error as? StoreError, case .invalidSearch = failure {
                return MirrorFailure.badRequest("query cannot be searched").response
            }
            logger.error(
                "an Unsplash API answer failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return MirrorFailure.unavailable.response
        }
    }
}

/// What the routes read of a request: its parameters, its path, and the origin the client
/// reached the mirror at, for the absolute URLs of `Link` and the photos.
struct MirrorRequest: Sendable {
    let parameters: MirrorParameters
    let path: String
    let photo: MirroredPhoto

    init(_ request: Request, imageURLs: MirrorConfiguration.ImageURLs) {
        parameters = MirrorParameters(request.uri)
        path = request.uri.path
        let host = request.head.authority ?? "localhost"
        photo = MirroredPhoto(origin: "http://" + host, imageURLs: imageURLs)
    }
}
