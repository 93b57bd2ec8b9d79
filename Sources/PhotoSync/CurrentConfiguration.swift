import Synchronization
import UnsplashAPI

/// The configuration and repository the next round reads when it begins, which a reload
/// replaces (``SyncEngine/reconfigure(_:repository:)``): it numbers the replacements, so that a
/// round can tell it is out of date, and wakes the daemon that waits for one.
final class CurrentConfiguration: Sendable {
    /// What a round reads at once: `generation` counts the replacements before it.
    struct Snapshot: Sendable {
        var configuration: SyncConfiguration
        var repository: PhotoRepository
        var generation: Int
    }

    private let current: Mutex<Snapshot>
    private let replaced = WakeSignal()

    init(_ configuration: SyncConfiguration, repository: PhotoRepository) {
        current = Mutex(Snapshot(configuration: configuration, repository: repository, generation: 0))
    }

    var snapshot: Snapshot { current.withLock { $0 } }
    var configuration: SyncConfiguration { current.withLock { $0.configuration } }
    var generation: Int { current.withLock { $0.generation } }

    /// Replaces the configuration and, when given, the repository, then wakes ``waitForReplacement()``.
    func replace(with configuration: SyncConfiguration, repository: PhotoRepository?) {
        current.withLock { current in
            current.configuration = configuration
            if let repository { current.repository = repository }
            current.generation += 1
        }
        replaced.signal()
    }

    /// Returns after the next replacement (or at once for one since the last wait), or when the
    /// task is cancelled. One waiter at a time.
    func waitForReplacement() async {
        await replaced.wait()
    }
}
