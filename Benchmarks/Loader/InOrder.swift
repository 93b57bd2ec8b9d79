import Foundation

extension FeedLoader {
    /// Prepares pages 1...`count`, as many at once as there are cores, and hands each to `write`
    /// in order, on the caller's task: the store has one writer.
    ///
    /// Pages are made on dispatch threads, not the concurrency pool's: a page takes tens of
    /// milliseconds of painting, and on the pool (two threads on two cores) each of the writer's
    /// round trips to PostgreSQL waited behind one to be resumed (75 photos a second).
    func inOrder(pages count: Int, write: (ReadyPage) async throws -> Void) async throws {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        try await withThrowingTaskGroup(of: (Int, ReadyPage).self) { group in
            var next = 1
            func startNext() {
                guard next <= count else { return }
                let number = next
                group.addTask { (number, try await preparedOffThePool(number)) }
                next += 1
            }
            for _ in 0..<workers { startNext() }
            var ready: [Int: ReadyPage] = [:]
            var expected = 1
            while let (number, page) = try await group.next() {
                ready[number] = page
                while let page = ready.removeValue(forKey: expected) {
                    try await write(page)
                    expected += 1
                    startNext()
                }
            }
        }
    }
}

extension FeedLoader {
    /// ``prepare(_:)`` on a dispatch thread.
    func preparedOffThePool(_ number: Int) async throws -> ReadyPage {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try prepare(number) }) }
        }
    }
}

/// A line on standard error every ten seconds: the photos stored so far and the rate.
struct Progress {
    let total: Int
    let start = ContinuousClock.now
    var last = ContinuousClock.now

    init(total: Int) {
        self.total = total
    }

    mutating func report(_ photos: Int) {
        let now = ContinuousClock.now
        guard now - last >= .seconds(10) else { return }
        last = now
        let seconds = Double((now - start).components.seconds)
        let rate = Double(photos) / max(1, seconds)
        FileHandle.standardError.write(
            Data(String(format: "scale-load: %d of %d photos, %.0f photos/s\n", photos, total, rate).utf8))
    }
}
