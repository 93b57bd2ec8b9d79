import Foundation

private typealias Query = [(name: String, value: String)]

extension UnsplashStub {
    /// Answers one request and records it. Runs on the actor, so answers are decided one at a
    /// time in arrival order; delays are served outside it, by the listener.
    func reply(to request: StubRequest) -> StubResponse {
        var segments = request.path.split(separator: "/").map(String.init)
        var viaRedirect = false
        // `/hop/N/<path>`: a hop of a same-origin redirect chain, then `<path>` itself.
        if segments.count >= 3, segments[0] == "hop", let hopsLeft = Int(segments[1]), hopsLeft >= 0 {
            segments.removeFirst(2)
            if hopsLeft > 0 {
                let rest = "/" + segments.joined(separator: "/")
                let location = Redirect.trimmed(baseURL) + "/hop/\(hopsLeft - 1)" + rest + request.queryString
                return record(
                    request, .redirect(302, to: location), kind: segments.first == "images" ? .image : .api,
                    imageName: segments.first == "images" && segments.count == 2 ? segments[1] : nil)
            }
            viaRedirect = true
        }

        switch segments.first {
        case "photos":
            var response = answerAPI(request, segments: segments, viaRedirect: viaRedirect)
            response.delay = faults.apiDelay
            let tracked = segments.count == 3 && segments[2] == "download" ? segments[1] : nil
            return record(request, response, kind: .api, trackingPhotoID: tracked)
        case "users", "collections", "topics", "search":
            var response = answerAPI(request, segments: segments, viaRedirect: viaRedirect)
            response.delay = faults.apiDelay
            return record(request, response, kind: .api)
        case "images" where segments.count == 2:
            var response = answerImage(request, name: segments[1], viaRedirect: viaRedirect)
            response.delay = faults.imageDelay
            return record(request, response, kind: .image, imageName: segments[1])
        default:
            return record(request, .errors(404, "Not found"), kind: .other)
        }
    }

    private func record(
        _ request: StubRequest, _ response: StubResponse, kind: RecordedRequest.Kind, imageName: String? = nil,
        trackingPhotoID: String? = nil
    ) -> StubResponse {
        let recorded = request.recorded(kind: kind, status: response.status)
        log.record(recorded, imageName: imageName, trackingPhotoID: trackingPhotoID)
        waiters.arrived(recorded)
        return response
    }

    // MARK: - api.unsplash.com

    /// Authorization, then the rate limit, then injected redirects and failures, then the
    /// endpoint; every answer carries the rate-limit headers.
    private func answerAPI(_ request: StubRequest, segments: [String], viaRedirect: Bool) -> StubResponse {
        var response: StubResponse
        if request.method != "GET" {
            response = .errors(405, "Method not allowed")
        } else if !isAuthorized(request) {
            response = .errors(401, "OAuth error: The access token is invalid")
        } else if !budget.spend() {
            response = .rateLimitExceeded(403)
        } else if !viaRedirect, let redirect = faults.nextAPIRedirect() {
            response = .redirect(
                redirect.status, to: redirect.location(path: request.path, query: request.queryString, baseURL: baseURL)
            )
        } else if let failure = isTracking(segments)
            ? faults.nextTrackingFailure() ?? faults.nextAPIFailure()
            : faults.nextAPIFailure()
        {
            response =
                [403, 429].contains(failure.status)
                ? .rateLimitExceeded(failure.status) : .errors(failure.status, StubResponse.phrase(failure.status))
            if let retryAfter = failure.retryAfter { response.setHeader("Retry-After", String(retryAfter)) }
        } else if segments.count == 2, ["users", "collections", "topics"].contains(segments[0]) {
            response = showSourceObject(path: segments)
        } else if segments.first != "photos" {
            response = listSource(path: segments, query: request.query)
        } else {
            switch segments.count {
            case 1:
                response = listPhotos(query: request.query)
            case 2:
                response = showPhoto(idOrSlug: segments[1])
            case 3 where segments[2] == "download":
                response = trackDownload(photoID: segments[1])
            default:
                response = .errors(404, "Not found")
            }
        }
        response.setHeader("X-Ratelimit-Limit", String(configuration.rateLimit))
        response.setHeader("X-Ratelimit-Remaining", String(budget.remaining))
        return response
    }

    private func isTracking(_ segments: [String]) -> Bool {
        segments.count == 3 && segments[0] == "photos" && segments[2] == "download"
    }

    private func isAuthorized(_ request: StubRequest) -> Bool {
        guard let key = configuration.accessKey else { return true }
        return request.header("Authorization") == "Client-ID \(key)"
            || request.query.last { $0.name == "client_id" }?.value == key
    }

    private var renderer: PhotoRenderer {
        PhotoRenderer(
            seed: configuration.seed, baseURL: baseURL, photographers: photographers, sponsors: sponsors,
            pictures: images.pictures)
    }

