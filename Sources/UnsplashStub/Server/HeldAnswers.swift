import NIOCore
import Synchronization

/// The answers being held back on purpose (`delayImages`, `delayAPIRequests`), so that stopping
/// can cut them off at once instead of waiting out delays that tests make long.
final class HeldAnswers: Sendable {
    private struct Held {
        let channel: any Channel
        let wait: Task<Void, any Error>
    }

    private struct State {
        var isStopping = false
        var held: [ObjectIdentifier: Held] = [:]
    }

    private let state = Mutex(State())

    /// Holds the answer on `channel` for `delay`.
    /// - Throws: when the stub stops meanwhile (or had stopped): the connection is then closed,
    ///   so the client sees it end rather than any answer.
    func hold(for delay: Duration, on channel: any Channel) async throws {
        let key = ObjectIdentifier(channel)
        let wait = Task { try await Task.sleep(for: delay) }
        let admitted = state.withLock { state in
            guard !state.isStopping else { return false }
            state.held[key] = Held(channel: channel, wait: wait)
            return true
        }
        defer { _ = state.withLock { $0.held.removeValue(forKey: key) } }
        guard admitted else {
            wait.cancel()
            channel.close(promise: nil)
            throw CancellationError()
        }
        try await withTaskCancellationHandler {
            try await wait.value
        } onCancel: {
            wait.cancel()
        }
    }

    /// Closes every connection whose answer is held, ends the holds, and refuses new ones.
    func cutOffAll() {
        let held = state.withLock { state in
            state.isStopping = true
            return Array(state.held.values)
        }
        for answer in held {
            // Closed first, so that the server's answer to the failed handler never goes out.
            answer.channel.close(promise: nil)
            answer.wait.cancel()
        }
    }
}
