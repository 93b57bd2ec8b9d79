import Foundation
import Networking

/// Unsplash's API endpoints, authorized with an application's Access Key.
///
/// Every endpoint carries `Accept-Version: v1` and the key as a ``Credential`` for ``baseURL``'s
/// origin: ``Provider`` sends `Authorization: Client-ID <key>` there and nowhere else. A URL the
/// API hands back (a `Link` target, a `download_location`), or a redirect, that points elsewhere
/// is refused rather than sent the key.
public struct UnsplashAPI: Sendable, CustomStringConvertible {
    public static let defaultBaseURL = URL(string: "https://api.unsplash.com")!
    /// The most photos a page can hold; larger values are silently capped by the server.
    public static let maxPerPage = 30
    /// The page sizes the API honours.
    public static let perPageRange = 1...maxPerPage
    /// The CDN every image URL of the API points to.
    public static let imageHost = "images.unsplash.com"
    /// Where Unsplash+ images are, which a free key may not download.
    public static let plusImageHost = "plus.unsplash.com"
    /// The deadline of every API request, each attempt and redirect hop on its own: its whole
    /// answer, head and body, within 30 s. Unsplash answers in well under a second; a page of 30
    /// photos is about 100 KB.
    public static let requestTimeout = Duration.seconds(30)

    public var baseURL: URL
    private var accessKey: String

    public init(baseURL: URL = Self.defaultBaseURL, accessKey: String) {
        self.baseURL = baseURL
        self.accessKey = accessKey
    }

    public var description: String { "UnsplashAPI(\(baseURL.absoluteString))" }

    /// The first page of `source`, newest first where the endpoint can be asked to (`order_by=latest`:
    /// a user's photos and likes, a topic, a search; a collection lists the photos added last
    /// first, and the feed is always newest first). Values go into the path as single segments
    /// and into the query percent-encoded, so no value can change the path.
    ///
    /// `Body` is ``PhotoList`` for every source but ``PhotoSource/search(_:)``, whose answer is a
    /// ``SearchResults``.
    public func firstPage<Body>(of source: PhotoSource, perPage: Int, as body: Body.Type = Body.self) -> Endpoint<Body>
    {
        let segments: [String]
        var query: [(name: String, value: String)] = []
        switch source {
        case .feed: segments = ["photos"]
        case .user(let name): segments = ["users", name, "photos"]
        case .likes(let name): segments = ["users", name, "likes"]
        case .collection(let id): segments = ["collections", id, "photos"]
        case .topic(let slug): segments = ["topics", slug, "photos"]
        case .search(let text):
            segments = ["search", "photos"]
            query.append(("query", text))
        }
        switch source {
        case .user, .likes, .topic, .search: query.append(("order_by", "latest"))
        case .feed, .collection: break
        }
        query += [("page", "1"), ("per_page", String(min(max(1, perPage), Self.maxPerPage)))]
        var endpoint = Endpoint<Body>(
            baseURL: baseURL, query: query, headers: headers, timeout: Self.requestTimeout, credential: credential)
        endpoint.segments = segments
        return endpoint
    }

    /// A page of any source at a cursor from ``cursor(for:)``, resolved against ``baseURL`` as a
    /// browser resolves a link, so that a database outlives a change of base URL. A cursor that
    /// resolves off the API's origin (`//elsewhere/...`) is refused here, with
    /// ``UnsplashError/foreignURL(_:expected:)``.
    public func page<Body>(atCursor cursor: String, as body: Body.Type = Body.self) throws(UnsplashError) -> Endpoint<
        Body
    > {
        guard let url = URL(string: cursor, relativeTo: baseURL)?.absoluteURL else {
            throw .foreignURL(cursor, expected: baseURL.absoluteString)
        }
        try requireSameOrigin(url)
        return Endpoint(url: url, headers: headers, timeout: Self.requestTimeout, credential: credential)
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
    /// Sending it to another origin fails with ``UnsplashError/foreignURL(_:expected:)``.
    public func trackDownload(_ location: URL) -> Endpoint<DownloadLink> {
        Endpoint(url: location, headers: headers, timeout: Self.requestTimeout, credential: credential)
    }

    var headers: [String: String] {
        ["Accept-Version": "v1"]
    }

    private func requireSameOrigin(_ url: URL) throws(UnsplashError) {
        guard let expected = Origin(baseURL), Origin(url) == expected else {
            throw .foreignURL(Redaction.string(for: url), expected: baseURL.absoluteString)
        }
    }

    /// The key, bound to the API's origin. Without a valid base URL there is no origin to bind it
    /// to: the endpoints then fail to build (``NetworkError/invalidURL(_:)``) before anything is sent.
    var credential: Credential? {
        Origin(baseURL).map { Credential(origin: $0, headerValue: "Client-ID \(accessKey)") }
    }
}

/// The answer of a download-tracking request.
public struct DownloadLink: Decodable, Sendable, Equatable {
    public var url: String?
}
