import Synchronization
import TestSupport
import Testing

@testable import PhotoSync

@Suite struct GroupCommitTests {
    struct Hung: Error {}
    struct DiskFull: Error, Equatable {}

    @Test func recordsThatArriveDuringAWriteShareTheNextOne() async throws {
        let writes = Shared<[[Int]]>([])
        let firstWriteEntered = AsyncStream<Void>.makeStream()
        let releaseFirstWrite = AsyncStream<Void>.makeStream()
        let commit = GroupCommit<Int> { batch in
            if batch == [0] {
                // Stays in progress, as a real transaction does, while the others arrive.
                firstWriteEntered.continuation.yield()
                for await _ in releaseFirstWrite.stream { break }
            }
            writes.withLock { $0.append(batch) }
        }
        try await withDeadline(.seconds(300), failure: Hung()) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // GIVEN a write in progress
                group.addTask { try await commit.record(0) }
                for await _ in firstWriteEntered.stream { break }
                // WHEN three records arrive meanwhile
                for record in 1...3 {
                    group.addTask {
                        try await commit.record(record)
                        // THEN each caller returns only once its record is written
                        #expect(writes.value.contains { $0.contains(record) })
                    }
                }
                while commit.waitingCount < 3 { await Task.yield() }
                releaseFirstWrite.continuation.yield()
                try await group.waitForAll()
            }
        }
        // AND they are written together, in the order they came
        #expect(writes.value.count == 2)
        #expect(writes.value.first == [0])
        #expect(writes.value.last?.sorted() == [1, 2, 3])
    }

    @Test func aFailedWriteFailsItsRecordsAndTheNextWriteGoesOn() async throws {
        let written = Shared<[Int]>([])
        let commit = GroupCommit<Int> { batch in
            if batch.contains(1) { throw DiskFull() }
            written.withLock { $0 += batch }
        }
        try await commit.record(0)
        await #expect(throws: DiskFull.self) { try await commit.record(1) }
        try await commit.record(2)
        #expect(written.value == [0, 2])
        #expect(commit.waitingCount == 0)
    }

    @Test func manyConcurrentRecordsAreEachWrittenOnce() async throws {
        let written = Shared<[Int]>([])
        let commit = GroupCommit<Int> { batch in written.withLock { $0 += batch } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for record in 0..<1_000 {
                group.addTask { try await commit.record(record) }
            }
            try await group.waitForAll()
        }
        #expect(written.value.sorted() == Array(0..<1_000))
    }
}
