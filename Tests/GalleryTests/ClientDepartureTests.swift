import NIOCore
import NIOEmbedded
import Testing

@testable import Gallery

/// The pipeline handler that cancels a request's read when its client goes.
@Suite(.timeLimit(.minutes(5))) struct ClientDepartureTests {
    /// Work that ends only when its task is cancelled, and says when it has started.
    static func endlessWork(started: AsyncStream<Void>.Continuation) -> @Sendable () async throws -> Int {
        {
            let (never, keep) = AsyncStream<Void>.makeStream()
            started.yield()
            for await _ in never {}
            keep.finish()
            try Task.checkCancellation()
            return 1
        }
    }

    @Test(arguments: ["inputClosed", "channelInactive"])
    func theClientClosingCancelsTheWorkItsRequestWaitsFor(event: String) async throws {
        // GIVEN a request's work under way on a connection
        let departure = ClientDeparture()
        let channel = EmbeddedChannel(handler: departure)
        let (started, didStart) = AsyncStream<Void>.makeStream()
        let work = Task { try await departure.untilGone(Self.endlessWork(started: didStart)) }
        for await _ in started { break }

        // WHEN the client closes its side, or the connection goes
        if event == "inputClosed" {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        } else {
            channel.pipeline.fireChannelInactive()
        }

        // THEN the work is cancelled, and work that comes later is cancelled at once
        await #expect(throws: CancellationError.self) { try await work.value }
        let (laterStarted, laterDidStart) = AsyncStream<Void>.makeStream()
        await #expect(throws: CancellationError.self) {
            try await departure.untilGone(Self.endlessWork(started: laterDidStart))
        }
        laterDidStart.finish()
        _ = laterStarted
        _ = try? channel.finish()
    }

    @Test func workWhoseClientStaysRunsToItsEnd() async throws {
        let departure = ClientDeparture()
        let channel = EmbeddedChannel(handler: departure)
        #expect(try await departure.untilGone { 42 } == 42)
        #expect(try await departure.untilGone { 43 } == 43)
        _ = try channel.finish()
    }
}
