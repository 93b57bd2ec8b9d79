import Synchronization

/// A first-in, first-out queue of at most ``capacity`` elements between the stages of a sync,
/// for any number of producers and consumers.
///
/// A producer that finds it full is suspended until a consumer takes an element, so a fast stage
/// can never run further ahead of a slow one than the capacity: that is how memory and the
/// walker's lead over the downloads stay bounded. Every wait ends when its task is cancelled.
final class BoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var head = 0
        var finished = false
        var consumers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var producers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0

        var count: Int { elements.count - head }

        mutating func take() -> Element? {
            guard head < elements.count else { return nil }
            let element = elements[head]
            head += 1
            // Compacting only now and then keeps `take` O(1) amortized.
            if head > 64 && head * 2 > elements.count {
                elements.removeFirst(head)
                head = 0
            }
            return element
        }

        /// Wakes every waiter of one kind: each re-checks the state, so none can miss a change.
        mutating func wakeAll(_ kind: Waiter) -> [CheckedContinuation<Void, Never>] {
            switch kind {
            case .consumer:
                defer { consumers = [:] }
                return Array(consumers.values)
            case .producer:
                defer { producers = [:] }
                return Array(producers.values)
            }
        }

        mutating func register(_ kind: Waiter, _ id: UInt64, _ continuation: CheckedContinuation<Void, Never>) {
            switch kind {
            case .consumer: consumers[id] = continuation
            case .producer: producers[id] = continuation
            }
        }

        mutating func unregister(_ kind: Waiter, _ id: UInt64) -> CheckedContinuation<Void, Never>? {
            switch kind {
            case .consumer: consumers.removeValue(forKey: id)
            case .producer: producers.removeValue(forKey: id)
            }
        }
    }

    private enum Waiter {
        case consumer, producer
    }

    /// The most elements the queue holds; a producer waits beyond it.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many elements wait to be taken: the stage's queue depth, for progress and metrics.
    var depth: Int { state.withLock { $0.count } }

    /// Appends `element`, waiting while the queue is full.
    ///
    /// - Throws: `CancellationError` when cancelled while waiting, or when the queue was finished
    ///   (its consumers are gone); the element is then dropped.
    func send(_ element: Element) async throws {
        while true {
            try Task.checkCancellation()
            let (accepted, woken) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard !state.finished else { return (false, []) }
                guard state.count < capacity else { return (false, []) }
                state.elements.append(element)
                return (true, state.wakeAll(.consumer))
            }
            for continuation in woken { continuation.resume() }
            if accepted { return }
            if state.withLock({ $0.finished }) { throw CancellationError() }
            await wait(as: .producer) { $0.count >= self.capacity && !$0.finished }
        }
    }

    /// The next element, waiting while the queue is empty; nil once the queue is finished and
    /// drained, or when the task is cancelled.
    func next() async -> Element? {
        while true {
            if Task.isCancelled { return nil }
            let (element, finished, woken) = state.withLock {
                state -> (Element?, Bool, [CheckedContinuation<Void, Never>]) in
                let element = state.take()
                return (element, state.finished, element == nil ? [] : state.wakeAll(.producer))
            }
            for continuation in woken { continuation.resume() }
            if let element { return element }
            if finished { return nil }
            await wait(as: .consumer) { $0.count == 0 && !$0.finished }
        }
    }

    /// The next element if one is waiting, without waiting.
    func poll() -> Element? {
        let (element, woken) = state.withLock { state -> (Element?, [CheckedContinuation<Void, Never>]) in
            let element = state.take()
            return (element, element == nil ? [] : state.wakeAll(.producer))
        }
        for continuation in woken { continuation.resume() }
        return element
    }

    /// Ends the queue: consumers drain what is left and then get nil; producers are refused.
    func finish() {
        let woken = state.withLock { state in
            state.finished = true
            return state.wakeAll(.consumer) + state.wakeAll(.producer)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Suspends until woken by a change or cancelled, unless `stillBlocked` is already false.
    private func wait(
        as kind: Waiter,
        while stillBlocked: @escaping @Sendable (State) -> Bool
    ) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { state in
                    guard stillBlocked(state), !Task.isCancelled else { return false }
                    state.register(kind, id, continuation)
                    return true
                }
                if !registered { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.unregister(kind, id) }?.resume()
        }
    }
}
