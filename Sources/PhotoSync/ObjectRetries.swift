import Foundation
import Synchronization

/// The objects (a collection, a topic, a profile) whose fetch failed, and when each may be tried
/// again. It lives as long as the engine. The wait starts at one poll interval, so the first
/// retry is the next poll, and the wait doubles with each failure in a row, up to
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
