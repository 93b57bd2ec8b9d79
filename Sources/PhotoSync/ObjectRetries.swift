import Foundation
import Synchronization

/// The objects (a collection, a topic, a profile) whose fetch failed, and when each may be tried
/// again, after ``SyncConfiguration``'s `sourceObjectRetryDelay(afterFailures:)`: the next poll,
/// then waits that double up to six hours, so an object the API keeps failing on costs a request
/// and a warning a few times a day, not at every poll. It lives as long as the engine; a fetch
/// that succeeds forgets the object.
final class ObjectRetries: Sendable {
    private let failures = Mutex<[[String]: (count: Int, until: Date)]>([:])

    /// Whether the object at `segments` may be fetched at `now`.
    func isDue(_ segments: [String], now: Date) -> Bool {
        failures.withLock { $0[segments].map { $0.until <= now } ?? true }
    }

    /// Records a failure at `now`; returns the wait before the next try.
    func failed(_ segments: [String], now: Date, configuration: SyncConfiguration) -> Duration {
        failures.withLock { failures in
            let count = (failures[segments]?.count ?? 0) + 1
            let wait = configuration.sourceObjectRetryDelay(afterFailures: count)
            failures[segments] = (count, now.addingTimeInterval(wait.timeInterval))
            return wait
        }
    }

    func succeeded(_ segments: [String]) {
        _ = failures.withLock { $0.removeValue(forKey: segments) }
    }
}
