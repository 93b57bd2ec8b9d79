import Foundation

extension FeedLoader {
    /// Prepares pages 1...`count` on every core at once, at most a few pages ahead, and hands
    /// each to `write` in order, on the caller's task: the store has one writer.
    func inOrder(pages count: Int, write: (ReadyPage) async throws -> Void) async throws {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let ahead = workers * 4
        try await withThrowingTaskGroup(of: (Int, ReadyPage).self) { group in
            var next = 1
            func startNext() {
                guard next <= count else { return }
                let number = next
                group.addTask { (number, try prepare(number)) }
                next += 1
            }
            for _ in 0..<ahead { startNext() }
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
