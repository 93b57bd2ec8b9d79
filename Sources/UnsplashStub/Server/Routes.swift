import FlyingFox
import Foundation

/// Hands every request to the stub; sleeps outside the actor, so a delayed image does not
/// hold up other requests.
struct StubRequestHandler: HTTPHandler {
    let stub: UnsplashStub

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let reply = await stub.reply(to: request)
        if let delay = reply.delay {
            try await Task.sleep(for: delay)
        }
        return reply.response
    }
}

struct Reply: Sendable {
    var response: HTTPResponse
    var delay: Duration?
}

private typealias Query = [(name: String, value: String)]

extension UnsplashStub {
    /// Answers one request and records it.
    func reply(to request: HTTPRequest) -> Reply {
        let query: Query = request.query.map { ($0.name, $0.value) }
        let segments = request.path.split(separator: "/").map(String.init)
        let kind: RecordedRequest.Kind
        let reply: Reply
        var imageName: String?
        var trackedPhotoID: String?

        switch segments.first {
        case "photos":
            kind = .api
            let response: HTTPResponse
            (response, trackedPhotoID) = answerAPI(request, query: query, segments: segments)
            reply = Reply(response: response)
        case "images" where segments.count == 2:
            kind = .image
            imageName = segments[1]
            reply = answerImage(request, name: segments[1], query: query)
        default:
            kind = .other
            reply = Reply(response: .errors(.notFound, "Not found"))
        }

        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.rawValue] = headers[name.rawValue].map { "\($0), \(value)" } ?? value
        }
        let recorded = RecordedRequest(
            method: request.method.rawValue, path: request.path,
            query: query.map { RecordedRequest.QueryItem(name: $0.name, value: $0.value) },
            headers: headers, kind: kind, status: reply.response.statusCode.code)
        log.record(recorded, imageName: imageName, trackedPhotoID: trackedPhotoID)
        return reply
    }

    // MARK: - api.unsplash.com

    /// Authorization, then the rate limit, then injected failures, then the endpoint; every
    /// answer carries the rate-limit headers.
    private func answerAPI(_ request: HTTPRequest, query: Query, segments: [String])
        -> (HTTPResponse, trackedPhotoID: String?)
    {
        var response: HTTPResponse
        var trackedPhotoID: String?
        if request.method != .GET {
            response = .errors(.methodNotAllowed, "Method not allowed")
        } else if !isAuthorized(request, query: query) {
            response = .errors(.unauthorized, "OAuth error: The access token is invalid")
        } else if remainingRequests <= 0 {
            response = .text(.forbidden, "Rate Limit Exceeded")
        } else {
            remainingRequests -= 1
            if let status = faults.nextAPIFailure() {
                let code = HTTPStatusCode.code(status)
                response = status == 429 ? .text(code, "Rate Limit Exceeded") : .errors(code, code.phrase)
            } else {
                switch segments.count {
                case 1:
                    response = listPhotos(query: query)
                case 2:
                    response = showPhoto(idOrSlug: segments[1])
                case 3 where segments[2] == "download":
                    response = trackDownload(photoID: segments[1])
                    if response.statusCode == .ok { trackedPhotoID = segments[1] }
                default:
                    response = .errors(.notFound, "Not found")
                }
            }
        }
        response.headers[.rateLimitLimit] = String(configuration.rateLimit)
        response.headers[.rateLimitRemaining] = String(remainingRequests)
        return (response, trackedPhotoID)
    }

    private func isAuthorized(_ request: HTTPRequest, query: Query) -> Bool {
        guard let key = configuration.accessKey else { return true }
        return request.headers[.authorization] == "Client-ID \(key)"
            || query.last { $0.name == "client_id" }?.value == key
    }

    private var renderer: PhotoRenderer {
        PhotoRenderer(seed: configuration.seed, baseURL: baseURL, photographers: photographers, sponsors: sponsors)
    }

    /// `GET /photos`: one page, newest first, with Unsplash's pagination headers.
    private func listPhotos(query: Query) -> HTTPResponse {
        let pageQuery = PageQuery(parameters: query)
        let layout = PageLayout(perPage: pageQuery.perPage, sponsoredEvery: configuration.sponsoredEvery)
        let renderer = renderer
        var response = HTTPResponse.json(
            .ok, .array(feed.page(pageQuery.page, layout: layout).map(renderer.summary)))
        response.headers[.total] = String(feed.count)
        response.headers[.perPage] = String(pageQuery.perPage)
        response.headers[.link] = pageQuery.linkHeader(baseURL: baseURL, lastPage: layout.lastPage(total: feed.count))
        return response
    }

    /// `GET /photos/:id`, where Unsplash also accepts the slug, which ends in the id.
    private func showPhoto(idOrSlug: String) -> HTTPResponse {
        guard let photo = feed.photo(id: idOrSlug) ?? feed.photo(id: String(idOrSlug.suffix(11))) else {
            return .errors(.notFound, "Couldn't find Photo")
        }
        return .json(.ok, renderer.full(photo))
    }

    /// `GET /photos/:id/download`: Unsplash's download tracking; answers the image's URL.
    private func trackDownload(photoID: String) -> HTTPResponse {
        guard let photo = feed.photo(id: photoID) else {
            return .errors(.notFound, "Couldn't find Photo")
        }
        return .json(.ok, ["url": .string(renderer.rawImageURL(photo))])
    }

    // MARK: - images.unsplash.com

    private func answerImage(_ request: HTTPRequest, name: String, query: Query) -> Reply {
        guard request.method == .GET else {
            return Reply(response: .text(.methodNotAllowed, "Method Not Allowed"))
        }
        let lastModified: Int
        if let photo = feed.photo(id: name) {
            lastModified = photo.createdAt
        } else if profileImageNames.contains(name) {
            lastModified = Timestamps.seconds(year: 2023, month: 12, day: 1)
        } else {
            return Reply(response: .text(.notFound, "Not Found"))
        }
        if let status = faults.nextImageFailure(name: name) {
            return Reply(response: HTTPResponse(statusCode: .code(status)), delay: faults.imageDelay)
        }

        let bytes = images.bytes(name: name, variant: ImageVariant.named(byQuery: query))
        let body =
            faults.nextImageTruncation(name: name)
            ? HTTPBodySequence(from: TruncatedBody(bytes: bytes.prefix(bytes.count / 2)), count: bytes.count)
            : HTTPBodySequence(data: bytes)
        let response = HTTPResponse(
            statusCode: .ok,
            headers: [
                .contentType: "image/jpeg",
                .contentLength: String(bytes.count),
                .lastModified: Timestamps.httpDate(lastModified),
            ],
            body: body)
        return Reply(response: response, delay: faults.imageDelay)
    }
}
