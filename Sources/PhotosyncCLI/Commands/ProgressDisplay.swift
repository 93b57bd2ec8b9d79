import Foundation
import PhotoSync
import Synchronization

/// Shows sync progress: a live line in a terminal, and systemd's `STATUS=` under systemd.
/// Updates come from every page and image, so both are throttled; a change of activity (from
/// backfilling to idle, say) is always shown at once.
final class ProgressDisplay: Sendable {
    private let interactive: Bool
    private let notifier: SystemdNotifier
    private let lastShown = Mutex<(at: ContinuousClock.Instant, activity: String)?>(nil)
    private let interval = Duration.milliseconds(200)

    init(interactive: Bool, notifier: SystemdNotifier) {
        self.interactive = interactive
        self.notifier = notifier
    }

    func show(_ progress: SyncProgress) {
        let now = ContinuousClock.now
        let due = lastShown.withLock { last in
            if let shown = last, shown.at.duration(to: now) < interval, shown.activity == progress.activity {
                return false
            }
            last = (now, progress.activity)
            return true
        }
        guard due else { return }
        notifier.status(progress.summary)
        if interactive {
            FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + progress.summary).utf8))
        }
    }

    /// Ends the live line.
    func finish() {
        if interactive {
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}
