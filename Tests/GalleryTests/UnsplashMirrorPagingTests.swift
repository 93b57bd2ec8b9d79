import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

/// `/unsplash` lists page by page as Unsplash does, and a client following `Link` sees each
/// photo of a source once.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorPagingTests {
    @Test func aClientFollowingNextSeesEveryPhotoOfA1000PhotoSourceOnceInOrder() async throws {
        // GIVEN a user's 1,000 photos, stored 30 to a page as a backfill stores them
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let ids = (0..<1_000).map { String(format: "photo-%04d", $0) }
        for (number, page) in stride(from: 0, to: ids.count, by: 30).enumerated() {
            // Created in no particular order: the source's order is the API's, not the dates'.
            let photos = (page..<min(page + 30, ids.count)).map { Sample.photo(ids[$0], day: ($0 * 7_919) % 1_000) }
            try await fixture.commit(photos, source: "user:many", at: 1_700_000_000 + Double(number))
        }

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client walks the list, 30 a page, following rel="next"
            var seen: [String] = []
            var next: String? = "/unsplash/users/many/photos?per_page=30"
            var page = 0
            while let uri = next {
                page += 1
                let response = try await client.get(uri)
                #expect(response.status == .ok, "\(uri)")
                let photos = response.json.elements.compactMap { $0["id"]?.text }
                seen += photos
                #expect(response.header("X-Total") == "1000")
                #expect(response.header("X-Per-Page") == "30")

                // THEN every page links first/prev after page 1, last/next before page 34
                let links = response.links
                let path = "/unsplash/users/many/photos"
                #expect(links["first"] == (page > 1 ? "\(path)?page=1&per_page=30" : nil), "page \(page)")
                #expect(links["prev"] == (page > 1 ? "\(path)?page=\(page - 1)&per_page=30" : nil), "page \(page)")
                #expect(links["last"] == (page < 34 ? "\(path)?page=34&per_page=30" : nil), "page \(page)")
                #expect(links["next"] == (page < 34 ? "\(path)?page=\(page + 1)&per_page=30" : nil), "page \(page)")
                #expect(photos.count == (page < 34 ? 30 : 10), "the last page is short: page \(page)")
                next = links["next"]
                if page > 40 { break }
            }
            // every photo once, in the order the source listed them
            #expect(page == 34)
            #expect(seen == ids)

            // and past the last page, an empty page that links back
            let past = try await client.get("/unsplash/users/many/photos?page=35&per_page=30")
            #expect(past.status == .ok)
            #expect(past.json == .array([]))
            #expect(past.links["prev"] == "/unsplash/users/many/photos?page=34&per_page=30")
            #expect(past.links["next"] == nil)
        }
    }
}

