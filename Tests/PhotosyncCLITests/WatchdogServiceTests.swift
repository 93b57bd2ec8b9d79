import Logging
import PhotosyncCLI
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// A clock whose first `immediateSleeps` sleeps return at once; later ones stay suspended until
/// cancelled. Each requested delay is yielded to ``sleeps`` as its sleep begins.
final class ScriptedClock: Clock, Sendable {
    typealias Instant = TestClock.Instant

    private let remainingImmediate: Mutex<Int>
    private let started: AsyncStream<Duration>.Continuation
    let sleeps: AsyncStream<Duration>

    init(immediateSleeps: Int) {
        remainingImmediate = Mutex(immediateSleeps)
        (sleeps, started) = AsyncStream.makeStream()
    }

    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        started.yield(now.duration(to: deadline))
        let immediate = remainingImmediate.withLock { remaining in
            defer { remaining -= 1 }
            return remaining > 0
        }
        if immediate { return }
        let never = AsyncStream<Never> { _ in }
        for await _ in never {}
        throw CancellationError()
    }
}

@Suite struct WatchdogServiceTests {
    func group(_ service: some Service) -> ServiceGroup {
        ServiceGroup(services: [service], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test(.timeLimit(.minutes(5)))
    func pingsEveryHalfTimeoutUntilGracefulShutdown() async throws {
        let listener = DatagramListener()
        let notifier = SystemdNotifier(environment: [
            "NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "2000000",
        ])
        let clock = ScriptedClock(immediateSleeps: 2)
        let service = try #require(WatchdogService(notifier: notifier, clock: clock))
        let group = group(service)

        let running = Task { try await group.run() }
        var delays: [Duration] = []
        for await delay in clock.sleeps {
            delays.append(delay)
            if delays.count == 3 { break }
        }
        // Ping, sleep, ping, sleep, ping, and now suspended in the third sleep.
        #expect(delays == [.seconds(1), .seconds(1), .seconds(1)])
        #expect(listener.received() == ["WATCHDOG=1", "WATCHDOG=1", "WATCHDOG=1"])

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(listener.received() == [])
    }

    @Test func noWatchdogMeansNoService() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/unused"])
        #expect(WatchdogService(notifier: notifier) == nil)
        #expect(
            WatchdogService(
                notifier: SystemdNotifier(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"], processID: 2))
                == nil)
    }
}
