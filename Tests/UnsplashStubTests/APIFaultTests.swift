import Foundation
import Testing
import UnsplashStub

@Suite(.timeLimit(.minutes(5))) struct APIFaultTests {
    @Test func everyKthRequestFailsUntilTheCountIsGiven() async throws {
        try await withStub { stub, client in
            // GIVEN
            await stub.failAPIRequests(every: 3, status: 502, count: 2)

            // WHEN
            var statuses: [Int] = []
            for _ in 0..<8 { statuses.append(try await client.get(stub, "/photos?per_page=1").status) }

            // THEN
            #expect(statuses == [200, 200, 502, 200, 200, 502, 200, 200])
        }
    }

    @Test func aSeededRateFailsTheSameRequestsRunAfterRun() async throws {
        func statuses(seed: UInt64) async throws -> [Int] {
            var statuses: [Int] = []
            try await withStub { stub, client in
                await stub.failAPIRequests(rate: 0.3, seed: seed, status: 503)
                for _ in 0..<40 { statuses.append(try await client.get(stub, "/photos?per_page=1").status) }
            }
            return statuses
        }

        let first = try await statuses(seed: 1)
        let again = try await statuses(seed: 1)
        let other = try await statuses(seed: 2)

        #expect(first == again)
        #expect(first != other)
        #expect(Set(first) == [200, 503])
        #expect((4...20).contains(first.filter { $0 == 503 }.count), "about 30 % of 40")
    }

    @Test func injectedRateLimitAnswersArePlainTextWithRetryAfter() async throws {
        try await withStub { stub, client in
            await stub.failNextAPIRequests(count: 1, status: 403)
            let forbidden = try await client.get(stub, "/photos")
            await stub.failNextAPIRequests(count: 1, status: 429, retryAfter: 7)
            let tooMany = try await client.get(stub, "/photos")
            await stub.failNextAPIRequests(count: 1, status: 500)
            let failed = try await client.get(stub, "/photos")

            for answer in [forbidden, tooMany] {
                #expect(answer.header("Content-Type") == "text/plain")
                #expect(String(decoding: answer.body, as: UTF8.self) == "Rate Limit Exceeded")
            }
            #expect([forbidden.status, tooMany.status] == [403, 429] as [Int])
            #expect(tooMany.header("Retry-After") == "7")
            #expect(forbidden.header("Retry-After") == nil)
            #expect(String(decoding: failed.body, as: UTF8.self) == #"{"errors":["Internal Server Error"]}"#)
        }
    }

    @Test func aDelayedAPIAnswerIsHeldWhileOtherRequestsAreServed() async throws {
        let stub = UnsplashStub(configuration: .init(photoCount: 3))
        try await stub.start()
        let client = Client()
        let id = try #require(await stub.photoIDs().first)
        await stub.delayAPIRequests(by: .seconds(3_600))

        // WHEN a page is asked for, and an image while the page is held back
        let page = Task { try await client.get(stub, "/photos") }
        _ = await stub.firstRequest { $0.path == "/photos" }
        let image = try await client.get(stub, "/images/\(id)?w=200")

        // THEN the image came; the page never did, and stopping cuts it off
        #expect(image.status == 200)
        await stub.stop()
        await #expect(throws: (any Error).self) { try await page.value }
    }
}
