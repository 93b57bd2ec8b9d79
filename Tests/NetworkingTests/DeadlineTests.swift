import Foundation
import Networking
import TestSupport
import Testing

/// Every request of the production transport has a bound in time, however slowly a host sends:
/// hosts on 127.0.0.1 that trickle their heads and bodies one byte at a time, each byte soon
/// enough to reset the read timeout.
@Suite(.timeLimit(.minutes(5))) struct DeadlineTests {
    /// A body long enough that trickling all of it takes far longer than any test may wait.
    static let longBody = 1_500

    static func transportFailure(_ error: NetworkError?) -> TransportError? {
        if case .transport(let failure, _)? = error { return failure }
        Issue.record("expected a transport failure, got \(String(describing: error))")
        return nil
    }

    // MARK: - A request's timeout covers its head and its body

    @Test func anAPIAnswerWhoseBodyTricklesFailsAtTheRequestsDeadline() async throws {
        let api = try await ScriptedHTTPServer { _ in
            [
                .head(status: 200, headers: [("Content-Length", "\(Self.longBody)")]),
                .trickle(Data(repeating: 0x20, count: Self.longBody), every: .milliseconds(20)),
            ]
        }
        try await TransportTests.withProvider { provider in
            let endpoint = Endpoint<[String]>(url: api.url("/photos"), timeout: .milliseconds(500))

            let error = await #expect(throws: NetworkError.self) { try await provider.request(endpoint) }

            let failure = Self.transportFailure(error)
            #expect(failure?.code == .timedOut)
            #expect(failure?.shortfall?.deadline == .milliseconds(500))
            #expect((failure?.shortfall?.bytes ?? 0) < Int64(Self.longBody))
        }
        await api.stop()
    }

    @Test func anAPIAnswerWhoseHeadTricklesFailsAtTheRequestsDeadline() async throws {
        let head = ScriptedHTTPServer.headBytes(
            status: 200, headers: [("Content-Length", "2"), ("X-Padding", String(repeating: "p", count: 2_000))])
        let api = try await ScriptedHTTPServer { _ in
            [.trickle(head, every: .milliseconds(20)), .write(Data("[]".utf8))]
        }
        try await TransportTests.withProvider { provider in
            let endpoint = Endpoint<[String]>(url: api.url("/photos"), timeout: .milliseconds(500))

            let error = await #expect(throws: NetworkError.self) { try await provider.request(endpoint) }

            let failure = Self.transportFailure(error)
            #expect(failure?.code == .timedOut)
            #expect(failure?.shortfall?.deadline == .milliseconds(500))
            #expect(failure?.shortfall?.bytes == 0)
        }
        await api.stop()
    }

    @Test func anAnswerWithinItsDeadlineArrivesWhole() async throws {
        let words = (0..<2_000).map { "word\($0)" }
        let body = try JSONEncoder().encode(words)
        let api = try await ScriptedHTTPServer { _ in
            [
                .head(status: 200, headers: [("Content-Length", "\(body.count)")]),
                .write(body.prefix(100)), .pause(.milliseconds(50)), .write(body.dropFirst(100)),
            ]
        }
        try await TransportTests.withProvider { provider in
            let value = try await provider.request(Endpoint<[String]>(url: api.url("/photos"), timeout: .seconds(60)))

            #expect(value == words)
        }
        await api.stop()
    }

    // MARK: - An image: its head within the connect and read timeouts, then a minimum rate

    @Test func aHeadTrickledToARequestWithoutTimeoutFailsWithinTheConnectAndReadTimeouts() async throws {
        let head = ScriptedHTTPServer.headBytes(
            status: 200, headers: [("Content-Length", "4"), ("X-Padding", String(repeating: "p", count: 2_000))])
        let cdn = try await ScriptedHTTPServer { _ in [.trickle(head, every: .milliseconds(20))] }
        let spool = try TemporarySpool()
        let configuration = AsyncHTTPClientSession.Configuration(
            connectTimeout: .milliseconds(200), readTimeout: .milliseconds(300))
        try await TransportTests.withProvider(configuration) { provider in
            let error = await #expect(throws: NetworkError.self) {
                try await provider.download(cdn.url("/photo.jpg"), into: spool.spool)
            }

            // AsyncHTTPClient's read timeout is reset by whole parts (a head, a body chunk), not
            // by the bytes of a head: whichever of it and the head's deadline comes first ends it,
            // and either is a head too slow, with its shortfall (for the log that says so).
            let failure = Self.transportFailure(error)
            #expect(failure?.code == .timedOut)
            #expect(failure?.shortfall?.bytes == 0, "\(String(describing: failure))")
            #expect(spool.files().isEmpty)
        }
        await cdn.stop()
        spool.remove()
    }

    @Test func anImageBodyThatTricklesIsCutOffBelowTheMinimumRate() async throws {
        let cdn = try await ScriptedHTTPServer { _ in
            [
                .head(status: 200, headers: [("Content-Length", "\(Self.longBody)")]),
                .trickle(Data(repeating: 0xFF, count: Self.longBody), every: .milliseconds(20)),
            ]
        }
        let spool = try TemporarySpool(memoryLimit: 16)
        let minimum = MinimumRate(bytesPerSecond: 2_000, window: .milliseconds(400))
        try await TransportTests.withProvider { provider in
            let error = await #expect(throws: NetworkError.self) {
                try await provider.download(cdn.url("/photo.jpg"), minimumRate: minimum, into: spool.spool)
            }

            let failure = Self.transportFailure(error)
            #expect(failure?.code == .tooSlow)
            let shortfall = try #require(failure?.shortfall)
            #expect(shortfall.required == minimum)
            #expect(shortfall.bytes < minimum.bytesPerWindow)
            #expect(shortfall.seconds >= 0.4)
            #expect(error?.localizedDescription.contains("answered too slowly") == true)
            #expect(spool.files().isEmpty, "the spool file of the cut-off body must be removed")
        }
        await cdn.stop()
        spool.remove()
    }

    @Test func aHostThatKeepsTheMinimumRateIsNotCutOff() async throws {
        let chunk = Data(repeating: 0xAB, count: 10_000)
        let cdn = try await ScriptedHTTPServer { _ in
            [.head(status: 200, headers: [("Content-Length", "\(chunk.count * 8)")])]
                + Array(repeating: [ScriptedHTTPServer.Action.write(chunk), .pause(.milliseconds(100))], count: 8)
                .flatMap { $0 }
        }
        let spool = try TemporarySpool()
        // 10 KB every 0.1 s is 100 KB/s, and each 0.3 s window holds about 30 KB: far above 1 KB.
        let minimum = MinimumRate(bytesPerSecond: 1_000, window: .milliseconds(300))
        try await TransportTests.withProvider { provider in
            let response = try await provider.download(cdn.url("/photo.jpg"), minimumRate: minimum, into: spool.spool)

            #expect(response.value.byteCount == Int64(chunk.count * 8))
            response.value.remove()
        }
        await cdn.stop()
        spool.remove()
    }
}

