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
        var headers = commonHeaders
        headers[.contentType] = "application/json"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
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
