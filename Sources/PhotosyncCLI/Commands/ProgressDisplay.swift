import Foundation
import PhotoSync
import Synchronization

/// Shows sync progress: a live line in a terminal, and systemd's `STATUS=` under systemd.
/// Updates come from every page and image, so both are throttled.
final class ProgressDisplay: Sendable {
    private let interactive: Bool
    private let notifier: SystemdNotifier
    private let lastShown = Mutex<ContinuousClock.Instant?>(nil)
    private let interval = Duration.milliseconds(200)

    init(interactive: Bool, notifier: SystemdNotifier) {
        self.interactive = interactive
        self.notifier = notifier
    }

    func show(_ progress: SyncProgress) {
        let now = ContinuousClock.now
        let due = lastShown.withLock { last in
            if let last, last.duration(to: now) < interval, progress.activity != "done" { return false }
            last = now
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
