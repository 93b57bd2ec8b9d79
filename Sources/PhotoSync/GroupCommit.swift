import Synchronization

/// Writes many callers' records in one transaction, with no timer: a caller that arrives while a
/// write is in progress leaves its record for the next write and waits for it. A caller that
/// finds no write in progress starts one, which writes everything waiting, again and again
/// until nothing is.
///
/// Writes are the store's `async` writes, run by a task of their own that the first caller of a
/// batch starts: callers wait for it while suspended.
///
/// ``record(_:)`` returns only once its record is committed, or throws the error of the write it
/// was part of, so a caller that goes on may rely on what it recorded. A record never waits for
/// more than the write in progress and its own.
final class GroupCommit<Record: Sendable>: Sendable {
    private struct Waiting {
        var record: Record
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let write: @Sendable ([Record]) async throws -> Void
    private let state = Mutex(State())

    /// - Parameter write: writes its records in one transaction; called for one batch at a time.
    init(write: @escaping @Sendable ([Record]) async throws -> Void) {
        self.write = write
    }

    /// Records waiting for the next write.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func record(_ record: Record) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let leads = state.withLock { state in
                state.waiting.append(Waiting(record: record, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            guard leads else { return }
            Task { await self.writeAllWaiting() }
        }
    }

    private func writeAllWaiting() async {
        while let batch = nextBatch() {
            let result: Result<Void, any Error>
            do {
                try await write(batch.map(\.record))
                result = .success(())
            } catch {
                result = .failure(error)
            }
            for waiting in batch { waiting.continuation.resume(with: result) }
        }
    }

    /// Takes everything waiting, or ends this caller's turn as the writer when nothing is.
    private func nextBatch() -> [Waiting]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return nil
            }
            defer { state.waiting = [] }
            return state.waiting
        }
    }
}
