import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

/// `/unsplash`: for each route, the mirror answers with the same shape (keys, kinds, headers)
/// as the real recording of Unsplash's answer, from the recording's own photos stored as the
/// sync stores them.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorContractTests {
    struct ListRoute: Sendable, CustomTestStringConvertible {
        let fixture: Fixture
        let source: String
        let uri: String
        var testDescription: String { uri }
    }

    static let listRoutes: [ListRoute] = [
        ListRoute(fixture: .photosSponsored, source: "feed", uri: "/unsplash/photos?per_page=2"),
        ListRoute(fixture: .usersPhotos, source: "user:lucreative", uri: "/unsplash/users/lucreative/photos"),
        ListRoute(fixture: .usersLikes, source: "likes:lucreative", uri: "/unsplash/users/lucreative/likes"),
        ListRoute(
            fixture: .collectionsPhotos, source: "collection:3773378", uri: "/unsplash/collections/3773378/photos"),
        ListRoute(fixture: .topicsPhotos, source: "topic:wallpapers", uri: "/unsplash/topics/wallpapers/photos"),
    ]

    @Test(arguments: listRoutes)
    func aListHasTheRecordingsShapeHeadersAndOrder(_ route: ListRoute) async throws {
        // GIVEN the recorded page stored as its source, behind 5 more photos of the source
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let recorded = try await fixture.commit(recording: route.fixture, source: route.source)
        try await fixture.commit(
            (1...5).map { Sample.photo("later-\($0)", day: $0) }, source: route.source, at: 1_700_000_500)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client asks for the list's first page
            let response = try await client.get(route.uri)

            // THEN it is the recording's photos, in its order, in its shape, with its headers
            #expect(response.status == .ok)
            let photos = response.json.elements
            #expect(photos.map { $0["id"] } == recorded.map { $0["id"] }, "the order the API gave them")
            // Field by field, each photo is the recording's but its download location, on the mirror
            #expect(
                JSONShape.differences(
                    expected: .array(recorded), actual: .array(Array(photos.prefix(recorded.count))),
                    rewritten: Self.rewritten) == [])
            for photo in photos {
                let id = try #require(photo["id"]?.text)
                #expect(photo["links"]?["download_location"]?.text?.contains("/unsplash/photos/\(id)/download") == true)
            }
            #expect(JSONShape.mismatches(expected: .array(recorded), actual: response.json) == [])
            let headers = try route.fixture.headers
            for name in listContractHeaders {
                #expect(headers[name] != nil && response.header(name) != nil, "\(name)")
            }
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("X-Total") == String(recorded.count + 5))
            #expect(response.header("X-Per-Page") == String(recorded.count))
            #expect(response.links.keys.sorted() == ["last", "next"], "page 1 links only last and next, as recorded")
        }
    }

    @Test func searchAnswersTotalTotalPagesAndResultsAsRecorded() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let recorded = try await fixture.commit(recording: .searchPhotos, source: "search:test")
        let word = try #require(recorded.first?["alt_description"]?.text?.split(separator: " ").last)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let response = try await client.get("/unsplash/search/photos?query=\(word)&per_page=1")

            #expect(response.status == .ok)
            let expected = try JSONShape.parse(try Fixture.searchPhotos.data)
            #expect(JSONShape.mismatches(expected: expected, actual: response.json) == [])
            guard case .number(let total)? = response.json["total"] else {
                Issue.record("no total: \(response.json)")
                return
            }
            #expect(total >= 1)
            // Each result, field by field, is the recorded photo of its id but its download location
            for result in response.json["results"]?.elements ?? [] {
                let original = try #require(recorded.first { $0["id"] == result["id"] })
                #expect(JSONShape.differences(expected: original, actual: result, rewritten: Self.rewritten) == [])
            }
            #expect(response.json["results"]?.elements.count == 1)
            #expect(response.json["total_pages"] == .number(total), "one a page")
            #expect(response.header("X-Total") == String(Int(total)))
            for name in listContractHeaders where name != "Link" || total > 1 {
                #expect(response.header(name) != nil, "\(name)")
            }
        }
    }

    @Test func aSearchWithFTSSyntaxInItIsPlainWordsNeverAnError() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("lake", day: 1, description: "A quiet lake")], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // The last: a quote with a combining mark after it, one `Character` but two code points.
            for query in ["%22lake", "lake%20OR", "NEAR(lake", "lake*%22%22", "-lake", "lake%22%CC%81"] {
                let response = try await client.get("/unsplash/search/photos?query=\(query)")
                #expect(response.status == .ok, "\(query)")
            }
            let found = try await client.get("/unsplash/search/photos?query=quiet+lake")
            #expect(found.json["results"]?.elements.map { $0["id"] } == [.string("lake")])
        }
    }

    @Test func aSearchByColourListsThePhotosOfThatDominantColour() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(
            [
                Sample.photo("sky", day: 1, description: "lake", color: "#2060d0"),
                Sample.photo("sea", day: 2, description: "lake", color: "#0a3a8c"),
                Sample.photo("sun", day: 3, description: "lake", color: "#e0a020"),
                Sample.photo("fog", day: 4, description: "lake", color: "#c8c8c8"),
            ], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            for (color, ids) in [
                ("blue", ["sea", "sky"]), ("orange", ["sun"]), ("black_and_white", ["fog"]), ("red", []),
            ] {
                let response = try await client.get("/unsplash/search/photos?query=lake&order_by=latest&color=\(color)")
                #expect(response.status == .ok)
                #expect(response.json["results"]?.elements.map { $0["id"] } == ids.map(JSONShape.string), "\(color)")
                #expect(response.json["total"] == .number(Double(ids.count)))
            }
            let unknown = try await client.get("/unsplash/search/photos?query=lake&color=beige")
            #expect(unknown.status == .badRequest)
        }
    }

    @Test func onePhotoIsItsStoredJSONWithTheDownloadLocationOnTheMirror() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let recorded = try JSONShape.parse(try Fixture.photo.data)
        try await fixture.commit([GalleryFixture.record(recorded)], source: "feed")
        let id = try #require(recorded["id"]?.text)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let response = try await client.get("/unsplash/photos/\(id)")

            #expect(response.status == .ok)
            #expect(JSONShape.mismatches(expected: recorded, actual: response.json) == [])
            let location = try #require(response.json["links"]?["download_location"]?.text)
            let ixid = try #require(recorded["links"]?["download_location"]?.text?.split(separator: "?").last)
            #expect(location.hasPrefix("http://"))
            #expect(location.hasSuffix("/unsplash/photos/\(id)/download?\(ixid)"), "\(location)")
            // Attribution: the photographer and the photo's page stay Unsplash's; the API links
            // (the photo's own, its photographer's) are the mirror's, which needs no key of Unsplash's.
            let origin = try #require(mirrorOrigin(of: location))
            let username = try #require(recorded["user"]?["username"]?.text)
            #expect(response.json["user"] == recorded["user"]?.mirroredUser(on: origin))
            #expect(response.json["user"]?["links"]?["self"]?.text == origin + "/unsplash/users/\(username)")
            #expect(response.json["user"]?["links"]?["html"] == recorded["user"]?["links"]?["html"])
            #expect(response.json["user"]?["name"] == recorded["user"]?["name"])
            #expect(response.json["links"]?["self"]?.text == origin + "/unsplash/photos/\(id)")
            // AND a photographer without a stored profile is the photo's user, its links on the mirror too
            let profile = try await client.get("/unsplash/users/\(username)")
            #expect(profile.status == .ok)
            #expect(profile.json == recorded["user"]?.mirroredUser(on: origin))
            #expect(response.json["links"]?["html"] == recorded["links"]?["html"])
            #expect(response.json["urls"] == recorded["urls"], "Unsplash's image URLs by default")
            #expect(response.header("X-Ratelimit-Limit") == "5000")
            #expect(response.header("X-Ratelimit-Remaining") == "4999")
        }
    }

    @Test func randomPhotosAreDifferentWhileThereAreEnough() async throws {
        // GIVEN 30 photos
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let ids = (0..<30).map { "photo-\($0)" }
        try await fixture.commit(ids.map { Sample.photo($0, day: 1) }, source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN 30 are drawn at random, THEN each is drawn once
            let drawn = try await client.get("/unsplash/photos/random?count=30").json.elements
            #expect(Set(drawn.compactMap { $0["id"]?.text }) == Set(ids))
        }
    }

    @Test func aRandomPhotoIsOneObjectAndWithACountAnArray() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let recorded = try JSONShape.parse(try Fixture.photoRandom2023.data)
        try await fixture.commit([GalleryFixture.record(recorded)], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let one = try await client.get("/unsplash/photos/random")
            #expect(one.status == .ok)
            #expect(JSONShape.mismatches(expected: recorded, actual: one.json) == [])

            let many = try await client.get("/unsplash/photos/random?count=3")
            #expect(many.json.elements.count == 3, "one photo drawn three times")
            #expect(JSONShape.mismatches(expected: .array([recorded]), actual: many.json) == [])

            #expect(try await client.get("/unsplash/photos/random?username=nobody").json == Self.errors("User"))
            #expect(try await client.get("/unsplash/photos/random?count=0").status == .badRequest)
        }
    }

    /// The members of an object's `links` that are API links, which the mirror moves to itself.
    static let apiLinks: Set<String> = ["self", "photos", "related", "likes", "portfolio", "following", "followers"]

    /// What the mirror rewrites in a recorded object or photo: the API links of each object in
    /// it (its own, its photos', its users') and each photo's `links.download_location`;
    /// everything else is Unsplash's, value for value. Where they point is checked by name.
    static func rewritten(_ path: String) -> Bool {
        path.hasSuffix(".links.download_location") || apiLinks.contains { path.hasSuffix(".links.\($0)") }
    }

    @Test func aCollectionATopicAndAUserAreTheRecordingsFieldByField() async throws {
        // GIVEN the recorded collection, topic and (the collection's owner as) a profile, stored
        // as the sync stores them, with their photos
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(recording: .collectionsPhotos, source: "collection:3773378")
        try await fixture.commit(recording: .topicsPhotos, source: "topic:wallpapers")
        let recordedCollection = try JSONShape.parse(try Fixture.collection.data)
        let recordedTopic = try JSONShape.parse(try Fixture.topic.data)
        let owner = try #require(recordedCollection["user"])
        let username = try #require(owner["username"]?.text)
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        try await fixture.writer.ledger.storeSourceObject(
            try Fixture.collection.data, sources: ["collection:3773378"], at: fetched)
        try await fixture.writer.ledger.storeSourceObject(
            try Fixture.topic.data, sources: ["topic:wallpapers"], at: fetched)
        try await fixture.writer.ledger.storeSourceObject(owner.data, sources: ["user:\(username)"], at: fetched)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            for (path, recorded) in [
                ("/unsplash/collections/3773378", recordedCollection), ("/unsplash/topics/wallpapers", recordedTopic),
                ("/unsplash/users/\(username)", owner),
            ] {
                // WHEN each is asked for
                let response = try await client.get(path)

                // THEN every field is the recording's but the API links, which are the mirror's
                #expect(response.status == .ok, "\(path)")
                #expect(response.header("Content-Type") == "application/json", "\(path)")
                #expect(
                    JSONShape.differences(expected: recorded, actual: response.json, rewritten: Self.rewritten) == [],
                    "\(path)")
                let base = try #require(response.json["links"]?["self"]?.text, "\(path)")
                #expect(base.hasPrefix("http://") && base.hasSuffix(path), "\(base)")
                let unsplashSelf = try #require(recorded["links"]?["self"]?.text)
                for name in Self.apiLinks {
                    guard let url = recorded["links"]?[name]?.text else { continue }
                    #expect(
                        response.json["links"]?[name]?.text == base + url.dropFirst(unsplashSelf.count),
                        "\(path) links.\(name)")
                }
            }
        }
    }

    @Test func aPhotoIsAnsweredByItsRecordedSlugAsByItsID() async throws {
        // GIVEN the recorded photo, whose links.self names it by its slug, as Unsplash has since 2023
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let recorded = try JSONShape.parse(try Fixture.photo.data)
        try await fixture.commit([GalleryFixture.record(recorded)], source: "feed")
        let id = try #require(recorded["id"]?.text)
        let slug = try #require(recorded["slug"]?.text)
        #expect(recorded["links"]?["self"]?.text?.hasSuffix("/photos/\(slug)") == true)

        try await fixture.serve(mirror: MirrorConfiguration(downloadTracking: .off)) { client in
            // WHEN it is asked for by that slug, THEN it is the photo, as by its id
            let byID = try await client.get("/unsplash/photos/\(id)")
            let bySlug = try await client.get("/unsplash/photos/\(slug)")
            #expect(bySlug.status == .ok)
            #expect(bySlug.json == byID.json)
            #expect(bySlug.json["id"]?.text == id)
            let download = try await client.get("/unsplash/photos/\(slug)/download")
            #expect(download.status == .ok)
            #expect(download.json["url"] == recorded["urls"]?["full"])
        }
    }

    @Test func aRejectedKeyAndASpentLimitAreUnsplashsRecordedErrors() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")
        let clock = ManualClock()

        let mirror = MirrorConfiguration(clientKeys: ["good"], hourlyLimit: 1, now: { clock.now })
        try await fixture.serve(mirror: mirror) { client in
            // 401: the recorded body, as JSON
            let unauthorized = try await client.get("/unsplash/photos", key: "bad")
            #expect(unauthorized.status == .unauthorized)
            #expect(unauthorized.json == (try JSONShape.parse(try Fixture.unauthorized401.data)))
            #expect(unauthorized.header("Content-Type") == "application/json")
            // 403: the recorded plain-text body and the limit spent
            #expect(try await client.get("/unsplash/photos", key: "good").status == .ok)
            let spent = try await client.get("/unsplash/photos", key: "good")
            #expect(spent.status == .forbidden)
            #expect(spent.text == (try Fixture.rateLimit403Body))
            #expect(spent.header("X-Ratelimit-Remaining") == "0")
            #expect(spent.header("Content-Type")?.hasPrefix("application/json") != true)
        }
    }

    @Test func whatTheMirrorDoesNotHoldIs404InUnsplashsWords() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let cases: [(String, Fixture)] = [
                ("/unsplash/photos/nope", .photo404), ("/unsplash/users/nobody", .user404),
                ("/unsplash/users/nobody/photos", .user404), ("/unsplash/collections/1/photos", .collection404),
                ("/unsplash/collections/1", .collection404),
            ]
            for (uri, recording) in cases {
                let response = try await client.get(uri)
                let recorded = try JSONShape.parse(try recording.data)
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.json == recorded, "\(uri)")
                #expect(response.header("Content-Type") == "application/json", "\(uri)")
            }
            #expect(try await client.get("/unsplash/topics/none/photos").json == Self.errors("Topic"))
            // Every path under /unsplash no route answers, those that start a route included
            // (the router gives up on them before its catch-all).
            for uri in [
                "/unsplash/nothing", "/unsplash/photos/a/b/c", "/unsplash/search/users?query=x", "/unsplash/users",
                "/unsplash/search", "/unsplash", "/unsplash/users/ann/followers", "/unsplash/topics/a/b/c",
            ] {
                let response = try await client.get(uri)
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.json["errors"]?.elements.count == 1, "\(uri)")
            }
        }
    }

    @Test func badParametersAre400InUnsplashsShapeAndPerPageOver30Clamps() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit((1...40).map { Sample.photo("p\($0)", day: $0) }, source: "feed")

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            for uri in [
                "/unsplash/photos?page=0", "/unsplash/photos?page=two", "/unsplash/photos?per_page=-1",
                "/unsplash/photos?page=1.5", "/unsplash/search/photos", "/unsplash/search/photos?query=a&order_by=x",
                "/unsplash/search/photos?query=a&orientation=round", "/unsplash/photos/random?count=many",
                "/unsplash/photos/random?query=a&collections=1",
            ] {
                let response = try await client.get(uri)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.json["errors"]?.elements.isEmpty == false, "\(uri)")
                #expect(!String(buffer: response.body).localizedCaseInsensitiveContains("sql"), "\(uri)")
            }
            let clamped = try await client.get("/unsplash/photos?per_page=100")
            #expect(clamped.status == .ok)
            #expect(clamped.header("X-Per-Page") == "30")
            #expect(clamped.json.elements.count == 30)
            #expect(clamped.links["next"] == "/unsplash/photos?page=2&per_page=30")
        }
    }

    static func errors(_ kind: String) -> JSONShape {
        .object(["errors": .array([.string("Couldn't find \(kind)")])])
    }
}

