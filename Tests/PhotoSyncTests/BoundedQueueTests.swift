import Foundation
import Synchronization
import Testing

@testable import PhotoSync

@Suite struct BoundedQueueTests {
    @Test func aFullQueueHoldsItsProducerUntilAConsumerTakesOne() async throws {
        // GIVEN a queue of 2 that is full
        let queue = BoundedQueue<Int>(capacity: 2)
        try await queue.send(1)
        try await queue.send(2)
        let sent = Shared(false)
        let producer = Task {
            try await queue.send(3)
            sent.withLock { $0 = true }
        }
        // WHEN the producer has had every chance to run
        for _ in 0..<50 { await Task.yield() }
        // THEN it waits, and goes on once one element is taken
        #expect(!sent.value && queue.depth == 2)
        #expect(await queue.next() == 1)
        try await producer.value
        #expect(queue.depth == 2)
        #expect(await queue.next() == 2)
        #expect(queue.poll() == 3)
        #expect(queue.poll() == nil)
    }

    @Test func aFinishedQueueIsDrainedThenEndsAndRefusesMore() async throws {
        let queue = BoundedQueue<Int>(capacity: 4)
        try await queue.send(1)
        queue.finish()
        await #expect(throws: CancellationError.self) { try await queue.send(2) }
        #expect(await queue.next() == 1)
        #expect(await queue.next() == nil)
    }

    @Test func aWaitingConsumerGetsWhatIsSentAndEachElementGoesToOneConsumer() async throws {
        let queue = BoundedQueue<Int>(capacity: 3)
        let consumers = (0..<4).map { _ in
            Task { () -> [Int] in
                var got: [Int] = []
                while let element = await queue.next() { got.append(element) }
                return got
            }
        }
        for element in 0..<100 { try await queue.send(element) }
        queue.finish()
        var all: [Int] = []
        for consumer in consumers { all += await consumer.value }
        #expect(all.sorted() == Array(0..<100))
    }

    @Test func cancellationEndsEveryWait() async throws {
        let queue = BoundedQueue<Int>(capacity: 1)
        try await queue.send(1)
        let producer = Task { try await queue.send(2) }
        let empty = BoundedQueue<Int>(capacity: 1)
        let consumer = Task { await empty.next() }
        for _ in 0..<20 { await Task.yield() }
        producer.cancel()
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await producer.value }
        #expect(await consumer.value == nil)
        #expect(queue.depth == 1)
    }
}
