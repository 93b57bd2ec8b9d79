import Synchronization

/// Runs `work` and returns its result, or throws `failure` once `limit` has passed, even when
/// `work` never returns: a hang then fails the test instead of the whole run.
public func withDeadline<T: Sendable>(
    _ limit: Duration, failure: any Error & Sendable, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let first = FirstOutcome<T>()
    return try await withCheckedThrowingContinuation { continuation in
        first.set(continuation)
        Task {
            first.resume(with: await Result { try await work() })
        }
        Task {
            try? await Task.sleep(for: limit)
            first.resume(with: .failure(failure))
        }
    }
}

/// Resumes a continuation with whichever outcome comes first, and ignores the rest.
public final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    public init() {}

    public func set(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    public func resume(with result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    public init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A small deterministic generator (SplitMix64), so a failing storm replays.
public struct SeededRandom {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
