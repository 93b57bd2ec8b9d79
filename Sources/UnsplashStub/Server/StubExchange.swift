import Foundation

/// A request as the stub's routes see it: plain values, so that only `HTTPListener` knows
/// which HTTP server library carries it.
struct StubRequest: Sendable {
    let method: String
    /// Percent-decoded, without the query, e.g. `/photos/Ab3_dEfGh-I/download`.
    let path: String
    /// Percent-decoded, in the order the client sent them.
    let query: [(name: String, value: String)]
    /// Names as the client spelled them, in the order sent; repeated headers stay separate.
    let headers: [(name: String, value: String)]

    /// The first value of a header, whatever the case of its name.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The query as sent, re-encoded, with a leading `?`; empty when there is none.
    var queryString: String {
        guard !query.isEmpty else { return "" }
        let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))
        return "?"
            + query.map {
                "\($0.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.name)="
                    + "\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.value)"
            }.joined(separator: "&")
    }

    /// The request as the log keeps it: repeated headers joined with ", ".
    func recorded(kind: RecordedRequest.Kind, status: Int) -> RecordedRequest {
        var joined: [String: String] = [:]
        for (name, value) in headers {
            joined[name] = joined[name].map { "\($0), \(value)" } ?? value
        }
        return RecordedRequest(
            method: method, path: path, query: query.map { RecordedRequest.QueryItem(name: $0.name, value: $0.value) },
            headers: joined, kind: kind, status: status)
    }
}

/// What the stub answers, and how it delivers it.
struct StubResponse: Sendable {
    enum Body: Sendable {
        /// Exactly these bytes, with a matching `Content-Length`.
        case complete(Data)
        /// Declares `declaredLength`, sends `bytes` (fewer or more), then closes the connection
        /// instead of ending the response: a download cut short, or one longer than announced.
        case mismatched(Data, declaredLength: Int)
        /// `count` bytes: `prefix`, then `filler` repeated, written in chunks as they are made,
        /// so that a body of any size costs no memory. Without `declaresLength`, the body is
        /// sent chunked, with no `Content-Length` at all.
        case generated(prefix: Data, filler: Data, count: Int, declaresLength: Bool)
        /// Exactly these bytes, with a matching `Content-Length`, one byte every `interval`
        /// after the head: a host that trickles.
        case trickled(Data, every: Duration)
    }

    var status: Int
    /// Sent in this order; `Content-Length` is added from the body unless set here.
    var headers: [(name: String, value: String)] = []
    var body: Body = .complete(Data())
    /// Held back this long before the first byte is sent.
    var delay: Duration?

    init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .complete(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    static func json(_ status: Int, _ body: JSONValue) -> StubResponse {
        StubResponse(
            status: status, headers: [("Content-Type", "application/json")], body: .complete(Data(body.serialized.utf8))
        )
    }

    /// Unsplash's error body: `{"errors": [message]}`.
    static func errors(_ status: Int, _ message: String) -> StubResponse {
        json(status, ["errors": [.string(message)]])
    }

    static func text(_ status: Int, _ body: String) -> StubResponse {
        StubResponse(status: status, headers: [("Content-Type", "text/plain")], body: .complete(Data(body.utf8)))
    }

    /// Unsplash's answer to a rate-limited request: plain text, not JSON.
    static func rateLimitExceeded(_ status: Int) -> StubResponse {
        text(status, "Rate Limit Exceeded")
    }

    static func redirect(_ status: Int, to location: String) -> StubResponse {
        StubResponse(status: status, headers: [("Location", location)])
    }

    /// The standard phrase of a status, for status lines and Unsplash-style error bodies.
    static func phrase(_ status: Int) -> String {
        let phrases = [
            200: "OK", 301: "Moved Permanently", 302: "Found", 303: "See Other", 307: "Temporary Redirect",
            308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error",
            501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status] ?? "Status \(status)"
    }
}
