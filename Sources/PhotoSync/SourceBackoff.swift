import Foundation
import Synchronization

/// The sources that answered 404, and until when each is left alone. It lives as long as the
/// engine, so a daemon retries such a source after a long wait rather than every round.
final class SourceBackoff: Sendable {
    private let failures = Mutex<[String: (failure: SourceNotFound, until: Date)]>([:])

    /// The failure of `source` while its backoff lasts; nil when it may be tried.
    func failure(of source: String, now: Date) -> SourceNotFound? {
        failures.withLock { failures in
            guard let entry = failures[source] else { return nil }
            guard entry.until > now else {
                failures[source] = nil
                return nil
            }
            return entry.failure
        }
    }

    func failed(_ failure: SourceNotFound, until: Date) {
        failures.withLock { $0[failure.source] = (failure, until) }
    }
}

/// The objects (a collection, a topic, a profile) whose fetch failed, and when each may be tried
/// again. It lives as long as the engine. The wait starts at one poll interval, so the first
/// retry is the next poll as before, and doubles with each failure in a row, up to
/// ``maxDelay``: an object the API keeps failing on costs a request and a warning a few times a
/// day, not at every poll. A fetch that succeeds forgets the object.
final class ObjectRetries: Sendable {
    static let maxDelay: TimeInterval = 6 * 3600
    private let failures = Mutex<[[String]: (count: Int, until: Date)]>([:])

    /// Whether the object at `segments` may be fetched at `now`.
    func isDue(_ segments: [String], now: Date) -> Bool {
        failures.withLock { $0[segments].map { $0.until <= now } ?? true }
    }

    /// Records a failure at `now`; returns the wait before the next try.
    func failed(_ segments: [String], now: Date, pollInterval: TimeInterval) -> TimeInterval {
        failures.withLock { failures in
            let count = (failures[segments]?.count ?? 0) + 1
            let delay = min(pollInterval * pow(2, Double(min(count - 1, 30))), Self.maxDelay)
            failures[segments] = (count, now.addingTimeInterval(delay))
            return delay
        }
    }

    func succeeded(_ segments: [String]) {
        _ = failures.withLock { $0.removeValue(forKey: segments) }
    }
}
