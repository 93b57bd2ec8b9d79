import Foundation
import TestSupport
import Testing
import UnsplashStub

@Suite(.timeLimit(.minutes(5))) struct RedirectTests {
    static let key = "redirect-test-key"

    @Test func anAPIRedirectToAForeignOriginKeepsThePathAndRecordsWhatArrivesThere() async throws {
        try await withStub(accessKey: Self.key) { stub, client in
            // GIVEN
            let foreign = try await stub.startForeignOrigin()
            let foreignBase = await foreign.baseURL.absoluteString
            #expect(foreignBase != (await stub.baseURL.absoluteString))
            await stub.redirectNextAPIRequests(count: 2, to: .origin(await foreign.baseURL))

            // WHEN a careful client looks at the redirect, and a careless one follows it
            let redirect = try await RawHTTPExchange.get(
                URL(string: "\(await stub.baseURL.absoluteString)/photos?per_page=5")!,
                headers: ["Authorization": "Client-ID \(Self.key)"])
            let followed = try await client.get(stub, "/photos?per_page=5")

            // THEN
            #expect(redirect.statusCode == 302)
            #expect(redirect.header("Location") == "\(foreignBase)/photos?per_page=5")
            #expect(redirect.header("X-Ratelimit-Remaining") == "4999", "a redirect spends the budget")
            #expect(String(decoding: followed.body, as: UTF8.self) == "served by a foreign origin")
            let arrived = try #require(await foreign.requests().first)
            #expect(arrived.path == "/photos")
            #expect(arrived.queryValue("per_page") == "5")
            // URLSession carries the key across origins: what a fault test must catch.
            #expect(await foreign.requestsCarryingCredentials().count == 1)
            #expect(try await client.get(stub, "/photos?per_page=5").status == 200, "two redirects, then service")
        }
    }

    @Test func anImageRedirectChainOfThreeHopsEndsInTheRealBytes() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            let base = await stub.baseURL.absoluteString
            await stub.redirectImage(photoID: id, to: .sameOrigin(hops: 3))

            let first = try await RawHTTPExchange.get(URL(string: "\(base)/images/\(id)?w=1080")!)
            #expect(first.statusCode == 302)
            #expect(first.header("Location") == "\(base)/hop/2/images/\(id)?w=1080")

            await stub.redirectImage(photoID: id, to: .sameOrigin(hops: 3))
            await stub.resetRequestLog()
            let image = try await client.get(URL(string: "\(base)/images/\(id)?w=1080")!)

            #expect(image.body == stub.imageBytes(photoID: id, variant: ImageVariant.regular))
            let log = await stub.requests()
            #expect(
                log.map(\.path) == [
                    "/images/\(id)", "/hop/2/images/\(id)", "/hop/1/images/\(id)", "/hop/0/images/\(id)",
                ])
            #expect(log.map(\.status) == [302, 302, 302, 200])
            #expect(await stub.imageRequestCount(photoID: id) == 4)
        }
    }

    @Test func anImageRedirectToAnotherHostReachesOnlyThatHost() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            // Another loopback address: another host, not only another port.
            let elsewhere = try await stub.startForeignOrigin(host: "127.0.0.2")
            await stub.redirectImage(photoID: id, to: .origin(await elsewhere.baseURL), status: 301)

            let answer = try await client.get(URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)?w=400")!)

            #expect(String(decoding: answer.body, as: UTF8.self) == "served by a foreign origin")
            let arrived = try #require(await elsewhere.requests().first)
            #expect(arrived.path == "/images/\(id)")
            #expect(arrived.header("Host")?.hasPrefix("127.0.0.2:") == true)
            #expect(await stub.requests().map(\.status) == [301])
        }
    }

    @Test func anAPIRedirectChainWithinTheOriginEndsInThePageAndSpendsTheBudgetTwice() async throws {
        try await withStub(photoCount: 45, rateLimit: 10) { stub, client in
            await stub.redirectNextAPIRequests(to: .sameOrigin(hops: 2), status: 307)

            let page = try await client.get(stub, "/photos?page=2&per_page=10")

            #expect(try page.photoIDs() == Array(await stub.photoIDs()[10..<20]))
            let log = await stub.requests()
            #expect(log.map(\.path) == ["/photos", "/hop/1/photos", "/hop/0/photos"])
            #expect(log.map(\.status) == [307, 302, 200])
            #expect(log.allSatisfy { $0.kind == .api && $0.queryValue("page") == "2" })
            #expect(page.header("X-Ratelimit-Remaining") == "8", "the first request and the chain's end")
        }
    }

    @Test func aRedirectToAURLSendsExactlyThatLocation() async throws {
        try await withStub(photoCount: 1) { stub, _ in
            let id = try #require(await stub.photoIDs().first)
            let target = try #require(URL(string: "https://images.example.invalid/photo-1?w=1080"))
            await stub.redirectImage(photoID: id, to: .url(target))

            let answer = try await RawHTTPExchange.get(
                URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)")!)

            #expect(answer.statusCode == 302)
            #expect(answer.header("Location") == target.absoluteString)
        }
    }
}
