import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

/// `photosync serve`'s gallery over real HTTP on loopback, on a database in a temporary directory.
@Suite(.timeLimit(.minutes(5))) struct GalleryTests {
    @Test func theGridShowsPhotosNewestFirstWithTheirSmallestImageOnTheirColour() async throws {
        // GIVEN three photos, one stored as regular and small, one regular only, one with none
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo("old", day: 1), Sample.photo("mid", day: 2, color: "#abcdef"), Sample.photo("new", day: 3),
        ])
        try await fixture.commit([Sample.photo("old", day: 1)], variant: .small)
        try await fixture.storeImage("old", variant: .regular, bytes: Sample.bytes(5_000))
        try await fixture.storeImage("old", variant: .small, bytes: Sample.bytes(900))
        try await fixture.storeImage("mid", bytes: Sample.bytes(2_000))

        try await fixture.serve { client in
            // WHEN the grid is asked for
            let response = try await client.execute(uri: "/", method: .get)

            // THEN it lists them newest first, each tile on its colour, with its smallest image
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let page = response.text
            let order = ["new", "mid", "old"].compactMap { page.range(of: "data-id=\"\($0)\"")?.lowerBound }
            #expect(order.count == 3 && order == order.sorted(), "newest first")
            #expect(page.contains("src=\"/images/old?variant=small\""), "the smallest stored variant")
            #expect(
                page.contains("<img src=\"/images/mid?variant=regular\" alt=\"alt text of mid\">"),
                "the tile's image with its alt text, claiming no size its pixels may not have")
            #expect(!page.contains("/images/new"), "no image is stored for it")
            #expect(page.contains("style=\"background-color: #abcdef\""))
            #expect(page.contains("href=\"/photos/new\""))
            #expect(page.contains("name=\"q\""), "a search box")
        }
    }

    @Test func stringsFromTheAPIAreEscapedAndAHostileColourIsNotCSS() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo(
                "evil", day: 1, description: "<script>alert(\"x\")</script> & 'quotes'",
                name: "<img src=x onerror=alert(1)>", color: "red; background-image: url(https://evil.example/)",
                altDescription: "a\"\u{301} onfocus=alert(2) autofocus \"")
        ])
        // An image, so that the pages show the alternative text in an attribute.
        try await fixture.storeImage("evil", bytes: Sample.bytes(900))

        // (Literals outside `#expect`, whose expansion cannot quote a quote with a mark after it.)
        let (unescaped, escaped) = ("\"\u{301} onfocus", "alt=\"a&quot;\u{301} onfocus=alert(2) autofocus &quot;\"")
        try await fixture.serve { client in
            for uri in ["/", "/photos/evil", "/?q=script"] {
                let page = try await client.execute(uri: uri, method: .get).text
                #expect(!page.contains("<script>alert"), "\(uri)")
                #expect(!page.contains("<img src=x"), "\(uri)")
                #expect(!page.contains("evil.example"), "\(uri): the colour never reaches a style attribute")
                #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(uri)")
                // A quote with a combining mark after it still ends no attribute.
                #expect(!page.contains(unescaped), "\(uri)")
                #expect(page.contains(escaped), "\(uri)")
            }
            let photo = try await client.execute(uri: "/photos/evil", method: .get).text
            #expect(photo.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;"))
        }
    }

    @Test func theSearchBoxAndTheFiltersNarrowTheGrid() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo("lake", day: 1, description: "A quiet mountain lake at dawn", username: "ann"),
            Sample.photo("city", day: 2, description: "Night traffic in the city", username: "bob", name: "Bob"),
            Sample.photo("zurich", day: 3, description: "Old town of Zürich", username: "bob", name: "Bob"),
        ])

        try await fixture.serve { client in
            func tiles(_ uri: String) async throws -> Set<String> {
                let page = try await client.execute(uri: uri, method: .get).text
                return Set(["lake", "city", "zurich"].filter { page.contains("data-id=\"\($0)\"") })
            }
            #expect(try await tiles("/") == ["lake", "city", "zurich"])
            #expect(try await tiles("/?q=mountain+lake") == ["lake"], "words, + for a space as forms send it")
            #expect(try await tiles("/?q=zurich") == ["zurich"], "the same FTS as search: accents do not matter")
            #expect(try await tiles("/?q=%22night+traffic%22") == ["city"], "a quoted phrase")
            #expect(try await tiles("/?q=moun*") == ["lake"], "a prefix")
            #expect(try await tiles("/?user=bob") == ["city", "zurich"])
            #expect(try await tiles("/?user=bob&q=town") == ["zurich"])
            #expect(try await tiles("/?source=feed") == ["lake", "city", "zurich"], "every photo comes from the feed")
            #expect(try await tiles("/?source=topics") == [])
            let searched = try await client.execute(uri: "/?q=lake&user=ann", method: .get).text
            #expect(searched.contains("value=\"lake\""), "the box keeps the search")
            let filtered = try await client.execute(uri: "/?source=feed", method: .get).text
            #expect(filtered.contains("<option value=\"feed\" selected>"), "the filter shows what it filters by")

            let bad = try await client.execute(uri: "/?q=%22unclosed", method: .get)
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("cannot be understood"))
            #expect(!bad.text.lowercased().contains("fts5"), "never SQLite's own words")
        }
    }

    @Test func aSearchSaysHowManyPhotosMatchBeyondItsPage() async throws {
        // GIVEN five photos of a lake and one of a city, and a grid of two a page
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit(
            (1...5).map { Sample.photo("lake\($0)", day: $0, description: "A lake, take \($0)") }
                + [Sample.photo("city", day: 9, description: "A city")])

        try await fixture.serve(pageSize: 2) { client in
            // WHEN the grid is searched, THEN it says how many photos match, not how many it shows
            let lakes = try await client.execute(uri: "/?q=lake", method: .get).text
            #expect(lakes.contains("<p class=\"matches\" id=\"matches\">5 photos match “lake”</p>"))
            #expect(lakes.components(separatedBy: "class=\"tile\"").count - 1 == 2)
            let city = try await client.execute(uri: "/?q=city", method: .get).text
            #expect(city.contains(">1 photo matches “city”</p>"))
            let none = try await client.execute(uri: "/?q=forest", method: .get).text
            #expect(none.contains(">0 photos match “forest”</p>"))
            // AND the grid without a search counts nothing
            #expect(try await !client.execute(uri: "/", method: .get).text.contains("id=\"matches\""))
        }
    }

    @Test func theGridIsPaginated() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit((1...5).map { Sample.photo("p\($0)", day: $0, username: "ann") })

        try await fixture.serve(pageSize: 2) { client in
            let first = try await client.execute(uri: "/?user=ann", method: .get).text
            #expect(
                first.contains("data-id=\"p5\"") && first.contains("data-id=\"p4\"")
                    && !first.contains("data-id=\"p3\""))
            #expect(first.contains("href=\"/?user=ann&amp;page=2\""), "the next page keeps the filter")
            #expect(!first.contains("rel=\"prev\""))
            let last = try await client.execute(uri: "/?user=ann&page=3", method: .get).text
            #expect(last.contains("data-id=\"p1\"") && !last.contains("data-id=\"p2\""))
            #expect(last.contains("rel=\"prev\"") && !last.contains("rel=\"next\""))
            #expect(try await client.execute(uri: "/?page=0", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/?page=two", method: .get).status == .badRequest)
        }
    }

    @Test func aPhotoPageShowsTheCameraPlaceAndTagsOfItsStoredFullObject() async throws {
        // GIVEN photos whose list versions have no camera, place or tags, and whose full objects
        // (photo_details) are Unsplash's recorded ones, stored as the sync stores them: one with
        // a camera, one with a place
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo("camera", day: 1), Sample.photo("place", day: 2), Sample.photo("bare", day: 3),
        ])
        #expect(try await fixture.writer.photoDetails.store(try Fixture.photo.data, photoID: "camera", at: Date()))
        #expect(
            try await fixture.writer.photoDetails.store(try Fixture.photoRandom2023.data, photoID: "place", at: Date()))

        try await fixture.serve { client in
            // WHEN their pages are asked for
            let camera = try await client.execute(uri: "/photos/camera", method: .get).text
            let place = try await client.execute(uri: "/photos/place", method: .get).text

            // THEN each shows its full object's camera, place and tags, each tag a search
            #expect(camera.contains("<dt>Camera</dt><dd>Leica M6</dd>"), "\(camera)")
            #expect(camera.contains("<dt>Aperture</dt><dd>ƒ/4</dd>"), "\(camera)")
            #expect(camera.contains("<dt>Tags</dt><dd id=\"tags\"><a href=\"/?q=building\">building</a> "), "\(camera)")
            #expect(place.contains("<dt>Location</dt><dd>Cappadocia, Türkei</dd>"), "\(place)")
            #expect(place.contains("<a href=\"/?q=hot%20air%20balloon\">hot air balloon</a>"), "\(place)")
            // AND a photo without a full object shows none of them
            let bare = try await client.execute(uri: "/photos/bare", method: .get).text
            #expect(!bare.contains("Camera") && !bare.contains("Location") && !bare.contains("Tags"))
        }
    }

    @Test func aPhotoPageAttributesThePhotographerAndShowsWhatIsStored() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo(
                "-R6xwObznIX", day: 1, description: "Harbour at noon", username: "ann.b", name: "Ann B",
                color: "#112233",
                json: """
                    , "location": {"name": "Zürich, Switzerland", "city": "Zürich", "country": "Switzerland"},
                    "exif": {"make": "FUJIFILM", "model": "X-T4", "exposure_time": "1/250", "aperture": "5.6", "focal_length": "23.0", "iso": 400}
                    """),
            Sample.photo("bare", day: 2),
        ])
        try await fixture.storeImage("-R6xwObznIX", bytes: Sample.bytes(3_000))

        try await fixture.serve { client in
            let response = try await client.execute(uri: "/photos/-R6xwObznIX", method: .get)
            #expect(response.status == .ok)
            let page = response.text
            #expect(page.contains("<h1>Harbour at noon</h1>"))
            #expect(page.contains("src=\"/images/-R6xwObznIX?variant=regular\""))
            // The image has the photo's proportions, as large as the frame allows, and claims no
            // pixel size: a stored variant is not 4000 px wide.
            #expect(
                page.contains(
                    "<img id=\"photo\" src=\"/images/-R6xwObznIX?variant=regular\" style=\"aspect-ratio: 4000 / 3000; width: min(100%, calc(80vh * 4000 / 3000))\""
                ))
            #expect(!page.contains("width=\"4000\""))
            #expect(
                page.contains(
                    "Photo by <a id=\"photographer\" href=\"https://unsplash.com/@ann.b?utm_source=photosync&amp;utm_medium=referral\">Ann B</a> on <a href=\"https://unsplash.com/?utm_source=photosync&amp;utm_medium=referral\">Unsplash</a>"
                ))
            #expect(
                page.contains(
                    "href=\"https://unsplash.com/photos/-R6xwObznIX?utm_source=photosync&amp;utm_medium=referral\""))
            #expect(page.contains("4000 × 3000 px"))
            #expect(page.contains("#112233"))
            #expect(page.contains("Zürich, Switzerland"))
            #expect(!page.contains("Zürich, Switzerland, Zürich"), "no part of the place twice")
            #expect(
                page.contains("FUJIFILM X-T4") && page.contains("ƒ/5.6") && page.contains("1/250 s")
                    && page.contains("23.0 mm"))
            #expect(page.contains("<dd>400</dd>"), "ISO")
            #expect(page.contains(">feed</a>"), "the sources that list it")

            let bare = try await client.execute(uri: "/photos/bare", method: .get).text
            #expect(!bare.contains("Location") && !bare.contains("Camera"), "nothing is shown that is not stored")
            #expect(bare.contains("No image of this photo is stored yet"))

            let missing = try await client.execute(uri: "/photos/nope", method: .get)
            #expect(missing.status == .notFound)
        }
    }

    @Test func imagesCarryTheirTypeLengthAndSHA256AndAreCachedForever() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)])
        try await fixture.commit([Sample.photo("a", day: 1)], variant: .small)
        let bytes = Sample.bytes(70_000)
        let sha256 = try await fixture.storeImage("a", variant: .regular, bytes: bytes)
        let small = try await fixture.storeImage(
            "a", variant: .small, bytes: Sample.bytes(100, seed: 9), contentType: "image/webp")

        try await fixture.serve { client in
            let response = try await client.execute(uri: "/images/a?variant=regular", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            #expect(response.headers[.contentLength] == "70000")
            #expect(response.headers[.eTag] == "\"\(sha256)\"")
            #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(Data(buffer: response.body) == bytes)

            let other = try await client.execute(uri: "/images/a?variant=small", method: .get)
            #expect(other.headers[.contentType] == "image/webp")
            #expect(other.headers[.eTag] == "\"\(small)\"")

            for tag in ["\"\(sha256)\"", "W/\"\(sha256)\"", "\"0000\", \"\(sha256)\"", "*"] {
                let cached = try await client.execute(
                    uri: "/images/a?variant=regular", method: .get, headers: [.ifNoneMatch: tag])
                #expect(cached.status == .notModified, "If-None-Match: \(tag)")
                #expect(cached.body.readableBytes == 0)
                #expect(cached.headers[.eTag] == "\"\(sha256)\"")
            }
            let stale = try await client.execute(
                uri: "/images/a?variant=regular", method: .get, headers: [.ifNoneMatch: "\"\(small)\""])
            #expect(stale.status == .ok && stale.body.readableBytes == 70_000)

            #expect(try await client.execute(uri: "/images/a?variant=raw", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/images/nope", method: .get).status == .notFound)

            // Without a variant the URL means the latest one fetched, which can change: the
            // answer is kept, but revalidated by its ETag each time
            let latest = try await client.execute(uri: "/images/a", method: .get)
            #expect(latest.status == .ok)
            #expect(latest.headers[.cacheControl] == "no-cache")
            let tag = try #require(latest.headers[.eTag])
            let revalidated = try await client.execute(uri: "/images/a", method: .get, headers: [.ifNoneMatch: tag])
            #expect(revalidated.status == .notModified)
        }
    }

    @Test func headAnswersEveryRouteWithGETsHeadersAndNoBody() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)])
        try await fixture.storeImage("a", variant: .regular, bytes: Sample.bytes(5_000))

        try await fixture.serve { client in
            for uri in ["/", "/photos/a", "/images/a?variant=regular", "/api/photos", "/healthz", "/photos/nope"] {
                let get = try await client.execute(uri: uri, method: .get)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(uri)")
                #expect(head.headers[.eTag] == get.headers[.eTag], "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
            }
        }
    }

    @Test func theAPIAnswersListsJSONObjects() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo("one", day: 1, description: "red boat", username: "ann"),
            Sample.photo("two", day: 2, description: "blue boat", username: "bob"),
            Sample.photo("three", day: 3, description: "green field", username: "bob"),
        ])
        try await fixture.storeImage("two", bytes: Sample.bytes(500))
        let reader = try PhotoStore.openExisting(path: fixture.path)

        try await fixture.serve { client in
            func api(_ query: String) async throws -> (HTTPResponse.Status, Data) {
                let response = try await client.execute(uri: "/api/photos" + query, method: .get)
                #expect(response.headers[.contentType] == "application/json")
                return (response.status, Data(buffer: response.body))
            }
            func ids(_ body: Data) throws -> [String] {
                try JSONDecoder().decode([PhotoListingJSON.Object].self, from: body).map(\.id)
            }
            let (status, all) = try await api("")
            #expect(status == .ok)
            // The very objects of `list --json`, from the one encoder both use.
            let expected = try await reader.catalog.photos(matching: PhotoQuery()).map(PhotoListingJSON.object)
            #expect(all == PhotoListingJSON.encode(expected))
            #expect(try ids(all) == ["three", "two", "one"])
            #expect(expected[1].image?.sha256 != nil, "the stored image is in the object")
            #expect(
                String(decoding: all, as: UTF8.self).contains(#""id":"three","image":null"#), "absent values are null")

            #expect(try ids(try await api("?q=boat&user=bob").1) == ["two"])
            #expect(try ids(try await api("?q=blue+boat").1) == ["two"], "a form's + is a space")
            #expect(try ids(try await api("?source=feed&limit=2").1) == ["three", "two"])
            #expect(try ids(try await api("?source=elsewhere").1) == [])
            #expect(try ids(try await api("?limit=1&offset=2").1) == ["one"])
            #expect(try ids(try await api("?limit=&q=%20").1) == ["three", "two", "one"], "blank values are absent")

            let (badStatus, badBody) = try await api("?limit=-1")
            #expect(badStatus == .badRequest)
            #expect(try JSONDecoder().decode([String: String].self, from: badBody)["error"]?.contains("limit") == true)
            #expect(try await api("?limit=many").0 == .badRequest)
            #expect(try await api("?q=%zz").0 == .badRequest, "a broken escape")
            #expect(try await api("?q=%22open").0 == .badRequest)
        }
    }

    @Test func itReadsWhatAWriterCommitsWhileItServes() async throws {
        // GIVEN the gallery serving a database that the writer keeps open, as `run` does
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("first", day: 1)])

        try await fixture.serve { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).text == "ok\n")
            // WHEN the writer commits another page
            try await fixture.commit([Sample.photo("second", day: 2)])
            // THEN the next request sees it
            let page = try await client.execute(uri: "/", method: .get).text
            #expect(page.contains("data-id=\"second\""))
        }
    }
}
