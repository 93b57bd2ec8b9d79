/// Tells one waiting stage that something it waits for may have changed: a page committed, an
/// image stored, the walk ended. Signals sent while nobody waits are kept as one, so a wait
/// that starts after the change returns at once and no change is missed.
struct WakeSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func signal() {
        continuation.yield()
    }

    /// Returns after the next signal (or at once for one sent since the last wait), or when the
    /// task is cancelled. One waiter at a time.
    func wait() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}