/// Client keys, the mirror's own rate limit, and download requests.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorAccessTests {
    @Test func aKeyNotListedIs401AsUnsplashSaysIt() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration(clientKeys: ["good"])) { client in
            let unauthorized = JSONShape.object([
                "errors": .array([.string("OAuth error: The access token is invalid")])
            ])
            for key in ["bad", nil] {
                let response = try await client.get("/unsplash/photos", key: key)
                #expect(response.status == .unauthorized, "\(key ?? "no key")")
                #expect(response.json == unauthorized)
            }
            #expect(try await client.get("/unsplash/photos", key: "good").status == .ok)
            let byParameter = try await client.get("/unsplash/photos?client_id=good", key: nil)
            #expect(byParameter.status == .ok)
            #expect(byParameter.json.elements.count == 1)
            #expect(try await client.get("/unsplash/photos?client_id=bad", key: nil).status == .unauthorized)
            #expect(try await client.get("/", key: nil).status == .ok, "the gallery itself takes no key")
        }
    }

    @Test func eachKeySpendsItsOwnHourlyLimitThen403RateLimitExceeded() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")
        let clock = ManualClock()

        try await fixture.serve(mirror: MirrorConfiguration(hourlyLimit: 2, now: { clock.now })) { client in
            let first = try await client.get("/unsplash/photos", key: "ann")
            #expect(first.header("X-Ratelimit-Limit") == "2")
            #expect(first.header("X-Ratelimit-Remaining") == "1")
            #expect(try await client.get("/unsplash/photos/a", key: "ann").header("X-Ratelimit-Remaining") == "0")

            let spent = try await client.get("/unsplash/photos", key: "ann")
            #expect(spent.status == .forbidden)
            #expect(String(buffer: spent.body) == "Rate Limit Exceeded")
            #expect(spent.header("X-Ratelimit-Remaining") == "0")
            #expect(try await client.get("/unsplash/photos", key: "bob").status == .ok, "another key has its own")

            clock.advance(by: 3_600)
            let nextHour = try await client.get("/unsplash/photos", key: "ann")
            #expect(nextHour.status == .ok)
            #expect(nextHour.header("X-Ratelimit-Remaining") == "1")
        }
    }

    @Test func aDownloadIsAnsweredAtOnceAndQueuedForTheSyncOncePerPhoto() async throws {
        // GIVEN a metadata-only mirror (no image stored) whose photo has a download location
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let links = #", "links": {"download_location": "https://api.unsplash.com/photos/a/download?ixid=X1"}"#
        var photo = Sample.photo("a", day: 1, json: links)
        photo.downloadLocation = "https://api.unsplash.com/photos/a/download?ixid=X1"
        try await fixture.commit([photo, Sample.photo("b", day: 2)], source: "feed")
        #expect(try await fixture.writer.ledger.pendingDownloadTracking(limit: 10).isEmpty)
        let requests = CountingDownloadRequests(try fixture.writer.storage.openDownloadRequests())
        defer { try? requests.close() }

        try await fixture.serve(mirror: MirrorConfiguration(downloadRequests: requests)) { client in
            // WHEN a client of the mirror triggers the download, twice
            for _ in 0..<2 {
                let response = try await client.get("/unsplash/photos/a/download?ixid=X1")
                // THEN it gets the image URL at once, and hears that the request is queued
                #expect(response.status == .ok)
                #expect(response.json["url"] != nil)
                #expect(response.header("X-Photosync-Download-Tracking") == "queued")
            }
            #expect(try await client.get("/unsplash/photos/zz/download").status == .notFound)
            #expect(requests.count == 1, "the second request writes nothing")
        }
        // and the sync's tracker finds it once, with Unsplash's location, although no image is stored
        let pending = try await fixture.writer.ledger.pendingDownloadTracking(limit: 10)
        #expect(pending.map(\.photoID) == ["a"])
        #expect(pending.first?.downloadLocation == "https://api.unsplash.com/photos/a/download?ixid=X1")
        try await fixture.writer.ledger.markDownloadsTracked(photoIDs: ["a"], at: Date())
        #expect(try await fixture.writer.ledger.pendingDownloadTracking(limit: 10).isEmpty, "never twice")
        #expect(try await requests.requested().keys.sorted() == ["a"])
    }

    @Test func withTrackingOffOrNoImagesTheAnswerSaysSoAndNothingIsQueued() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        var photo = Sample.photo("a", day: 1)
        photo.downloadLocation = "https://api.unsplash.com/photos/a/download"
        try await fixture.commit([photo], source: "feed")
        let requests = try fixture.writer.storage.openDownloadRequests()
        defer { try? requests.close() }

        let mirror = MirrorConfiguration(downloadTracking: .off, storesImages: false, downloadRequests: requests)
        try await fixture.serve(mirror: mirror) { client in
            let response = try await client.get("/unsplash/photos/a/download")
            #expect(response.status == .ok)
            #expect(response.header("X-Photosync-Download-Tracking") == "off")
            #expect(response.header("X-Photosync-Images") == "none")
        }
        #expect(try await requests.requested().isEmpty)
        #expect(try await fixture.writer.ledger.pendingDownloadTracking(limit: 10).isEmpty)
    }

    @Test func aRequestThatCannotBeRecordedIsA503InUnsplashsShapeNeverA200() async throws {
        // GIVEN a mirror whose requests cannot be written (a standby without its primary, a
        // primary away), a photo without details, and the sync fetching details on demand
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        var photo = Sample.photo("a", day: 1)
        photo.downloadLocation = "https://api.unsplash.com/photos/a/download"
        try await fixture.commit([photo], source: "feed")
        let refusing = RefusingRequests()
        var mirror = MirrorConfiguration(downloadRequests: refusing)
        mirror.photoDetailsRequests = refusing

        try await fixture.serve(mirror: mirror) { client in
            // WHEN a client asks for its download, then for the photo
            for path in ["/unsplash/photos/a/download", "/unsplash/photos/a"] {
                let response = try await client.get(path)
                // THEN each is a 503 with Unsplash's errors and a time to try again, not a 200
                #expect(response.status == .serviceUnavailable, "\(path)")
                #expect(response.json["errors"]?.elements.first?.text?.contains("cannot record") == true, "\(path)")
                #expect(response.header("Retry-After") == "30", "\(path)")
            }
            // AND what needs no record still answers
            #expect(try await client.get("/unsplash/photos").status == .ok)
        }
        #expect(refusing.attempts == 2)
    }

    @Test func localImageURLsPointAtTheMirrorsStoredVariantsOnly() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")
        let sha256 = try await fixture.storeImage("a", variant: .regular, bytes: Sample.bytes(3_000))

        try await fixture.serve(mirror: MirrorConfiguration(imageURLs: .local, downloadTracking: .off)) { client in
            let photo = try await client.get("/unsplash/photos/a").json
            let regular = try #require(photo["urls"]?["regular"]?.text)
            #expect(regular.hasPrefix("http://") && regular.hasSuffix("/images/a?variant=regular"), "\(regular)")
            #expect(photo["urls"]?["small"] == .string("https://images.example.com/a?w=400"), "not stored: Unsplash's")
            #expect(photo["user"] == .object(["username": .string("ann")]), "attribution untouched")

            let path = String(regular[try #require(regular.range(of: "/images/")).lowerBound...])
            let image = try await client.execute(uri: path, method: .get)
            #expect(image.status == .ok)
            #expect(image.headers[.eTag] == "\"\(sha256)\"")

            let download = try await client.get("/unsplash/photos/a/download").json
            #expect(download["url"]?.text?.hasSuffix("/images/a?variant=regular") == true)
        }
    }

    @Test func aUsersPhotosFoundByAHeadCatchUpOpenItsFirstPage() async throws {
        // GIVEN a user's 40 photos backfilled, then a head catch-up that found 3 newer ones
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let old = (0..<40).map { String(format: "old-%02d", $0) }
        try await fixture.commit(old.enumerated().map { Sample.photo($1, day: 100 - $0) }, source: "user:ann")
        let baseline = try await fixture.writer.ledger.maxMembership()
        let new = ["new-0", "new-1", "new-2"]
        try await fixture.writer.ledger.commitPage(
            (new + old.prefix(5)).map { Sample.photo($0, day: 200) }, variant: .regular, source: .user("ann"),
            now: Date(timeIntervalSince1970: 1_700_000_100)
        ) { _ in .catchUp(next: nil, baseline: baseline) }

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client asks for the user's first page
            let first = try await client.get("/unsplash/users/ann/photos?per_page=10")
            // THEN it starts with the caught-up photos, as Unsplash lists them, then the older ones
            #expect(first.json.elements.compactMap { $0["id"]?.text } == new + old.prefix(7))
            #expect(first.header("X-Total") == "43")
            let last = try await client.get("/unsplash/users/ann/photos?page=5&per_page=10")
            #expect(last.json.elements.compactMap { $0["id"]?.text } == Array(old.suffix(3)))
        }
    }
}

/// Counts the download requests recorded through it.
final class CountingDownloadRequests: DownloadRequests {
    private let recorded: any DownloadRequests
    private let counted = Mutex(0)

    init(_ recorded: any DownloadRequests) {
        self.recorded = recorded
    }

    var count: Int { counted.withLock { $0 } }

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        counted.withLock { $0 += 1 }
        return try await recorded.record(photoID: photoID, at: date)
    }

    func requested() async throws(StoreError) -> [String: Date] {
        try await recorded.requested()
    }

    func close() throws(StoreError) {
        try recorded.close()
    }
}

/// Requests that cannot be recorded: every record fails as on a read-only standby.
final class RefusingRequests: DownloadRequests, PhotoDetailsRequests {
    private let counted = Mutex(0)

    var attempts: Int { counted.withLock { $0 } }

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        counted.withLock { $0 += 1 }
        throw .readOnlyStandby(path: "postgres://u@standby/photos", operation: "recording a request")
    }

    func requested() async throws(StoreError) -> [String: Date] { [:] }

    func close() throws(StoreError) {}
}
