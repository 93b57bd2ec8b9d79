import Foundation
import Networking

/// One page of the feed and what its headers said.
public struct PhotoPage: Sendable {
    public var photos: [Photo]
    /// The page's elements that are not usable photos (no id, a field of the wrong type), kept
    /// so that they are recorded rather than lost or blocking the page.
    public var rejected: [RejectedElement]
    /// The `Link: rel="next"` target; nil on the last page.
    public var next: URL?
    /// `X-Total`: photos in the whole feed (may differ from the pages' counts by one).
    public var total: Int?
    public var perPage: Int?
    public var rateLimit: RateLimit?

    public init(
        photos: [Photo], rejected: [RejectedElement] = [], next: URL?, total: Int?, perPage: Int?, rateLimit: RateLimit?
    ) {
        self.photos = photos
        self.rejected = rejected
        self.next = next
        self.total = total
        self.perPage = perPage
        self.rateLimit = rateLimit
    }
}

/// An image that arrived whole and matched its `Content-Length`, with its SHA-256. When its body
/// is in a spool file, the caller must ``SpooledBody/remove()`` it.
public struct FetchedImage: Sendable {
    public var body: SpooledBody
    public var contentType: String?
}

/// Reads Unsplash's photo feed and images through a ``Provider``.
///
/// Every method throws an ``UnsplashError``: a rejected key, an exhausted rate limit, other API
/// answers, a local spool failure and cancellation (``UnsplashError/cancelled``) are told apart
/// so the sync can act on each.
public struct PhotoRepository: Sendable {
    public var provider: Provider
    public var api: UnsplashAPI
    public var now: @Sendable () -> Date
    /// Awaited before an API request is retried, or follows a redirect on the API's origin,
    /// with what the answer before reported of the rate limit (nil when it said nothing): each
    /// attempt and each hop spends a request, so a caller that keeps a budget admits each one
    /// (see ``admitting(_:)``). By default they go at once. It throws only when the wait for
    /// admission is cancelled.
    public var admitsRetry: @Sendable (_ reported: RateLimit?) async throws(CancellationError) -> Void = { _ in }

    public init(provider: Provider, api: UnsplashAPI, now: @escaping @Sendable () -> Date = Date.init) {
        self.provider = provider
        self.api = api
        self.now = now
    }

    /// This repository, with its API requests' retries admitted by `admitsRetry`.
    public func admitting(
        _ admitsRetry: @escaping @Sendable (_ reported: RateLimit?) async throws(CancellationError) -> Void
    ) -> PhotoRepository {
        var repository = self
        repository.admitsRetry = admitsRetry
        return repository
    }

    /// The first page of `source`, newest first (see ``UnsplashAPI/firstPage(of:perPage:as:)``).
    /// A search answers its photos inside an object (``SearchResults``); every other kind, as an
    /// array. The `switch`es name every kind, so a new one does not compile until it says which.
    public func firstPage(of source: PhotoSource, perPage: Int) async throws(UnsplashError) -> PhotoPage {
        switch source {
        case .search:
            try await searchPage(api.firstPage(of: source, perPage: perPage))
        case .feed, .user, .likes, .collection, .topic:
            try await page(api.firstPage(of: source, perPage: perPage))
        }
    }

    /// The page of `source` at a stored cursor, resolved against the API's base URL.
    public func page(of source: PhotoSource, atCursor cursor: String) async throws(UnsplashError) -> PhotoPage {
        switch source {
        case .search:
            try await searchPage(try api.page(atCursor: cursor))
        case .feed, .user, .likes, .collection, .topic:
            try await page(try api.page(atCursor: cursor))
        }
    }

    /// Downloads an image into `spool`, hashing it as it arrives.
    /// Image URLs are the CDN's, not the API's: no key is sent. A failed download is not
    /// retried here: the caller's image queue retries it with its own backoff, so that one bad
    /// image never holds a download slot through a series of retries.
    /// - Parameters:
    ///   - redirects: the hops to follow, each checked as the first URL was.
    ///   - minimumRate: the slowest the body may arrive (its head must come within the
    ///     transport's connect and read timeouts); nil leaves it to the transport's default.
    /// - Throws: ``UnsplashError``: ``UnsplashError/spool(_:)`` for a local problem such as a full
    ///   disk.
    public func image(
        at url: URL, redirects: RedirectPolicy, minimumRate: MinimumRate? = nil, into spool: BodySpool
    ) async throws(UnsplashError) -> FetchedImage {
        var provider = provider
        provider.retryPolicy = .none
        let response = try await mapped { () throws(NetworkError) in
            try await provider.download(url, redirects: redirects, minimumRate: minimumRate, into: spool)
        }
        return FetchedImage(body: response.value, contentType: response.headers["Content-Type"])
    }

    /// Sends the download-tracking request for a photo's `download_location`.
    /// - Returns: the rate-limit budget the answer reported.
    @discardableResult
    public func trackDownload(_ location: URL) async throws(UnsplashError) -> RateLimit? {
        let endpoint = api.trackDownload(location)
        let provider = apiProvider
        let response = try await mapped { () throws(NetworkError) in try await provider.response(endpoint) }
        return RateLimit(headers: response.headers)
    }

    /// The provider for API requests: an answer that reports no request left is not retried,
    /// since the retry would be over the rate limit, and every retry and every redirect hop
    /// (which carries the key, so it is on the API's origin) is admitted by ``admitsRetry`` first.
    var apiProvider: Provider {
        var provider = provider
        provider.retryPolicy.refusesRetry = { failure in RateLimit(headers: failure.headers)?.remaining == 0 }
        let admitsRetry = admitsRetry
        provider.retryPolicy.admitsRetry = { error throws(NetworkError) in
            let reported: RateLimit? =
                if case .unacceptableStatus(let failure) = error { RateLimit(headers: failure.headers) } else { nil }
            do {
                try await admitsRetry(reported)
            } catch {
                throw .cancelled
            }
        }
        provider.admitsCredentialedHop = { redirect throws(NetworkError) in
            do {
                try await admitsRetry(RateLimit(headers: redirect.headers))
            } catch {
                throw .cancelled
            }
        }
        return provider
    }

    private func page(_ endpoint: Endpoint<PhotoList>) async throws(UnsplashError) -> PhotoPage {
        let provider = apiProvider
        let response = try await mapped { () throws(NetworkError) in try await provider.response(endpoint) }
        return PhotoPage(
            photos: response.value.photos,
            rejected: response.value.rejected,
            next: response.headers["Link"].flatMap { LinkHeader($0).next },
            total: response.headers["X-Total"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            perPage: response.headers["X-Per-Page"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            rateLimit: RateLimit(headers: response.headers))
    }

    private func searchPage(_ endpoint: Endpoint<SearchResults>) async throws(UnsplashError) -> PhotoPage {
        let provider = apiProvider
        let response = try await mapped { () throws(NetworkError) in try await provider.response(endpoint) }
        return PhotoPage(
            photos: response.value.results.photos,
            rejected: response.value.results.rejected,
            next: response.headers["Link"].flatMap { LinkHeader($0).next },
            total: response.headers["X-Total"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                ?? response.value.total,
            perPage: response.headers["X-Per-Page"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            rateLimit: RateLimit(headers: response.headers))
    }

    func mapped<T>(_ body: () async throws(NetworkError) -> T) async throws(UnsplashError) -> T {
        do {
            return try await body()
        } catch {
            throw UnsplashError(error, now: now())
        }
    }
}
