/// An HTTP request method.
///
/// A struct rather than an enum so that a method this file does not name (`PROPFIND`, `QUERY`)
/// can still be expressed: `HTTPMethod(rawValue: "QUERY")`. Raw values are upper-cased.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let head: HTTPMethod = "HEAD"
    public static let options: HTTPMethod = "OPTIONS"
    public static let trace: HTTPMethod = "TRACE"

    /// Whether repeating the request has the same effect as sending it once (RFC 9110, 9.2.2).
    /// Only idempotent requests are retried by ``Provider``.
    public var isIdempotent: Bool {
        Self.idempotentMethods.contains(self)
    }

    private static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
}
