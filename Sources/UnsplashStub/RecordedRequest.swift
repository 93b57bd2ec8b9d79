import Foundation

/// A request the stub answered, as it arrived, with the status it was given.
///
/// Headers are kept verbatim, `Authorization` included, so that tests can check what a client
/// sent; `description` redacts credentials, so printing a request never shows an access key.
public struct RecordedRequest: Sendable, Equatable, CustomStringConvertible {
    /// Which part of Unsplash the request was for.
    public enum Kind: String, Sendable, Equatable {
        /// `api.unsplash.com`: authorized, rate limited.
        case api
        /// `images.unsplash.com`: neither.
        case image
        /// Anything the stub does not serve.
        case other
    }

    public struct QueryItem: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public let method: String
    /// Without the query, e.g. `/photos/Ab3_dEfGh-I/download`.
    public let path: String
    /// In the order the client sent them.
    public let query: [QueryItem]
    /// Header names as the client spelled them; repeated headers are joined with ", ".
    public let headers: [String: String]
    public let kind: Kind
    /// The status the stub answered with.
    public let status: Int

    public init(method: String, path: String, query: [QueryItem], headers: [String: String], kind: Kind, status: Int) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.kind = kind
        self.status = status
    }

    /// The value of a header, whatever the case of its name.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The last value of a query parameter.
    public func queryValue(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }

    public var description: String {
        let redacted: Set<String> = ["client_id"]
        let query =
            query
            .map { "\($0.name)=\(redacted.contains($0.name) ? "<redacted>" : $0.value)" }
            .joined(separator: "&")
        return "\(method) \(path)\(query.isEmpty ? "" : "?" + query) -> \(status)"
    }
}
