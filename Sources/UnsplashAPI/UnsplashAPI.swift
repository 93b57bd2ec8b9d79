import Foundation
import Networking

/// Unsplash's API endpoints, authorized with an application's Access Key.
///
/// Every endpoint carries `Authorization: Client-ID <key>` and `Accept-Version: v1`, and only ever
/// targets ``baseURL``'s origin: a URL the API hands back (a `Link` target, a `download_location`)
/// that points elsewhere is refused rather than sent the key.
public struct UnsplashAPI: Sendable, CustomStringConvertible {
    public static let defaultBaseURL = URL(string: "https://api.unsplash.com")!
    /// The most photos a page can hold; larger values are silently capped by the server.
    public static let maxPerPage = 30

    public var baseURL: URL
    private var accessKey: String

    public init(baseURL: URL = Self.defaultBaseURL, accessKey: String) {
        self.baseURL = baseURL
        self.accessKey = accessKey
    }

    public var description: String { "UnsplashAPI(\(baseURL.absoluteString))" }

    /// `GET /photos?page=&per_page=`: the newest-first feed.
    public func photos(page: Int, perPage: Int) -> Endpoint<PhotoList> {
        Endpoint(baseURL: baseURL, path: "photos",
                 query: [("page", String(max(1, page))), ("per_page", String(min(max(1, perPage), Self.maxPerPage)))],
                 headers: headers)
    }

    /// A page of the feed at an absolute URL the API gave, such as a `Link: rel="next"` target.
    public func photos(at url: URL) throws(UnsplashError) -> Endpoint<PhotoList> {
        try requireSameOrigin(url)
        return Endpoint(url: url, headers: headers)
    }

    /// A page of the feed at a cursor from ``cursor(for:)``, resolved against ``baseURL`` as a
    /// browser resolves a link, so that a database outlives a change of base URL.
    public func photos(atCursor cursor: String) throws(UnsplashError) -> Endpoint<PhotoList> {
        guard let url = URL(string: cursor, relativeTo: baseURL)?.absoluteURL else {
            throw .foreignURL(cursor, expected: baseURL.absoluteString)
        }
        return try photos(at: url)
    }

    /// What to store of a URL the API gave (a `Link: rel="next"` target) to fetch it later: its
    /// path and query, such as `/photos?page=2&per_page=30`, without scheme or host.
    ///
    /// - Throws: ``UnsplashError/foreignURL(_:expected:)`` when `url` is not on ``baseURL``'s
    ///   origin: such a URL is refused at once, never stored, so the key is never sent there.
    public func cursor(for url: URL) throws(UnsplashError) -> String {
        try requireSameOrigin(url)
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .foreignURL(Redaction.string(for: url), expected: baseURL.absoluteString)
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The download-tracking request for a photo's `links.download_location` (its query kept).
    public func trackDownload(_ location: URL) throws(UnsplashError) -> Endpoint<DownloadLink> {
        try requireSameOrigin(location)
        return Endpoint(url: location, headers: headers)
    }

    private var headers: [String: String] {
        ["Authorization": "Client-ID \(accessKey)", "Accept-Version": "v1"]
    }

    private func requireSameOrigin(_ url: URL) throws(UnsplashError) {
        func origin(_ url: URL) -> String? {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                  let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
            else { return nil }
            return "\(scheme)://\(host):\(components.port ?? (scheme == "https" ? 443 : 80))"
        }
        guard let expected = origin(baseURL), origin(url) == expected else {
            throw .foreignURL(Redaction.string(for: url), expected: baseURL.absoluteString)
        }
    }
}

/// The answer of a download-tracking request.
public struct DownloadLink: Decodable, Sendable, Equatable {
    public var url: String?
}
