import Foundation
import Networking

/// What went wrong talking to Unsplash, in terms a caller can act on.
public enum UnsplashError: Error, LocalizedError, Sendable {
    /// 401: the key is not a valid Access Key.
    case accessKeyRejected(detail: String)
    /// 403 `Rate Limit Exceeded` (plain text) or 429: wait, then go on.
    case rateLimited(RateLimit?, retryAfter: Duration?)
    /// Any other answer outside 2xx, with the API's `errors` messages when it sent JSON.
    case api(statusCode: Int, messages: [String], url: String)
    /// No answer, or one that did not decode.
    case network(NetworkError)
    /// A URL from the API outside the API's origin: the key is not sent there.
    case foreignURL(String, expected: String)
    /// A redirect that was not followed: off the API's origin, or (for images) to a host that is
    /// not allowed, or too many hops. Nothing was sent to the target.
    case redirectRefused(NetworkError)
    /// A downloaded image could not be written to its spool file: a local problem, such as a full
    /// disk, that asking Unsplash again cannot fix.
    case spool(SpoolError)
    /// The calling task was cancelled.
    case cancelled

    public var errorDescription: String? {
        switch self {
        case .accessKeyRejected(let detail):
            "Unsplash rejected the access key (401\(detail.isEmpty ? "" : ": \(detail)")). "
                + "Use your application's Access Key, not its Secret key or Application ID."
        case .rateLimited(let limit, _):
            "Unsplash's rate limit is exhausted" + (limit.map { " (\($0.remaining) of \($0.limit) left)" } ?? "")
        case .api(let status, let messages, let url):
            "\(url) answered \(status)" + (messages.isEmpty ? "" : ": " + messages.joined(separator: "; "))
        case .network(let error):
            error.errorDescription
        case .foreignURL(let url, let expected):
            "refusing to send the access key to \(url), which is not on \(expected)"
        case .redirectRefused(let error):
            error.errorDescription
        case .spool(let error):
            error.errorDescription
        case .cancelled:
            "the request was cancelled"
        }
    }

    /// Unsplash's reading of a ``NetworkError``.
    init(_ error: NetworkError, now: Date = Date()) {
        switch error {
        case .foreignOrigin(let url, let allowed): self = .foreignURL(url, expected: allowed)
        case .redirectRefused, .tooManyRedirects: self = .redirectRefused(error)
        case .unacceptableStatus(let failure): self = Self.reading(failure, now: now)
        case .spool(let error): self = .spool(error)
        case .cancelled: self = .cancelled
        case .invalidURL, .invalidRequest, .transport, .decoding, .emptyBody, .bodyTooLarge, .lengthMismatch:
            self = .network(error)
        }
    }

    /// What a non-2xx answer means: its status, and its body, which may be JSON or plain text.
    private static func reading(_ failure: NetworkError.StatusFailure, now: Date) -> UnsplashError {
        let messages = (try? JSONDecoder().decode(ErrorBody.self, from: failure.bodyPrefix))?.errors ?? []
        let text = failure.bodyText?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        switch failure.statusCode {
        case 401:
            return .accessKeyRejected(detail: messages.first ?? "")
        case 403 where !text.localizedCaseInsensitiveContains("rate limit exceeded"):
            return .api(statusCode: 403, messages: messages, url: failure.url)
        case 403, 429:
            return .rateLimited(
                RateLimit(headers: failure.headers),
                retryAfter: failure.headers["Retry-After"].flatMap { RetryPolicy.retryAfter($0, now: now) })
        default:
            return .api(statusCode: failure.statusCode, messages: messages, url: failure.url)
        }
    }

    private struct ErrorBody: Decodable {
        var errors: [String]
    }
}
