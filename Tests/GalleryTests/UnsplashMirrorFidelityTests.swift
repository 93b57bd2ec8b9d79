import Foundation
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import Gallery

/// Where the mirror answered otherwise than Unsplash: `/photos` is the feed, a photo may be
/// named by its slug, older objects have numeric ids, no object is made up, and an Unsplash+
/// photo's download is never tracked.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorFidelityTests {
    @Test func photosIsTheFeedInTheAPIsOrderNotEveryMirroredPhoto() async throws {
        // GIVEN the feed (300 photos, 10 pages whose dates are in no order), a user, a collection
        // and a search, 403 photos in all, some of the others' also in the feed
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let feed = (0..<300).map { String(format: "feed-%03d", $0) }
        for (number, start) in stride(from: 0, to: feed.count, by: 30).enumerated() {
            let page = feed[start..<start + 30].enumerated().map { offset, id in
                Sample.photo(id, day: (start + offset) * 7_919 % 300)
            }
            try await fixture.commit(Array(page), source: "feed", at: 1_700_000_000 + Double(number))
        }
        let others = (0..<103).map { Sample.photo(String(format: "other-%03d", $0), day: 400 + $0) }
        try await fixture.commit(Array(others[0..<40]) + [Sample.photo("feed-007", day: 7)], source: "user:ann")
        try await fixture.commit(Array(others[40..<80]), source: "collection:3773378")
        try await fixture.commit(Array(others[80...]) + [Sample.photo("feed-100", day: 1)], source: "search:lake")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client pages /photos, 30 a page, as python-unsplash's photo.all does
            var seen: [String] = []
            var next: String? = "/unsplash/photos?per_page=30"
            var pages = 0
            while let uri = next, pages < 20 {
                pages += 1
                let response = try await client.get(uri)
                #expect(response.status == .ok, "\(uri)")
                #expect(response.header("X-Total") == "300", "\(uri)")
                seen += response.json.elements.compactMap { $0["id"]?.text }
                next = response.links["next"]
            }
            // THEN it gets the feed's photos only, in the order the API listed them
            #expect(pages == 10)
            #expect(seen == feed)
            let first = try await client.get("/unsplash/photos").json.elements.compactMap { $0["id"]?.text }
            #expect(first == Array(feed.prefix(10)), "page 1 is the feed's first page")
        }
    }

    @Test func withoutTheFeedPhotosIsEveryStoredPhotoNewestFirst() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("old", day: 1), Sample.photo("new", day: 9)], source: "user:ann")
        try await fixture.commit([Sample.photo("mid", day: 5)], source: "collection:1")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let response = try await client.get("/unsplash/photos")
            #expect(response.json.elements.compactMap { $0["id"]?.text } == ["new", "mid", "old"])
            #expect(response.header("X-Total") == "3")
        }
    }

    @Test func aPhotoIsFoundByTheSlugUnsplashLinksItBy() async throws {
        // GIVEN photos whose ids hold hyphens, one of them 11 characters ending a slug
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let requests = try fixture.writer.storage.openDownloadRequests()
        defer { try? requests.close() }
        try await fixture.commit(
            [
                Sample.photo("Vh7ao7Mt-_4", day: 1), Sample.photo("-abcdefghij", day: 2),
                Sample.photo("not-a-slug-at-all", day: 3),
            ], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration(downloadRequests: requests)) { client in
            // WHEN each is asked for by its slug, THEN it is the photo of the id the slug ends in
            for (segment, id) in [
                ("a-bunch-of-raspberries-on-a-plate-Vh7ao7Mt-_4", "Vh7ao7Mt-_4"),
                ("a-dash-first--abcdefghij", "-abcdefghij"), ("Vh7ao7Mt-_4", "Vh7ao7Mt-_4"),
                ("not-a-slug-at-all", "not-a-slug-at-all"),
            ] {
                let photo = try await client.get("/unsplash/photos/\(segment)")
                #expect(photo.status == .ok, "\(segment)")
                #expect(photo.json["id"]?.text == id, "\(segment)")
            }
            let download = try await client.get("/unsplash/photos/raspberries-Vh7ao7Mt-_4/download")
            #expect(download.status == .ok)
            // AND a slug whose id the mirror does not hold is Unsplash's 404
            let unknown = try await client.get("/unsplash/photos/a-bunch-of-raspberries-jZU3x1Rwlqw")
            #expect(unknown.status == .notFound)
            #expect(unknown.json == UnsplashMirrorContractTests.errors("Photo"))
        }
        #expect(try await requests.requested().keys.sorted() == ["Vh7ao7Mt-_4"], "tracked under its id")
    }

    @Test func theSlugsIDIsTheLast11CharactersAfterAHyphen() {
        #expect(MirrorPathSegment.photoIDInSlug("a-bunch-of-raspberries-jZU3x1Rwlqw") == "jZU3x1Rwlqw")
        #expect(MirrorPathSegment.photoIDInSlug("x--abcdefghij") == "-abcdefghij")
        #expect(MirrorPathSegment.photoIDInSlug("jZU3x1Rwlqw") == nil, "an id alone")
        #expect(MirrorPathSegment.photoIDInSlug("-jZU3x1Rwlqw") == nil, "no slug before the hyphen")
        #expect(MirrorPathSegment.photoIDInSlug("a-bunch-of-raspberriesjZU3x1Rwlqw") == nil, "no hyphen before the id")
        #expect(MirrorPathSegment.photoIDInSlug("a-bunch-of-raspberries-jZU3x1Rwlq%") == nil)
        #expect(MirrorPathSegment.photoIDInSlug("caf\u{E9}-jZU3x1Rwlqw") == "jZU3x1Rwlqw")
    }

    @Test func aTopicIsFoundByItsIDOrItsSlug() async throws {
        // GIVEN the recorded topic, synced by its slug, its object stored
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let photos = try await fixture.commit(recording: .topicsPhotos, source: "topic:wallpapers")
        try await fixture.writer.ledger.storeSourceObject(
            try Fixture.topic.data, sources: ["topic:wallpapers"], at: Date(timeIntervalSince1970: 1_700_000_000))

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN asked for by its id, THEN it is the same topic and its photos
            for segment in ["wallpapers", "bo8jQKTaE0Y"] {
                let topic = try await client.get("/unsplash/topics/\(segment)")
                #expect(topic.status == .ok, "\(segment)")
                #expect(topic.json["slug"]?.text == "wallpapers", "\(segment)")
                #expect(topic.json["links"]?["self"]?.text?.hasSuffix("/unsplash/topics/\(segment)") == true)
                let listed = try await client.get("/unsplash/topics/\(segment)/photos")
                #expect(listed.json.elements.map { $0["id"] } == photos.map { $0["id"] }, "\(segment)")
            }
            #expect(try await client.get("/unsplash/topics/nature").json == UnsplashMirrorContractTests.errors("Topic"))
            // AND a random photo of the topic, named by its id as Unsplash's `topics` takes it
            let random = try await client.get("/unsplash/photos/random?topics=bo8jQKTaE0Y&count=3")
            #expect(random.status == .ok)
            let ids = Set(photos.compactMap { $0["id"]?.text })
            #expect(random.json.elements.count == 3)
            #expect(random.json.elements.allSatisfy { ids.contains($0["id"]?.text ?? "") })
        }
    }

    @Test func aCollectionWithA2019NumericIDIsDecodedStoredAndServedAsUnsplashSentIt() async throws {
        // GIVEN the collection Unsplash sent in 2019, "id": 201, decoded as the sync decodes it
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let body = try Fixture.collection2019.data
        let object = try SourceObject(body: body, decoder: JSONDecoder())
        #expect(object.id == "201")
        try await fixture.commit([Sample.photo("ttVcVFWua6o", day: 1)], source: "collection:201")
        try await fixture.writer.ledger.storeSourceObject(
            object.json, sources: ["collection:201"], at: Date(timeIntervalSince1970: 1_700_000_000))

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client asks for it
            let collection = try await client.get("/unsplash/collections/201")

            // THEN it is the stored object, its id the number Unsplash sent, its title and owner kept
            let recorded = try JSONShape.parse(body)
            #expect(collection.status == .ok)
            #expect(JSONShape.mismatches(expected: recorded, actual: collection.json) == [])
            #expect(collection.json["id"] == .number(201))
            #expect(collection.json["title"]?.text == "Explore Iceland")
            let origin = try #require(mirrorOrigin(of: collection.json["links"]?["self"]?.text ?? ""))
            #expect(collection.json["user"] == recorded["user"]?.mirroredUser(on: origin))
            #expect(collection.json["total_photos"] == .number(225))
            #expect(collection.json["links"]?["self"]?.text?.hasSuffix("/unsplash/collections/201") == true)
            #expect(collection.json["links"]?["html"] == recorded["links"]?["html"])
        }
    }

    @Test func aCollectionOrTopicWhoseObjectWasNeverFetchedIs404NeverMadeUp() async throws {
        // GIVEN a collection's and a topic's photos, but not their objects (the API would not give them)
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(recording: .collectionsPhotos, source: "collection:3773378")
        try await fixture.commit(recording: .topicsPhotos, source: "topic:wallpapers")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN their objects are asked for, THEN each is Unsplash's 404, never an invented object
            let collection = try await client.get("/unsplash/collections/3773378")
            #expect(collection.status == .notFound)
            #expect(collection.json == (try JSONShape.parse(try Fixture.collection404.data)))
            let topic = try await client.get("/unsplash/topics/wallpapers")
            #expect(topic.status == .notFound)
            #expect(topic.json == UnsplashMirrorContractTests.errors("Topic"))
            // AND their photos are still listed
            #expect(try await client.get("/unsplash/collections/3773378/photos").status == .ok)
            #expect(try await client.get("/unsplash/topics/wallpapers/photos").status == .ok)
        }
    }

    @Test func anUnsplashPlusPhotosDownloadIsNotRecordedAndTheHeaderSaysWhy() async throws {
        // GIVEN the recorded likes, one of them an Unsplash+ photo, and a plain photo
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let likes = try await fixture.commit(recording: .usersLikes, source: "likes:lucreative")
        let plus = try #require(
            likes.first { $0["urls"]?["regular"]?.text?.contains("plus.unsplash.com") == true }?["id"]?.text)
        let free = try #require(
            likes.first { $0["urls"]?["regular"]?.text?.contains("images.unsplash.com") == true }?["id"]?.text)
        let requests = try fixture.writer.storage.openDownloadRequests()
        defer { try? requests.close() }

        try await fixture.serve(mirror: MirrorConfiguration(downloadRequests: requests)) { client in
            // WHEN a client triggers each one's download
            let plusDownload = try await client.get("/unsplash/photos/\(plus)/download")
            let freeDownload = try await client.get("/unsplash/photos/\(free)/download")

            // THEN the Unsplash+ one is answered, not recorded, and the header says why
            #expect(plusDownload.status == .ok)
            #expect(plusDownload.json["url"]?.text?.contains("plus.unsplash.com") == true)
            #expect(plusDownload.header("X-Photosync-Download-Tracking") == "not-tracked-unsplash-plus")
            #expect(freeDownload.header("X-Photosync-Download-Tracking") == "queued")
        }
        #expect(try await requests.requested().keys.sorted() == [free], "only the free photo is queued")
    }
}
