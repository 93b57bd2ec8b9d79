import Foundation
import TestSupport
import Testing
import UnsplashStub

@Suite(.timeLimit(.minutes(5))) struct LifecycleAndLogTests {
    @Test func stopClosesIdleAndBusyConnectionsAtOnce() async throws {
        let stub = UnsplashStub(configuration: .init(photoCount: 1))
        try await stub.start()
        let id = try #require(await stub.photoIDs().first)
        let client = Client()
        // An idle keep-alive connection, and an answer held for an hour.
        #expect(try await client.get(stub, "/photos").status == 200)
        await stub.delayImages(by: .seconds(3_600))
        let held = Task { try await client.get(stub, "/images/\(id)?w=200") }
        _ = await stub.firstRequest { $0.kind == .image }

        // WHEN
        await stub.stop()

        // THEN the held answer was cut off, and nothing listens any more
        await #expect(throws: (any Error).self) { try await held.value }
        await #expect(throws: (any Error).self) { try await Client().get(stub, "/photos") }
    }

    @Test func stoppingWhileClientsKeepConnectingEndsCleanly() async throws {
        let stub = UnsplashStub(configuration: .init(photoCount: 1))
        try await stub.start()
        let url = try #require(URL(string: "\(await stub.baseURL.absoluteString)/photos"))

        // Clients that connect again at once, as libcurl does when a kept-alive connection
        // closes; each stops when a connection is refused, bounded in case one never is.
        let clients = (0..<4).map { _ in
            Task {
                for _ in 0..<20_000 {
                    do {
                        _ = try await RawHTTPExchange.get(url)
                    } catch let failure as RawHTTPExchange.Failure where failure.description.hasPrefix("connect") {
                        return true
                    } catch {}
                }
                return false
            }
        }
        _ = await stub.firstRequest { _ in true }

        // WHEN
        await stub.stop()

        // THEN the process is still here, and nothing listens any more
        for client in clients {
            #expect(await client.value, "a client was still served after stop()")
        }
    }

    @Test func firstRequestFindsPastRequestsAndWaitsForNewOnes() async throws {
        try await withStub(photoCount: 3) { stub, client in
            _ = try await client.get(stub, "/photos?page=1")

            let past = await stub.firstRequest { $0.queryValue("page") == "1" }
            async let future = stub.firstRequest { $0.queryValue("page") == "2" }
            _ = try await client.get(stub, "/photos?page=2")

            #expect(past?.path == "/photos")
            #expect(await future?.queryValue("page") == "2")
        }
        let stopped = UnsplashStub()
        #expect(await stopped.firstRequest { _ in true } == nil, "a stub that is not running never answers")
    }

    @Test func theLogCountsImageAndTrackingRequestsPerPhoto() async throws {
        try await withStub(photoCount: 2) { stub, client in
            let ids = await stub.photoIDs()
            await stub.failNextAPIRequests(count: 1)
            for _ in 0..<2 { _ = try await client.get(stub, "/photos/\(ids[0])/download?ixid=x") }
            for _ in 0..<3 { _ = try await client.get(stub, "/images/\(ids[1])?w=200") }

            #expect(await stub.downloadTrackingRequestCount(photoID: ids[0]) == 2)
            #expect(await stub.downloadTrackingCount(photoID: ids[0]) == 1, "only the answered one is tracked")
            #expect(await stub.downloadTrackingCounts() == [ids[0]: 1])
            #expect(await stub.imageRequestCounts() == [ids[1]: 3])
        }
    }
}
