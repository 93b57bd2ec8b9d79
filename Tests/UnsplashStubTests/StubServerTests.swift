import Crypto
import Foundation
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stub over real HTTP, as photosync will see it: each test starts an in-process stub on
/// an ephemeral port and talks to it with URLSession.
@Suite struct StubServerTests {
    static let key = "test-access-key"

    // MARK: - Pagination

    @Test func firstPageLinksOnlyToNextAndLast() async throws {
        try await withStub(photoCount: 45) { stub, client in
            // WHEN
            let answer = try await client.get(stub, "/photos?per_page=10")

            // THEN
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "application/json")
            #expect(answer.header("X-Total") == "45")
            #expect(answer.header("X-Per-Page") == "10")
            let base = await stub.baseURL.absoluteString
            #expect(
                answer.links == [
                    "last": "\(base)/photos?page=5&per_page=10",
                    "next": "\(base)/photos?page=2&per_page=10",
                ])
            #expect(try answer.photoIDs() == Array(await stub.photoIDs()[0..<10]))
        }
    }

    @Test func middlePageLinksEverywayWithTheQueryInAlphabeticalOrder() async throws {
        try await withStub(photoCount: 45) { stub, client in
            // WHEN the client sends its parameters in another order
            let answer = try await client.get(stub, "/photos?per_page=10&page=3&order_by=latest&lang=en")

            // THEN
            let base = await stub.baseURL.absoluteString
            #expect(
                answer.links == [
                    "first": "\(base)/photos?lang=en&order_by=latest&page=1&per_page=10",
                    "prev": "\(base)/photos?lang=en&order_by=latest&page=2&per_page=10",
                    "last": "\(base)/photos?lang=en&order_by=latest&page=5&per_page=10",
                    "next": "\(base)/photos?lang=en&order_by=latest&page=4&per_page=10",
                ])
            #expect(try answer.photoIDs() == Array(await stub.photoIDs()[20..<30]))
        }
    }

    @Test func lastPageLinksOnlyBackAndHoldsTheRemainder() async throws {
        try await withStub(photoCount: 45) { stub, client in
            let answer = try await client.get(stub, "/photos?page=5&per_page=10")

            let base = await stub.baseURL.absoluteString
            #expect(
                answer.links == [
                    "first": "\(base)/photos?page=1&per_page=10",
                    "prev": "\(base)/photos?page=4&per_page=10",
                ])
            #expect(try answer.photoIDs() == Array(await stub.photoIDs()[40..<45]))
            #expect(answer.header("X-Total") == "45")
        }
    }

    @Test func pastTheLastPageIsAnEmptyArray() async throws {
        try await withStub(photoCount: 45) { stub, client in
            let answer = try await client.get(stub, "/photos?page=6&per_page=10")

            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "[]")
            #expect(answer.links["next"] == nil)
            #expect(answer.header("X-Total") == "45")
        }
    }

    @Test func pageZeroIsPageOneAndDefaultsAreTenPerPage() async throws {
        try await withStub(photoCount: 45) { stub, client in
            let pageZero = try await client.get(stub, "/photos?page=0")
            let noQuery = try await client.get(stub, "/photos")

            let firstTen = Array(await stub.photoIDs()[0..<10])
            #expect(try pageZero.photoIDs() == firstTen)
            #expect(try noQuery.photoIDs() == firstTen)
            #expect(noQuery.header("X-Per-Page") == "10")
            #expect(pageZero.links["next"]?.hasSuffix("/photos?page=2&per_page=10") == true)
        }
    }

    @Test func perPageIsCappedAtThirty() async throws {
        try await withStub(photoCount: 45) { stub, client in
            let answer = try await client.get(stub, "/photos?per_page=100")

            #expect(try answer.photoIDs().count == 30)
            #expect(answer.header("X-Per-Page") == "30")
            #expect(answer.links["next"]?.hasSuffix("/photos?page=2&per_page=30") == true)
            #expect(answer.links["last"]?.hasSuffix("/photos?page=2&per_page=30") == true)
        }
    }

    @Test func sponsoredPhotosSitAtFixedSlotsOfEveryPageAndAreNotCounted() async throws {
        try await withStub(photoCount: 45, sponsoredEvery: 5) { stub, client in
            let first = try await client.get(stub, "/photos?page=1&per_page=10")
            let second = try await client.get(stub, "/photos?page=2&per_page=10")

            for page in [first, second] {
                let sponsored = try page.photos().map { !($0["sponsorship"] is NSNull) }
                #expect(sponsored == [true, false, false, false, false, true, false, false, false, false])
            }
            // Eight feed photos a page, in feed order, without gaps or repeats.
            let feed = try (first.photos() + second.photos()).filter { $0["sponsorship"] is NSNull }
            #expect(feed.compactMap { $0["id"] as? String } == Array(await stub.photoIDs()[0..<16]))
            #expect(first.header("X-Total") == "45")
        }
    }

    // MARK: - The moving feed

    @Test func addedPhotosArriveAtTheHeadAndPushTheRestDown() async throws {
        try await withStub(photoCount: 20) { stub, client in
            // GIVEN
            let before = try await client.get(stub, "/photos?per_page=10").photoIDs()

            // WHEN
            let added = await stub.addPhotos(count: 3)

            // THEN
            let after = try await client.get(stub, "/photos?per_page=10")
            #expect(try after.photoIDs() == added + before.prefix(7))
            #expect(after.header("X-Total") == "23")
            let createdAt = try after.photos().compactMap { $0["created_at"] as? String }
            #expect(createdAt == createdAt.sorted(by: >), "newest first")
        }
    }

    // MARK: - Authorization

    @Test func aWrongOrMissingKeyIsAnswered401WithUnsplashsBody() async throws {
        try await withStub(accessKey: Self.key) { stub, client in
            let wrongKey = try await client.get(stub, "/photos", key: "the-secret-key-by-mistake")
            let noKey = try await client.get(stub, "/photos", key: nil)
            let rightKey = try await client.get(stub, "/photos", key: Self.key)

            for answer in [wrongKey, noKey] {
                #expect(answer.status == 401)
                #expect(answer.header("Content-Type") == "application/json")
                #expect(
                    String(decoding: answer.body, as: UTF8.self)
                        == #"{"errors":["OAuth error: The access token is invalid"]}"#)
            }
            #expect(rightKey.status == 200)
        }
    }

    @Test func theAccessKeyIsNeverEchoed() async throws {
        try await withStub(accessKey: Self.key) { stub, client in
            let viaQuery = try await client.get(stub, "/photos?client_id=\(Self.key)&per_page=2", key: nil)
            let viaHeader = try await client.get(stub, "/photos?per_page=2", key: Self.key)

            #expect(viaQuery.status == 200)
            for answer in [viaQuery, viaHeader] {
                let everything =
                    String(decoding: answer.body, as: UTF8.self)
                    + answer.response.allHeaderFields.map { "\($0.key): \($0.value)" }.joined()
                #expect(!everything.contains(Self.key))
            }
            #expect(await stub.requests().map(\.description).allSatisfy { !$0.contains(Self.key) })
            #expect(!"\(stub.configuration)".contains(Self.key))
        }
    }

    // MARK: - Rate limit

    @Test func everyAPIAnswerSpendsTheBudgetUntilA403PlainTextAnswer() async throws {
        try await withStub(rateLimit: 3) { stub, client in
            var remaining: [String?] = []
            for _ in 0..<3 {
                let answer = try await client.get(stub, "/photos")
                #expect(answer.status == 200)
                #expect(answer.header("X-Ratelimit-Limit") == "3")
                remaining.append(answer.header("X-Ratelimit-Remaining"))
            }
            #expect(remaining == ["2", "1", "0"])

            let limited = try await client.get(stub, "/photos")
            #expect(limited.status == 403)
            #expect(limited.header("Content-Type") == "text/plain")
            #expect(String(decoding: limited.body, as: UTF8.self) == "Rate Limit Exceeded")
            #expect(limited.header("X-Ratelimit-Remaining") == "0")

            // WHEN the window passes
            await stub.resetRateLimit()
            let refilled = try await client.get(stub, "/photos")
            #expect(refilled.status == 200)
            #expect(refilled.header("X-Ratelimit-Remaining") == "2")
        }
    }

    @Test func imagesAreNeitherRateLimitedNorAuthorized() async throws {
        try await withStub(photoCount: 3, accessKey: Self.key, rateLimit: 1) { stub, client in
            let regular = try await client.get(stub, "/photos", key: Self.key).photoURLs("regular")
            #expect(await stub.rateLimitRemaining == 0)

            for url in regular {
                let image = try await client.get(url, key: nil)
                #expect(image.status == 200)
                #expect(image.header("X-Ratelimit-Remaining") == nil)
                #expect(image.header("X-Ratelimit-Limit") == nil)
            }
            #expect(await stub.rateLimitRemaining == 0)
        }
    }

    // MARK: - Images

    @Test func imageBytesMatchContentLengthAndTheSHA256Helper() async throws {
        try await withStub(photoCount: 3) { stub, client in
            let page = try await client.get(stub, "/photos")
            let ids = try page.photoIDs()

            for (id, url) in zip(ids, try page.photoURLs("regular")) {
                let image = try await client.get(url)

                #expect(image.status == 200)
                #expect(image.header("Content-Type") == "image/jpeg")
                #expect(image.header("Content-Length") == String(image.body.count))
                #expect(Array(image.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
                #expect(image.body == stub.imageBytes(photoID: id, variant: ImageVariant.regular))
                #expect(sha256(image.body) == stub.expectedSHA256(photoID: id, variant: ImageVariant.regular))
                #expect(await stub.imageRequestCount(photoID: id) == 1)
            }
        }
    }

    @Test func renditionsDifferAndStayNearTheConfiguredSize() async throws {
        try await withStub(photoCount: 1, imageSize: 10_000) { stub, client in
            let page = try await client.get(stub, "/photos")
            let id = try #require(try page.photoIDs().first)

            var bodies: [String: Data] = [:]
            for variant in [
                ImageVariant.raw, ImageVariant.full, ImageVariant.regular, ImageVariant.small, ImageVariant.thumb,
            ] {
                let url = try #require(try page.photoURLs(variant).first)
                let body = try await client.get(url).body
                #expect(body == stub.imageBytes(photoID: id, variant: variant), "\(variant)")
                bodies[variant] = body
            }
            #expect(Set(bodies.values).count == 5)
            let regular = try #require(bodies[ImageVariant.regular])
            #expect((5_000...15_000).contains(regular.count))
        }
    }

    @Test func anUnknownImageIs404() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let answer = try await client.get(stub, "/images/NoSuchPhoto?w=1080")
            #expect(answer.status == 404)
        }
    }

    // MARK: - Download tracking

    @Test func downloadLocationAnswersTheImageURLAndCountsAgainstTheRateLimit() async throws {
        try await withStub(photoCount: 2, accessKey: Self.key, rateLimit: 10) { stub, client in
            let photo = try #require(try await client.get(stub, "/photos").photos().first)
            let id = try #require(photo["id"] as? String)
            let links = try #require(photo["links"] as? [String: Any])
            let urls = try #require(photo["urls"] as? [String: Any])
            let location = try #require((links["download_location"] as? String).flatMap(URL.init(string:)))
            #expect(location.query?.hasPrefix("ixid=") == true)

            // WHEN unauthorized, then authorized
            let rejected = try await client.get(location, key: nil)
            let tracked = try await client.get(location)

            // THEN
            #expect(rejected.status == 401)
            #expect(tracked.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: tracked.body) as? [String: Any])
            #expect(body["url"] as? String == urls["raw"] as? String)
            #expect(tracked.header("X-Ratelimit-Remaining") == "8")
            #expect(await stub.downloadTrackingCount(photoID: id) == 1)

            let recorded = try #require(await stub.requests().last)
            #expect(recorded.path == "/photos/\(id)/download")
            #expect(recorded.queryValue("ixid") == location.query?.replacingOccurrences(of: "ixid=", with: ""))
            #expect(recorded.header("authorization") == "Client-ID \(Self.key)")
        }
    }

    @Test func trackingAnUnknownPhotoIs404AndNotCounted() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let answer = try await client.get(stub, "/photos/NoSuchPhoto/download?ixid=x")
            #expect(answer.status == 404)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"errors":["Couldn't find Photo"]}"#)
            #expect(await stub.downloadTrackingCount(photoID: "NoSuchPhoto") == 0)
        }
    }

    // MARK: - Shape

    @Test func photosHaveTheKeysOfARealUnsplashPhoto() async throws {
        let fixture = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.fixturesDirectory.appending(path: "photo-2025-02.json")))
                as? [String: Any])
        let sponsoredFixture = try #require(
            try
                (JSONSerialization.jsonObject(
                    with: Data(contentsOf: Self.fixturesDirectory.appending(path: "photos-2024-01-page1.json")))
                as? [[String: Any]])?.first)

        try await withStub(photoCount: 30, sponsoredEvery: 10) { stub, client in
            let photos = try await client.get(stub, "/photos?per_page=30").photos()
            for photo in photos {
                #expect(keys(photo) == keys(fixture))
                for nested in ["urls", "links", "user", "user.links", "user.profile_image", "user.social"] {
                    #expect(keys(photo, at: nested) == keys(fixture, at: nested), "\(nested)")
                }
                let id = try #require(photo["id"] as? String)
                #expect(
                    id.count == 11
                        && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
                #expect(photo["asset_type"] as? String == "photo")
            }
            let sponsored = try #require(photos.first { !($0["sponsorship"] is NSNull) })
            #expect(keys(sponsored, at: "sponsorship") == keys(sponsoredFixture, at: "sponsorship"))
            #expect(photos.contains { $0["description"] is NSNull }, "description is sometimes null")
        }
    }

    // MARK: - Fault injection and the request log

    @Test func injectedAPIFailuresComeFirstThenNormalService() async throws {
        try await withStub(rateLimit: 10) { stub, client in
            await stub.failNextAPIRequests(count: 2, status: 503)

            let statuses = try await [
                client.get(stub, "/photos"), client.get(stub, "/photos"), client.get(stub, "/photos"),
            ]
            #expect(statuses.map(\.status) == [503, 503, 200])
            #expect(statuses.map { $0.header("X-Ratelimit-Remaining") } == ["9", "8", "7"])

            await stub.failNextAPIRequests(count: 1, status: 429)
            let tooMany = try await client.get(stub, "/photos")
            #expect(tooMany.status == 429)
            #expect(String(decoding: tooMany.body, as: UTF8.self) == "Rate Limit Exceeded")
        }
    }

    @Test func injectedImageFailuresThenTheRealBytes() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            await stub.failImage(photoID: id, times: 2, status: 500)

            let answers = try await [
                client.get(stub, "/images/\(id)?w=1080"), client.get(stub, "/images/\(id)?w=1080"),
                client.get(stub, "/images/\(id)?w=1080"),
            ]
            #expect(answers.map(\.status) == [500, 500, 200])
            #expect(answers[2].body == stub.imageBytes(photoID: id, variant: ImageVariant.regular))
            #expect(await stub.imageRequestCount(photoID: id) == 3)
        }
    }

    @Test func aTruncatedImageNeverArrivesWhole() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            let whole = stub.imageBytes(photoID: id, variant: ImageVariant.regular)
            await stub.truncateImage(photoID: id)

            // A client sees either an error or fewer bytes than Content-Length, never the image.
            let cut: Answer?
            do {
                cut = try await client.get(stub, "/images/\(id)?w=1080")
            } catch {
                cut = nil
            }
            if let cut {
                #expect(cut.body.count < whole.count)
                #expect(cut.header("Content-Length") == String(whole.count))
            }
            let next = try await client.get(stub, "/images/\(id)?w=1080")
            #expect(next.body == whole)
        }
    }

    @Test func delayedImagesTakeAtLeastTheDelay() async throws {
        try await withStub(photoCount: 1) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            await stub.delayImages(by: .milliseconds(300))

            let clock = ContinuousClock()
            let started = clock.now
            let answer = try await client.get(stub, "/images/\(id)?w=200")

            #expect(answer.status == 200)
            #expect(clock.now - started >= .milliseconds(300))
        }
    }

    @Test func theRequestLogRecordsWhatWasAskedAndAnswered() async throws {
        try await withStub(photoCount: 1, accessKey: Self.key) { stub, client in
            let id = try #require(await stub.photoIDs().first)
            _ = try await client.get(stub, "/photos?per_page=5", key: nil)
            _ = try await client.get(stub, "/photos?per_page=5")
            _ = try await client.get(stub, "/images/\(id)?w=400")

            let log = await stub.requests()
            #expect(log.map(\.kind) == [.api, .api, .image])
            #expect(log.map(\.status) == [401, 200, 200])
            #expect(log.map(\.path) == ["/photos", "/photos", "/images/\(id)"])
            #expect(log[1].query == [RecordedRequest.QueryItem(name: "per_page", value: "5")])
            #expect(log[1].header("Accept-Version") == "v1")
            #expect(await stub.apiRequestCount == 2)

            await stub.resetRequestLog()
            #expect(await stub.requests().isEmpty)
            #expect(await stub.apiRequestCount == 0)
            #expect(await stub.imageRequestCount(photoID: id) == 0)
        }
    }

    // MARK: - Determinism and lifecycle

    @Test func theSameSeedServesTheSameFeedAndBytes() async throws {
        let one = UnsplashStub(configuration: .init(photoCount: 5, seed: 7))
        let same = UnsplashStub(configuration: .init(photoCount: 5, seed: 7))
        let other = UnsplashStub(configuration: .init(photoCount: 5, seed: 8))

        let ids = await one.photoIDs()
        #expect(await same.photoIDs() == ids)
        #expect(Set(await other.photoIDs()).isDisjoint(with: ids))
        #expect(
            one.imageBytes(photoID: ids[0], variant: "regular") == same.imageBytes(photoID: ids[0], variant: "regular"))
        #expect(
            one.imageBytes(photoID: ids[0], variant: "regular") != other.imageBytes(photoID: ids[0], variant: "regular")
        )
    }

    @Test func startReportsTheBoundPortAndRefusesInvalidConfigurations() async throws {
        let stub = UnsplashStub(configuration: .init(photoCount: 1))
        try await stub.start()
        let port = try #require(await stub.baseURL.port)
        #expect(port != 0)
        #expect(await stub.baseURL.host == "127.0.0.1")
        await #expect(throws: UnsplashStubError.alreadyStarted) { try await stub.start() }

        let clash = UnsplashStub(configuration: .init(photoCount: 1, port: UInt16(port)))
        await #expect(throws: UnsplashStubError.self) { try await clash.start() }
        await stub.stop()

        let invalid = UnsplashStub(configuration: .init(sponsoredEvery: 1))
        await #expect(throws: UnsplashStubError.self) { try await invalid.start() }
    }
}
