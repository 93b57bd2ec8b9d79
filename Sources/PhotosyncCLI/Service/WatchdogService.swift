import Logging
import ServiceLifecycle

/// Pings systemd's watchdog (`WATCHDOG=1`) every ``SystemdNotifier/watchdogInterval`` until
/// graceful shutdown, for units with `WatchdogSec=`.
///
/// It pings once at start, then after each interval. On graceful shutdown (SIGTERM through the
/// `ServiceGroup`) it stops pinging and returns; systemd stops enforcing the watchdog once it is
/// stopping the unit. Create it only when the watchdog is on: the initializer returns `nil`
/// otherwise, because a service that returned at once would end a `ServiceGroup`.
///
/// What it proves to systemd is that the process and its concurrency runtime are alive, not that
/// the sync makes progress.
public struct WatchdogService<C: Clock>: Service where C.Duration == Duration {
    private let notifier: SystemdNotifier
    private let interval: Duration
    private let clock: C

    /// `nil` when `notifier` has no watchdog interval (no `WATCHDOG_USEC`, or it is for another process).
    public init?(notifier: SystemdNotifier, clock: C) {
        guard let interval = notifier.watchdogInterval else { return nil }
        self.notifier = notifier
        self.interval = interval
        self.clock = clock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { [notifier, interval, clock] in
            while !Task.isCancelled {
                notifier.watchdog()
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    // Cancelled: graceful shutdown or the group's cancellation. Either way, stop.
                    return
                }
            }
        }
    }
}

extension WatchdogService where C == ContinuousClock {
    /// A watchdog on the real clock; `nil` when `notifier` has no watchdog interval.
    public init?(notifier: SystemdNotifier) {
        self.init(notifier: notifier, clock: ContinuousClock())
    }
}
