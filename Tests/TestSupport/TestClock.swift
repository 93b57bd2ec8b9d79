import Synchronization

/// A clock whose sleeps return at once, advancing its time and recording each requested delay,
/// so tests can assert the exact waits without waiting.
///
/// A sleep for which `suspends` answers true instead stays suspended until its task is cancelled,
/// and ``sleepStarted`` says when each sleep began: for testing what happens during a wait.
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))
    private let suspends: @Sendable (Duration) -> Bool
    private let started: AsyncStream<Duration>.Continuation
    /// Yields each requested delay as its sleep begins.
    public let sleepStarted: AsyncStream<Duration>

    public convenience init(suspendsSleeps: Bool = false) {
        self.init(suspending: { _ in suspendsSleeps })
    }

    public init(suspending: @escaping @Sendable (Duration) -> Bool) {
        self.suspends = suspending
        (sleepStarted, started) = AsyncStream.makeStream()
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Every delay slept so far, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves time forward without a sleep, as if work had taken `duration`.
    public func advance(by duration: Duration) {
        state.withLock { $0.now = $0.now.advanced(by: duration) }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let delay = state.withLock { state in
            let delay = state.now.duration(to: deadline)
            state.sleeps.append(delay)
            return delay
        }
        started.yield(delay)
        if suspends(delay) {
            let never = AsyncStream<Never> { _ in }
            for await _ in never {}
            throw CancellationError()
        }
        state.withLock { $0.now = max($0.now, deadline) }
    }
}
