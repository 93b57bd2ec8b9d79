import Foundation

/// When and how long ``Provider`` waits before sending an idempotent request again.
///
/// Delays grow exponentially from ``baseDelay`` by ``multiplier``, each capped at ``maxDelay``,
/// and are shortened by a random fraction of up to ``jitter`` so that many clients do not retry in
/// step. A `Retry-After` header replaces the computed delay. Retrying stops after ``maxAttempts``
/// attempts, or when the next delay would take the total past ``maxTotalDelay``: the last error is
/// then thrown.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first one included. 1 disables retries.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var multiplier: Double
    /// The longest single wait, also for a `Retry-After` the server asks for: a longer one is not
    /// waited for here but thrown, so the caller can decide (and keep its own budget).
    public var maxDelay: Duration
    /// The most time spent waiting across all retries of one request.
    public var maxTotalDelay: Duration
    /// The largest fraction, 0 to 1, by which a computed delay is randomly shortened.
    public var jitter: Double
    /// Statuses worth another try: request timeout, too many requests, server errors.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another try: the ones a moment later may not repeat.
    public var retryableTransportErrors: Set<TransportError.Code>
    /// A number in 0..<1; injected so tests can fix the jitter.
    public var random: @Sendable () -> Double
    /// Answers never retried whatever their status: for example one that reports the caller's
    /// request budget spent, where another attempt would overdraw it.
    public var refusesRetry: @Sendable (NetworkError.StatusFailure) -> Bool = { _ in false }
    /// Awaited before each retry, after its backoff: for a caller that must admit every attempt,
    /// as a rate-limit budget does, since each one spends a request. What it throws ends the
    /// request with that error.
    public var admitsRetry: @Sendable (NetworkError) async throws(NetworkError) -> Void = { _ in }

    public init(
        maxAttempts: Int = 4,
        baseDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30),
        maxTotalDelay: Duration = .seconds(60),
        jitter: Double = 0.2,
        retryableStatusCodes: Set<Int> = Set([408, 429]).union(500...599),
        retryableTransportErrors: Set<TransportError.Code> = [
            .timedOut, .tooSlow, .connectionRefused, .hostNotFound, .cannotConnect, .connectionLost, .tlsFailed,
            .proxyFailed, .invalidResponse,
        ],
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.maxTotalDelay = maxTotalDelay
        self.jitter = min(max(jitter, 0), 1)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportErrors = retryableTransportErrors
        self.random = random
    }

    /// The default policy: 4 attempts, 0.5 s, 1 s, 2 s (less up to 20 % jitter), at most 60 s.
    public static let standard = RetryPolicy()

    /// Never retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The computed delay before attempt `attempt + 1`, after `attempt` failed (1-based).
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponential = baseDelay * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(exponential, maxDelay)
        return capped * (1 - jitter * random())
    }

    /// Whether the failure is worth another attempt at all.
    public func isRetryable(_ error: NetworkError) -> Bool {
        switch error {
        case .transport(let error, _): retryableTransportErrors.contains(error.code)
        case .unacceptableStatus(let failure):
            retryableStatusCodes.contains(failure.statusCode) && !refusesRetry(failure)
        // A body cut short is the connection failing mid-answer: worth another try.
        case .lengthMismatch(_, let declared, let received): received < declared
        case .invalidURL, .invalidRequest, .decoding, .emptyBody, .foreignOrigin, .redirectRefused,
            .tooManyRedirects, .bodyTooLarge, .spool, .cancelled:
            false
        }
    }

    /// The wait a `Retry-After` value asks for: delay-seconds, or an HTTP date relative to `now`.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)).rounded(.up))
    }
}

/// The three date formats HTTP allows (RFC 9110, 5.6.7); senders use the first.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]

    static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
