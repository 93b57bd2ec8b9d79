import Foundation

/// Where a redirect sends a client.
public enum RedirectTarget: Sendable, Equatable {
    /// The same path and query on the stub itself, reached through a chain of `hops` redirects
    /// (at least 1) via `/hop/N/...` paths; the first answers the status asked for, the hops
    /// after it `302`. The hops and the chain's end are recorded like the request they stand
    /// for (an image hop counts as a request for that image), and the end is served as the
    /// original path would be, without redirecting again.
    case sameOrigin(hops: Int)
    /// The same path and query on another origin, for example a `ForeignOrigin`'s `baseURL`.
    case origin(URL)
    /// Exactly this URL.
    case url(URL)
}

struct Redirect: Sendable {
    let target: RedirectTarget
    let status: Int
    var remaining: Int

    /// The `Location` for a request of `path` + `query` on a stub at `baseURL`.
    func location(path: String, query: String, baseURL: URL) -> String {
        switch target {
        case .sameOrigin(let hops):
            return Self.trimmed(baseURL) + "/hop/\(max(1, hops) - 1)" + path + query
        case .origin(let origin):
            return Self.trimmed(origin) + path + query
        case .url(let url):
            return url.absoluteString
        }
    }

    static func trimmed(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

extension UnsplashStub {
    /// Answers the next `count` API requests that pass the authorization and rate-limit checks
    /// with a redirect (`status`, 302 by default, and a `Location`) instead of their answer.
    /// Each spends the rate limit. Replaces API redirects still pending.
    public func redirectNextAPIRequests(count: Int = 1, to target: RedirectTarget, status: Int = 302) {
        faults.apiRedirects = count > 0 ? Redirect(target: target, status: status, remaining: count) : nil
    }

    /// Answers the next `times` requests for this photo's image (any rendition) with a redirect
    /// instead of the bytes. Replaces image redirects still pending for the photo.
    public func redirectImage(photoID: String, to target: RedirectTarget, times: Int = 1, status: Int = 302) {
        faults.imageRedirects[photoID] = times > 0 ? Redirect(target: target, status: status, remaining: times) : nil
    }
}
