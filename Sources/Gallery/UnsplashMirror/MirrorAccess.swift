import Basics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The requests each client key has left in the current clock hour: a ``FixedWindowBudget`` a
/// key. Unsplash documents neither a reset header nor whether its hour is rolling: a fixed hour
/// is the simpler promise.
final class MirrorRateLimit: Sendable {
    let hourlyLimit: Int
    private let now: @Sendable () -> Date
    /// The hour the budgets are of; a new hour forgets the keys of the last.
    private let budgets = Mutex<(hour: Int64, byKey: [String: FixedWindowBudget])>((hour: -1, byKey: [:]))

    init(hourlyLimit: Int, now: @escaping @Sendable () -> Date) {
        self.hourlyLimit = hourlyLimit
        self.now = now
    }

    /// Counts one request of `key`; the requests it has left this hour, or nil when none was
    /// left (the request is not counted then).
    func spend(_ key: String) -> Int? {
        let hour = FixedWindowBudget.window(at: .seconds(now().timeIntervalSince1970), length: .seconds(3600))
        return budgets.withLock { budgets in
            if budgets.hour != hour { budgets = (hour: hour, byKey: [:]) }
            var budget = budgets.byKey[key] ?? FixedWindowBudget(limit: hourlyLimit, window: hour)
            guard budget.spend(in: hour) else { return nil }
            budgets.byKey[key] = budget
            return budget.remaining
        }
    }
}

/// Checks each request's client key and counts it against the key's hourly limit, as Unsplash
/// does, and adds the rate-limit headers to every answer:
/// - no key, or one not listed: `401 {"errors":["OAuth error: The access token is invalid"]}`;
/// - none left this hour: `403` with the plain-text body `Rate Limit Exceeded`, as Unsplash.
struct MirrorAccess<Context: RequestContext>: RouterMiddleware {
    let clientKeys: Set<String>
    let rateLimit: MirrorRateLimit

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let key = Self.clientKey(of: request), clientKeys.isEmpty || clientKeys.contains(key) else {
            var response = MirrorAnswer.errors(.unauthorized, ["OAuth error: The access token is invalid"])
            response.headers[.xRatelimitLimit] = String(rateLimit.hourlyLimit)
            response.headers[.xRatelimitRemaining] = String(rateLimit.hourlyLimit)
            return response
        }
        guard let remaining = rateLimit.spend(key) else {
            var headers = MirrorAnswer.commonHeaders
            headers[.xRatelimitLimit] = String(rateLimit.hourlyLimit)
            headers[.xRatelimitRemaining] = "0"
            let body = ResponseBody(byteBuffer: ByteBuffer(string: "Rate Limit Exceeded"))
            return Response(status: .forbidden, headers: headers, body: body)
        }
        var response = try await next(request, context)
        response.headers[.xRatelimitLimit] = String(rateLimit.hourlyLimit)
        response.headers[.xRatelimitRemaining] = String(remaining)
        return response
    }

    /// The key of `Authorization: Client-ID KEY`, else of the `client_id` parameter.
    static func clientKey(of request: Request) -> String? {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].caseInsensitiveCompare("Client-ID") == .orderedSame {
                let key = parts[1].trimmingCharacters(in: .whitespaces)
                return key.isEmpty ? nil : key
            }
            return nil
        }
        let key = MirrorParameters(request.uri)["client_id"]
        return key?.isEmpty == false ? key : nil
    }
}

extension HTTPField.Name {
    static let xRatelimitLimit = Self("X-Ratelimit-Limit")!
    static let xRatelimitRemaining = Self("X-Ratelimit-Remaining")!
    static let xTotal = Self("X-Total")!
    static let xPerPage = Self("X-Per-Page")!
    static let link = Self("Link")!
    static let xPhotosyncDownloadTracking = Self("X-Photosync-Download-Tracking")!
    static let xPhotosyncImages = Self("X-Photosync-Images")!
}