/// The sliding window of ``RateWatch``, on a timeline given by hand.
@Suite struct RateWatchTests {
    let minimum = MinimumRate(bytesPerSecond: 1_000, window: .seconds(10))

    @Test func nothingFailsBeforeAWholeWindowHasPassed() {
        var watch = RateWatch(minimum)
        for second in 1...9 {
            #expect(watch.received(1, at: .seconds(second)) == nil)
        }
    }

    @Test func aTrickleFailsAtTheFirstChunkAfterAWindow() {
        var watch = RateWatch(minimum)
        for second in 1...9 {
            _ = watch.received(1, at: .seconds(second))
        }

        let shortfall = watch.received(1, at: .seconds(10))

        #expect(shortfall == Shortfall(bytes: 10, seconds: 10, required: minimum))
    }

    @Test func aSteadyHostPassesEveryWindow() {
        var watch = RateWatch(minimum)
        for tenth in 1...1_000 {
            #expect(watch.received(100, at: .milliseconds(tenth * 100)) == nil, "at \(tenth * 100) ms")
        }
    }

    @Test func aHostThatSlowsDownFailsOneWindowLater() {
        var watch = RateWatch(minimum)
        // 50 s at 10 KB/s, then 10 bytes a second.
        for second in 1...50 {
            #expect(watch.received(10_000, at: .seconds(second)) == nil)
        }
        var failedAt: Int?
        for second in 51...80 where failedAt == nil {
            if watch.received(10, at: .seconds(second)) != nil { failedAt = second }
        }

        // The window that ends at 60 s begins after the last 10 KB, at 50 s.
        #expect(failedAt == 60)
    }

    @Test func aShortfallSaysHowSlowInWords() {
        let shortfall = Shortfall(bytes: 120, seconds: 30, required: .standard)

        #expect(shortfall.description == "120 bytes in 30 s (4 B/s), below the minimum of 32 KiB/s over 30 s")
    }
}
