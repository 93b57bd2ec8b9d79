import Networking

/// Unsplash's request budget as the last API answer reported it. There is no reset header.
public struct RateLimit: Sendable, Equatable {
    /// Requests allowed per hour (`X-Ratelimit-Limit`).
    public var limit: Int
    /// Requests left (`X-Ratelimit-Remaining`).
    public var remaining: Int

    public init(limit: Int, remaining: Int) {
        self.limit = limit
        self.remaining = remaining
    }

    /// The budget the headers report, if they carry one.
    public init?(headers: HTTPHeaders) {
        guard let remaining = headers["X-Ratelimit-Remaining"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { return nil }
        self.remaining = remaining
        self.limit = headers["X-Ratelimit-Limit"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? remaining
    }
}
