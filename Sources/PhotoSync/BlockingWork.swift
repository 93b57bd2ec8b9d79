import Dispatch

/// Runs blocking work, such as a SQLite transaction, on a thread of its own while the calling
/// task is suspended.
///
/// Swift runs tasks on as many threads as there are cores (2 on a small server). A transaction
/// run on one of them holds it while it writes, and sleeps on it while another connection holds
/// SQLite's write lock: the image fetchers then had one thread left to receive and hash with.
struct BlockingWork: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on this queue, one at a time, and returns what it returned or threw.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