    /// `GET /photos`: one page, newest first, with Unsplash's pagination headers, and the page
    /// faults tests asked for.
    private func listPhotos(query: Query) -> StubResponse {
        let pageQuery = PageQuery(parameters: query)
        let page = pageQuery.page
        let layout = PageLayout(perPage: pageQuery.perPage, sponsoredEvery: configuration.sponsoredEvery)
        let renderer = renderer

        var photos = feed.page(page, layout: layout).map(renderer.summary)
        if var slots = faults.damagedPhotos[page] {
            for index in slots.indices where slots[index].slot < photos.count && slots[index].repetition.strike() {
                photos[slots[index].slot] = slots[index].defect.apply(to: photos[slots[index].slot])
            }
            slots.removeAll { $0.repetition.isSpent }
            faults.damagedPhotos[page] = slots.isEmpty ? nil : slots
        }
        var response: StubResponse
        if Faults.strike(&faults.emptyPages, page: page) {
            response = .json(200, [])
        } else if Faults.strike(&faults.malformedPages, page: page) {
            let json = Data(JSONValue.array(photos).serialized.utf8)
            response = .json(200, [])
            response.body = .complete(json.prefix(json.count / 2))
        } else {
            response = .json(200, .array(photos))
        }
        response.setHeader("X-Total", String(feed.count))
        response.setHeader("X-Per-Page", String(pageQuery.perPage))
        if let link = pageQuery.linkHeader(baseURL: baseURL, lastPage: layout.lastPage(total: feed.count)) {
            response.setHeader("Link", link)
        }
        // New uploads land after this page was answered, as they would between two requests.
        if let arriving = faults.headArrivals?.pageAnswered(), arriving > 0 {
            feed.addPhotos(count: arriving)
        }
        return response
    }

    /// `GET /users/:username/photos|likes`, `/collections/:id/photos`, `/topics/:slug/photos` and
    /// `/search/photos?query=`: a page of the list, newest first, with the feed's headers; an
    /// unknown user, collection or topic answers 404 with Unsplash's message.
    private func listSource(path segments: [String], query: Query) -> StubResponse {
        let catalog = SourceCatalog(feed: feed, renderer: renderer, seed: configuration.seed)
        let photos: [StubPhoto]
        switch catalog.photos(path: segments, query: query) {
        case .failure(let missing): return .errors(404, missing.message)
        case .success(let found): photos = found
        }
        let pageQuery = PageQuery(parameters: query)
        let layout = PageLayout(perPage: pageQuery.perPage, sponsoredEvery: nil)
        let start = (pageQuery.page - 1) * pageQuery.perPage
        let slice = start < photos.count ? Array(photos[start..<min(start + pageQuery.perPage, photos.count)]) : []
        let results = JSONValue.array(slice.map(renderer.summary))
        let lastPage = layout.lastPage(total: photos.count)
        var response: StubResponse =
            segments.first == "search"
            ? .json(
                200, .object([("total", .int(photos.count)), ("total_pages", .int(lastPage)), ("results", results)]))
            : .json(200, results)
        response.setHeader("X-Total", String(photos.count))
        response.setHeader("X-Per-Page", String(pageQuery.perPage))
        if let link = pageQuery.linkHeader(
            baseURL: baseURL, lastPage: lastPage, path: "/" + segments.joined(separator: "/"))
        {
            response.setHeader("Link", link)
        }
        return response
    }

    /// `GET /users/:username`, `/collections/:id`, `/topics/:slug`: the object a list belongs to;
    /// an unknown one answers 404 with Unsplash's message.
    private func showSourceObject(path segments: [String]) -> StubResponse {
        switch SourceCatalog(feed: feed, renderer: renderer, seed: configuration.seed).object(path: segments) {
        case .failure(let missing): .errors(404, missing.message)
        case .success(let object): .json(200, object)
        }
    }

    /// `GET /photos/:id`, where Unsplash also accepts the slug, which ends in the id.
    private func showPhoto(idOrSlug: String) -> StubResponse {
        guard let photo = feed.photo(id: idOrSlug) ?? feed.photo(id: String(idOrSlug.suffix(11))) else {
            return .errors(404, "Couldn't find Photo")
        }
        return .json(200, renderer.full(photo))
    }

    /// `GET /photos/:id/download`: Unsplash's download tracking; answers the image's URL.
    private func trackDownload(photoID: String) -> StubResponse {
        guard let photo = feed.photo(id: photoID) else {
            return .errors(404, "Couldn't find Photo")
        }
        return .json(200, ["url": .string(renderer.rawImageURL(photo))])
    }

    // MARK: - images.unsplash.com

    private func answerImage(_ request: StubRequest, name: String, viaRedirect: Bool) -> StubResponse {
        guard request.method == "GET" else {
            return .text(405, "Method Not Allowed")
        }
        let lastModified: Int
        if let photo = feed.photo(id: name) {
            lastModified = photo.createdAt
        } else if profileImageNames.contains(name) {
            lastModified = Timestamps.seconds(year: 2023, month: 12, day: 1)
        } else {
            return .text(404, "Not Found")
        }
        if !viaRedirect, let redirect = faults.nextImageRedirect(name: name) {
            return .redirect(
                redirect.status, to: redirect.location(path: request.path, query: request.queryString, baseURL: baseURL)
            )
        }
        if let status = faults.nextImageFailure(name: name) {
            return StubResponse(status: status)
        }

        let bytes = images.bytes(name: name, variant: ImageVariant.named(byQuery: request.query))
        var response = StubResponse(
            status: 200,
            headers: [("Content-Type", "image/jpeg"), ("Last-Modified", Timestamps.httpDate(lastModified))],
            body: .complete(bytes))
        if let interval = faults.trickledImages[name] {
            response.body = .trickled(bytes, every: interval)
        } else if faults.nextImageTruncation(name: name) {
            response.body = .mismatched(bytes.prefix(bytes.count / 2), declaredLength: bytes.count)
        } else if let oversize = faults.nextImageOversize(name: name) {
            switch oversize {
            case .trailingBytes(let extra):
                response.body = .mismatched(
                    bytes + Data(repeating: 0, count: max(0, extra)), declaredLength: bytes.count)
            case .understatedLength(let declared):
                response.body = .mismatched(bytes, declaredLength: min(max(0, declared), bytes.count))
            case .enlarged(let count, let declared):
                response.body = .generated(
                    prefix: bytes.prefix(count), filler: Data(repeating: 0x55, count: 64 * 1024), count: max(0, count),
                    declaresLength: declared)
            }
        }
        return response
    }
}