/// `/unsplash/collections/:id`, `/topics/:slug` and `/users/:username` once the sync stored the
/// objects themselves: Unsplash's object, its API links on the mirror, attribution untouched.
@Suite(.timeLimit(.minutes(5))) struct UnsplashMirrorSourceObjectTests {
    @Test func storedObjectsAreServedWithTheirTitleOwnerAndAPILinksOnTheMirror() async throws {
        // GIVEN the recorded collection, topic and (the collection's owner as) a profile, stored
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(recording: .collectionsPhotos, source: "collection:3773378")
        try await fixture.commit(recording: .topicsPhotos, source: "topic:wallpapers")
        let recordedCollection = try JSONShape.parse(try Fixture.collection.data)
        let recordedTopic = try JSONShape.parse(try Fixture.topic.data)
        let owner = try #require(recordedCollection["user"])
        let username = try #require(owner["username"]?.text)
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        try await fixture.writer.ledger.storeSourceObject(
            try Fixture.collection.data, sources: ["collection:3773378"], at: fetched)
        try await fixture.writer.ledger.storeSourceObject(
            try Fixture.topic.data, sources: ["topic:wallpapers"], at: fetched)
        try await fixture.writer.ledger.storeSourceObject(owner.data, sources: ["likes:\(username)"], at: fetched)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN each is asked for
            let collection = try await client.get("/unsplash/collections/3773378")
            let topic = try await client.get("/unsplash/topics/wallpapers")
            let user = try await client.get("/unsplash/users/\(username)")

            // THEN each has the recording's shape and its stored title and owner
            #expect(collection.status == .ok)
            #expect(JSONShape.mismatches(expected: recordedCollection, actual: collection.json) == [])
            #expect(collection.json["title"] == recordedCollection["title"])
            let origin = try #require(mirrorOrigin(of: collection.json["links"]?["self"]?.text ?? ""))
            #expect(collection.json["user"] == owner.mirroredUser(on: origin))
            #expect(collection.json["total_photos"] == recordedCollection["total_photos"])
            #expect(topic.status == .ok)
            #expect(JSONShape.mismatches(expected: recordedTopic, actual: topic.json) == [])
            #expect(topic.json["title"] == .string("Wallpapers"))
            #expect(
                topic.json["owners"]?.elements == recordedTopic["owners"]?.elements.map { $0.mirroredUser(on: origin) })
            #expect(
                topic.json["top_contributors"]?.elements
                    == recordedTopic["top_contributors"]?.elements.map { $0.mirroredUser(on: origin) })
            #expect(user.status == .ok)
            #expect(JSONShape.mismatches(expected: owner, actual: user.json) == [])
            #expect(user.json["name"] == owner["name"])

            // AND API links point at the mirror, the pages on unsplash.com stay Unsplash's
            let links = try #require(collection.json["links"])
            let base = try #require(links["self"]?.text)
            #expect(base.hasPrefix("http://") && base.hasSuffix("/unsplash/collections/3773378"))
            #expect(links["photos"]?.text == base + "/photos")
            #expect(links["related"]?.text == base + "/related")
            #expect(links["html"] == recordedCollection["links"]?["html"])
            #expect(topic.json["links"]?["self"]?.text?.hasSuffix("/unsplash/topics/wallpapers") == true)
            #expect(topic.json["links"]?["html"] == recordedTopic["links"]?["html"])
            let userLinks = try #require(user.json["links"])
            #expect(userLinks["likes"]?.text?.hasSuffix("/unsplash/users/\(username)/likes") == true)
            #expect(userLinks["portfolio"]?.text?.hasSuffix("/unsplash/users/\(username)/portfolio") == true)
            #expect(userLinks["html"] == owner["links"]?["html"])
            // AND the embedded cover photo tracks downloads through the mirror
            let cover = try #require(collection.json["cover_photo"]?["links"]?["download_location"]?.text)
            #expect(cover.hasSuffix("/unsplash/photos/32Kch97sX1A/download"))
            #expect(
                collection.json["cover_photo"]?["user"]
                    == recordedCollection["cover_photo"]?["user"]?.mirroredUser(on: origin))
            // AND no link of a user leads to the API the sync read: each is the mirror's or unsplash.com's
            for person in [collection.json["user"], topic.json["owners"]?.elements.first, user.json] {
                guard case .object(let links)? = person?["links"] else { continue }
                for link in links.values.compactMap(\.text) {
                    #expect(link.hasPrefix(origin + "/unsplash/") || link.hasPrefix("https://unsplash.com/"), "\(link)")
                }
            }
        }
    }

    @Test func aStoredObjectIsUnsplashsTextButForItsLinksAndCoverPhoto() async throws {
        // GIVEN the recorded collection's object, stored
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(recording: .collectionsPhotos, source: "collection:3773378")
        let recorded = try Fixture.collection.data
        try await fixture.writer.ledger.storeSourceObject(
            recorded, sources: ["collection:3773378"], at: Date(timeIntervalSince1970: 1_700_000_000))

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN it is asked for
            let response = try await client.get("/unsplash/collections/3773378")
            let served = Data(String(buffer: response.body).utf8)

            // THEN up to `links` it is Unsplash's text byte for byte: its members in Unsplash's
            // order, its spacing and escapes as they came
            let servedLinks = try #require(JSONSpans.member("links", of: served))
            let recordedLinks = try #require(JSONSpans.member("links", of: recorded))
            #expect(served[..<servedLinks.lowerBound] == recorded[..<recordedLinks.lowerBound])
            // AND so are the members after it that the mirror does not change, the preview
            // photos (which have no links) among them
            for name in ["preview_photos", "meta"] {
                let mine = try #require(JSONSpans.member(name, of: served), "\(name)")
                let theirs = try #require(JSONSpans.member(name, of: recorded), "\(name)")
                #expect(served[mine] == recorded[theirs], "\(name)")
            }
            // AND so is the owner but for its links
            let (owner, recordedOwner) = (
                try #require(JSONSpans.member("user", of: served)), try #require(JSONSpans.member("user", of: recorded))
            )
            let (ownerLinks, recordedOwnerLinks) = (
                try #require(JSONSpans.member("links", of: served[owner])),
                try #require(JSONSpans.member("links", of: recorded[recordedOwner]))
            )
            #expect(
                served[owner.lowerBound..<ownerLinks.lowerBound]
                    == recorded[recordedOwner.lowerBound..<recordedOwnerLinks.lowerBound])
            #expect(
                served[ownerLinks.upperBound..<owner.upperBound]
                    == recorded[recordedOwnerLinks.upperBound..<recordedOwner.upperBound])
            let origin = try #require(
                mirrorOrigin(of: try JSONShape.parse(Data(served[ownerLinks]))["self"]?.text ?? ""))
            // AND the cover photo is Unsplash's but for its API links
            let cover = try #require(JSONSpans.member("cover_photo", of: served))
            let recordedCover = try #require(JSONSpans.member("cover_photo", of: recorded))
            let servedCover = try JSONShape.parse(Data(served[cover]))
            let location = try #require(servedCover["links"]?["download_location"])
            #expect(location.text?.hasSuffix("/unsplash/photos/32Kch97sX1A/download") == true)
            guard case .object(var expected) = try JSONShape.parse(Data(recorded[recordedCover])),
                case .object(var links)? = expected["links"]
            else {
                Issue.record("the recorded cover photo has no links")
                return
            }
            links["download_location"] = location
            links["self"] = .string(origin + "/unsplash/photos/32Kch97sX1A")
            expected["links"] = .object(links)
            expected["user"] = expected["user"]?.mirroredUser(on: origin)
            #expect(servedCover == .object(expected))
        }
    }
}
