import Hummingbird
import NIOCore
import Synchronization

/// Tells a request's handler that its client has gone, so that the database read it waits for
/// is interrupted instead of running on for no one (and ahead of requests that still wait).
///
/// Hummingbird 2 does not cancel a handler when its connection closes, and its own
/// `consumeWithCancellationOnInboundClose` closes every kept-alive connection after the
/// response. This handler sits in each connection's pipeline and notices the client closing
/// its side (`inputClosed`) or the connection going (`channelInactive`). A client that
/// half-closes on purpose while it waits for an answer is taken as gone.
final class ClientDeparture: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Never

    private struct State {
        var gone = false
        var onDeparture: [Int: @Sendable () -> Void] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { depart() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        depart()
        context.fireChannelInactive()
    }

    private func depart() {
        let actions = state.withLock { state in
            state.gone = true
            defer { state.onDeparture = [:] }
            return Array(state.onDeparture.values)
        }
        for action in actions { action() }
    }

    /// Runs `work` in a task of its own that is cancelled when the client goes (or when the
    /// calling task is), and returns what it returns.
    func untilGone<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        let (gone, token) = state.withLock { state in
            state.next += 1
            if !state.gone { state.onDeparture[state.next] = { task.cancel() } }
            return (state.gone, state.next)
        }
        if gone { task.cancel() }
        defer { _ = state.withLock { $0.onDeparture.removeValue(forKey: token) } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}

/// The gallery's request context: Hummingbird's basic one, plus the connection's
/// ``ClientDeparture``, found once per connection's first request that asks.
public struct GalleryRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Runs `work`, cancelled if the client goes first (see ``ClientDeparture``); without a
    /// ``ClientDeparture`` in the pipeline (a test's router), just runs it.
    func untilClientLeaves<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let departure = try? await channel.pipeline.handler(type: ClientDeparture.self).get() else {
            return try await work()
        }
        return try await departure.untilGone(work)
    }
}
