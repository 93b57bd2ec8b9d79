import Synchronization

/// One write transaction of this process at a time, in the order they asked: what SQLite's one
/// writer connection gives the SQLite store. photosync's stages commit pages, images, tracking
/// marks and details side by side; in PostgreSQL, two of their transactions could each lock a
/// row the other needs next (a page updating photos that a tracking mark updates too), and the
/// server would end one as a deadlock. Taking turns, they never wait on each other's rows.
final class WriteTurns: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every turn asked for before it has ended.
    func take<T>(_ body: () async throws -> sending T) async throws -> sending T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if now { continuation.resume() }
        }
        defer {
            let next = state.withLock { state in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil as CheckedContinuation<Void, Never>?
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
