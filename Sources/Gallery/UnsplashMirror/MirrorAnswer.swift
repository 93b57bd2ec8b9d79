import Foundation
import Hummingbird
import NIOCore
import UnsplashAPI

/// What a mirror route could not answer, as Unsplash would say it.
enum MirrorFailure: Error, Equatable {
    /// A parameter Unsplash would refuse: 400.
    case badRequest(String)
    /// No such photo, user, collection or topic in the mirror: 404 "Couldn't find Photo".
    case notFound(String)
    /// The database cannot be read: 503, without SQLite's words.
    case unavailable
    /// A request the mirror must record to answer (a download, which Unsplash must hear of;
    /// a photo's full object, which the sync fetches when asked) could not be recorded: 503,
    /// never an answer that loses it.
    case notRecorded

    var response: Response {
        switch self {
        case .badRequest(let message): MirrorAnswer.errors(.badRequest, [message])
        case .notFound(let kind): MirrorAnswer.errors(.notFound, ["Couldn't find \(kind)"])
        case .unavailable: MirrorAnswer.errors(.serviceUnavailable, ["The mirror's database cannot be read just now"])
        case .notRecorded:
            MirrorAnswer.errors(
                .serviceUnavailable, ["The mirror cannot record this request just now; try again later"],
                headers: [.retryAfter: "30"])
        }
    }
}

/// Answers in Unsplash's shapes: JSON bodies, `{"errors": [...]}` on errors, and the headers
/// Unsplash sends with every answer so that browsers may read them.
enum MirrorAnswer {
    static let commonHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlExposeHeaders: "Link,X-Total,X-Per-Page,X-RateLimit-Limit,X-RateLimit-Remaining",
        .cacheControl: "no-cache",
    ]

    /// `body` with `status`, as `application/json`.
    static func json(_ status: HTTPResponse.Status = .ok, _ body: Data, headers extra: HTTPFields = [:]) -> Response {
        json(status, ByteBuffer(bytes: body), headers: extra)
    }

    /// `body` with `status`, as `application/json`.
    static func json(_ status: HTTPResponse.Status = .ok, _ body: ByteBuffer, headers extra: HTTPFields = [:])
        -> Response
    {
        var headers = commonHeaders
        headers[.contentType] = "application/json"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// `{"errors": messages}` with `status`.
    static func errors(_ status: HTTPResponse.Status, _ messages: [String], headers: HTTPFields = [:]) -> Response {
        json(status, JSONValue.object(["errors": .array(messages.map(JSONValue.string))]).encoded, headers: headers)
    }

    /// A list's JSON array: the items' own texts joined, so each photo is encoded once.
    static func array(_ items: [Data]) -> Data {
        var body = Data("[".utf8)
        for (index, item) in items.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(item)
        }
        body.append(UInt8(ascii: "]"))
        return body
    }
}

/// Answers a request under `/unsplash` that no route matched as Unsplash answers an unknown
/// route, `404 {"errors": [...]}`, where the router's own answer is an empty 404.
///
/// The routes' `**` cannot catch them all: the router matches a path's segments one by one and
/// gives up at a segment that starts a longer route but is none itself (`/unsplash/users`, the
/// start of `users/:username`), without trying `**`. Added to the router after every route, so
/// that it runs only where none matched.
struct MirrorFallback<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard path == "/unsplash" || path.hasPrefix("/unsplash/") else { return try await next(request, context) }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return MirrorFailure.notFound("the requested resource").response
        }
    }
}
