import Foundation

import enum NIOHTTP1.HTTPResponseStatus

/// Why a request did not produce the response the caller asked for: everything ``Provider``
/// throws, so that a caller can switch over it exhaustively.
///
/// Every message names the request's URL with secrets redacted (see ``Redaction``).
public enum NetworkError: Error, LocalizedError, Sendable {
    /// The endpoint does not describe a valid absolute http(s) URL.
    case invalidURL(String)
    /// The request could not be built (for example, its body failed to encode).
    case invalidRequest(String)
    /// The request never got an HTTP answer, or lost it mid-body: DNS, connection, TLS, proxy,
    /// timeout.
    case transport(TransportError, url: String)
    /// The server answered with a status outside 200-299.
    case unacceptableStatus(StatusFailure)
    /// The body did not decode to the expected type.
    case decoding(type: String, codingPath: String, reason: String, url: String)
    /// A 2xx answer with no body where one was expected.
    case emptyBody(url: String)
    /// The request would have carried a ``Credential`` to another origin; it was not sent.
    case foreignOrigin(url: String, allowed: String)
    /// A redirect the request's ``RedirectPolicy`` or ``Credential`` does not allow; the hop was
    /// not sent.
    case redirectRefused(from: String, to: String, reason: String)
    /// More redirect hops than the request's ``RedirectPolicy`` allows.
    case tooManyRedirects(url: String, limit: Int)
    /// The body is larger than the caller accepts: by its `Content-Length` (`declared`), or as it
    /// streamed in. The rest was not read.
    case bodyTooLarge(url: String, limit: Int64, declared: Int64?)
    /// The body ended before, or ran past, its `Content-Length`. Nothing of it was kept.
    case lengthMismatch(url: String, declared: Int64, received: Int64)
    /// A downloaded body could not be written to its spool file: a local problem, such as a full
    /// disk, that no retry of the request can fix.
    case spool(SpoolError)
    /// The calling task was cancelled; nothing more was sent.
    case cancelled

    /// What a non-2xx answer carried. The body may be anything: JSON, plain text, HTML.
    public struct StatusFailure: Sendable, Equatable {
        public var statusCode: Int
        public var headers: HTTPHeaders
        /// The first bytes of the body (at most ``NetworkError/bodyPrefixLimit``).
        public var bodyPrefix: Data
        /// The redacted URL.
        public var url: String

        public init(statusCode: Int, headers: HTTPHeaders, bodyPrefix: Data, url: String) {
            self.statusCode = statusCode
            self.headers = headers
            self.bodyPrefix = bodyPrefix
            self.url = url
        }

        /// The body prefix as text, if it is UTF-8.
        public var bodyText: String? {
            String(data: bodyPrefix, encoding: .utf8)
        }
    }

    /// How much of an error body is kept.
    public static let bodyPrefixLimit = 1024

    /// The HTTP status, for ``unacceptableStatus(_:)``.
    public var statusCode: Int? {
        if case .unacceptableStatus(let failure) = self { return failure.statusCode }
        return nil
    }

    public var errorDescription: String? {
        switch self {
        case .invalidURL(let reason):
            return "invalid URL: \(reason)"
        case .invalidRequest(let reason):
            return "invalid request: \(reason)"
        case .transport(let error, let url) where error.code == .tooSlow:
            return "\(url) answered too slowly: \(error.shortfall.map(\.description) ?? "\(error)")"
        case .transport(let error, let url) where error.shortfall != nil:
            return "\(url) did not answer in time: \(error)"
        case .transport(let error, let url):
            return "\(url) could not be reached: \(error)"
        case .unacceptableStatus(let failure):
            let status = Self.reasonPhrase(failure.statusCode)
            var message = "\(failure.url) answered \(failure.statusCode) \(status)"
            if let text = failure.bodyText?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
                message += ": " + text.prefix(200).replacingOccurrences(of: "\n", with: " ")
            }
            return message
        case .decoding(let type, let codingPath, let reason, let url):
            let at = codingPath.isEmpty ? "" : " at \(codingPath)"
            return "the answer of \(url) is not a valid \(type)\(at): \(reason)"
        case .emptyBody(let url):
            return "\(url) answered with an empty body"
        case .foreignOrigin(let url, let allowed):
            return "refusing to send credentials to \(url), which is not on \(allowed)"
        case .redirectRefused(let from, let to, let reason):
            return "\(from) redirected to \(to), which was not followed: \(reason)"
        case .tooManyRedirects(let url, let limit):
            return "\(url) redirected more than \(limit) times"
        case .bodyTooLarge(let url, let limit, let declared):
            let size = declared.map { "its Content-Length is \($0) bytes" } ?? "it ran past that"
            return "the body of \(url) is over the \(limit)-byte limit: \(size)"
        case .lengthMismatch(let url, let declared, let received):
            return "the body of \(url) was \(received) bytes, but its Content-Length said \(declared)"
        case .spool(let error):
            return error.errorDescription
        case .cancelled:
            return "the request was cancelled"
        }
    }

    /// `Not Found` for 404: the status's standard reason phrase, or its class for a code
    /// without one.
    private static func reasonPhrase(_ statusCode: Int) -> String {
        let phrase = HTTPResponseStatus(statusCode: statusCode).reasonPhrase
        if !phrase.isEmpty { return phrase }
        return (400..<500).contains(statusCode) ? "Client Error" : "Server Error"
    }

    /// `error`, met while sending to `url`, as a ``NetworkError``: a transport's failure, a
    /// spool's, or cancellation. Anything else is a transport failure it could not name.
    static func wrapping(_ error: any Error, url: @autoclosure () -> String) -> NetworkError {
        switch error {
        case let error as NetworkError: error
        case is CancellationError: .cancelled
        case let error as TransportError where error.code == .cancelled: .cancelled
        case let error as TransportError: .transport(error, url: url())
        case let error as SpoolError: .spool(error)
        default: .transport(TransportError(.other, detail: String(describing: error)), url: url())
        }
    }
}

extension DecodingError {
    /// The coding path as `[3].user.name`, for error messages.
    var codingPathDescription: String {
        let path: [any CodingKey] =
            switch self {
            case .typeMismatch(_, let context), .valueNotFound(_, let context),
                .keyNotFound(_, let context), .dataCorrupted(let context):
                context.codingPath + (keyNotFoundKey.map { [$0] } ?? [])
            @unknown default:
                []
            }
        return path.map { key in
            key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
        }.joined().trimmingPrefix(".").description
    }

    private var keyNotFoundKey: (any CodingKey)? {
        if case .keyNotFound(let key, _) = self { return key }
        return nil
    }

    var reason: String {
        switch self {
        case .typeMismatch(let type, let context): "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context): "missing \(type): \(context.debugDescription)"
        case .keyNotFound(let key, _): "missing key \(key.stringValue)"
        case .dataCorrupted(let context): context.debugDescription
        @unknown default: "\(self)"
        }
    }
}
