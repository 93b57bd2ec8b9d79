import FlyingFox
import FlyingSocks
import Foundation

extension HTTPResponse {
    static func json(_ status: HTTPStatusCode, _ body: JSONValue) -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: [.contentType: "application/json"], body: Data(body.serialized.utf8))
    }

    /// Unsplash's error body: `{"errors": [message]}`.
    static func errors(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
        json(status, ["errors": [.string(message)]])
    }

    static func text(_ status: HTTPStatusCode, _ body: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "text/plain"], body: Data(body.utf8))
    }
}

extension HTTPHeader {
    static let link = HTTPHeader("Link")
    static let total = HTTPHeader("X-Total")
    static let perPage = HTTPHeader("X-Per-Page")
    static let rateLimitLimit = HTTPHeader("X-Ratelimit-Limit")
    static let rateLimitRemaining = HTTPHeader("X-Ratelimit-Remaining")
}

extension HTTPStatusCode {
    /// The status for a code a test asked for, with its standard phrase when it has one.
    static func code(_ code: Int) -> HTTPStatusCode {
        let known: [HTTPStatusCode] = [
            .ok, .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .requestTimeout,
            .tooManyRequests, .internalServerError, .notImplemented, .badGateway, .serviceUnavailable,
            .gatewayTimeout,
        ]
        return known.first { $0.code == code } ?? HTTPStatusCode(code, phrase: "Status \(code)")
    }
}

/// A body that yields the bytes it has, then fails: FlyingFox has by then sent the declared
/// `Content-Length`, and on the failure it closes the connection, so the client sees a download
/// cut short rather than a short but complete answer.
struct TruncatedBody: AsyncBufferedSequence {
    typealias Element = UInt8

    struct CutShort: Error {}

    let bytes: Data

    func makeAsyncIterator() -> Iterator {
        Iterator(remaining: bytes)
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: Data

        mutating func next() async throws -> UInt8? {
            guard let byte = remaining.popFirst() else { throw CutShort() }
            return byte
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            guard !remaining.isEmpty else { throw CutShort() }
            let chunk = remaining.prefix(count)
            remaining.removeFirst(chunk.count)
            return Data(chunk)
        }
    }
}
