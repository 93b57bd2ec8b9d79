import Dispatch
import Foundation

/// SIGINT and SIGTERM, delivered as an awaitable event instead of killing the process, so the
/// stub can close its socket and exit 0.
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]
    private let received: AsyncStream<Int32>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        received = stream
        sources = [SIGINT, SIGTERM].map { signalNumber in
            // The default action would end the process before the source sees the signal.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(signalNumber) }
            source.resume()
            return source
        }
    }

    /// Returns once either signal has arrived.
    func wait() async {
        for await _ in received {
            return
        }
    }
}
