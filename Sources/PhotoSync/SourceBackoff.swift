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
