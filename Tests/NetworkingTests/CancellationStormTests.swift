import Foundation
import Networking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The regression test for the hang that made `URLSession` unfit on Linux: a task cancelled while
/// its answer completes deadlocked FoundationNetworking (swift-corelibs-foundation #5412). The
/// production transport must end every request, cancelled at any moment, promptly.
@Suite(.timeLimit(.minutes(5))) struct CancellationStormTests {
    struct Hang: Error, CustomStringConvertible {
        var round: Int
        var description: String { "round \(round) did not finish: a cancelled request hung" }
    }

    @Test func aThousandRequestsCancelledAtRandomMomentsFiftyTimesNeverHang() async throws {
        // Answers vary: at once, after a pause, mid-body, and never; so cancellations land in
        // every phase of a request.
        let chunk = Data(repeating: 7, count: 16 << 10)
        let server = try await ScriptedHTTPServer { request in
            switch (Int(request.path.dropFirst()) ?? 0) % 4 {
            case 0: ScriptedHTTPServer.respond(body: chunk)
            case 1: [.pause(.milliseconds(2))] + ScriptedHTTPServer.respond(body: chunk)
            case 2:
                [
                    .head(status: 200, headers: [("Content-Length", "\(chunk.count * 4)")]), .write(chunk),
                    .pause(.milliseconds(3)), .repeating(chunk, times: 3),
                ]
            default: [.stall]
            }
        }
        let session = AsyncHTTPClientSession(configuration: .init(readTimeout: .seconds(60), maxConnectionsPerHost: 16))
        let provider = Provider(session: session, retryPolicy: .none)
        var random = SeededRandom(seed: 0x5EED)
        try await withTeardown(try? await session.shutdown()) {
            for round in 0..<50 {
                // Even rounds cancel each request on its own; odd rounds cancel the whole group at
                // once, as a SIGTERM cancels the sync's task tree.
                let delays = (0..<1000).map { _ in Int(random.next() % 4000) }
                let groupDelay = Int(random.next() % 20_000)
                let finished = try await withDeadline(.seconds(60), failure: Hang(round: round)) {
                    await withTaskGroup(of: Void.self) { group in
                        for (index, delay) in delays.enumerated() {
                            if round.isMultiple(of: 2) {
                                group.addTask {
                                    let request = Task { _ = try await provider.request(server.url("/\(index)")) }
                                    try? await Task.sleep(for: .microseconds(delay))
                                    request.cancel()
                                    _ = await request.result
                                }
                            } else {
                                group.addTask { _ = try? await provider.request(server.url("/\(index)")) }
                            }
                        }
                        if !round.isMultiple(of: 2) {
                            try? await Task.sleep(for: .microseconds(groupDelay))
                            group.cancelAll()
                        }
                    }
                    return true
                }
                #expect(finished)
            }
            await server.stop()
        }
    }
}
