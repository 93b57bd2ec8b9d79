import Foundation
import PhotoStore
import Synchronization

/// The image retries one round waits for before it ends.
///
/// ``SyncEngine/runOnce(maxPages:)`` gives each image ``SyncConfiguration/maxImageAttempts``
/// attempts, with short waits between them, and waits for those retries; after its last attempt
/// in the run, a transient failure waits for its backoff instead, which the run does not wait
/// for (the next run, or the daemon, tries it again). A daemon's round waits for no retry: every
/// transient failure waits for its backoff, and the daemon wakes when the first falls due.
final class RetriesWithinRun: Sendable {
    private struct Key: Hashable {
        var photoID: String
        var variant: ImageVariant
    }

    private struct State {
        /// Failed attempts in this round, by job.
        var failures: [Key: Int] = [:]
        /// Retries this round waits for, by job: when each falls due.
        var due: [Key: Date] = [:]
    }

    /// Attempts at each image within the round; 1 retries nothing within it.
    let attemptsPerRound: Int
    /// Whether the round is `runOnce`'s, which ends when its work is done, rather than a daemon's.
    let withinRun: Bool
    private let configuration: SyncConfiguration
    private let state = Mutex(State())

    init(configuration: SyncConfiguration, withinRun: Bool) {
        self.configuration = configuration
        self.withinRun = withinRun
        self.attemptsPerRound = withinRun ? configuration.maxImageAttempts : 1
    }

    /// Records a transient failure of `job` at `failedAt`, and returns when the round retries it,
    /// or nil when it has had its attempts in this round and waits for its backoff.
    func failed(_ job: ImageJob, at failedAt: Date) -> Date? {
        let key = Key(photoID: job.photoID, variant: job.variant)
        return state.withLock { state in
            let failures = state.failures[key, default: 0] + 1
            state.failures[key] = failures
            guard failures < attemptsPerRound else {
                state.due[key] = nil
                return nil
            }
            let retryAt = failedAt.addingTimeInterval(
                configuration.imageRetryDelay(afterAttempts: failures).timeInterval)
            state.due[key] = retryAt
            return retryAt
        }
    }

    /// The job is being tried again: the round no longer waits for it.
    func handedOut(_ job: ImageJob) {
        _ = state.withLock { $0.due.removeValue(forKey: Key(photoID: job.photoID, variant: job.variant)) }
    }

    /// The earliest retry the round waits for; nil when it waits for none.
    var earliest: Date? {
        state.withLock { $0.due.values.min() }
    }
}
