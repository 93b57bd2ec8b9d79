import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import Testing

/// `/api/photos` paged by key, and the grid's page numbers at and past the end.
@Suite(.timeLimit(.minutes(5))) struct APIPagingTests {
    @Test func aFullPageLinksTheNextByKeyAndThePagesCoverEveryPhotoOnce() async throws {
        // GIVEN seven photos
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit((1...7).map { Sample.photo("d\($0)", day: $0, username: $0 % 2 == 0 ? "bob" : "ann") })

        try await fixture.serve { client in
            // WHEN the listing is followed by its `Link` headers
            var next: String? = "/api/photos?limit=3"
            var seen: [String] = []
            var pages = 0
            while let uri = next, pages < 10 {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                seen += try JSONDecoder().decode([PhotoListingJSON.Object].self, from: Data(buffer: response.body))
                    .map(\.id)
                next = response.headers[HTTPFields.Element.Name("Link")!].flatMap { link in
                    link.hasSuffix(#">; rel="next""#) ? String(link.dropFirst().prefix { $0 != ">" }) : nil
                }
                pages += 1
            }
            // THEN every photo comes once, newest first, and the last, short page links none
            #expect(seen == (1...7).reversed().map { "d\($0)" })
            #expect(pages == 3)

            // AND a filter is kept in the link, and `before` pages back
            let bob = try await client.execute(uri: "/api/photos?user=bob&limit=2", method: .get)
            let bobLink = bob.headers[HTTPFields.Element.Name("Link")!]
            #expect(bobLink == #"</api/photos?user=bob&limit=2&after=d4>; rel="next""#)
            let back = try await client.execute(uri: "/api/photos?limit=2&before=d3", method: .get)
            #expect(
                try JSONDecoder().decode([PhotoListingJSON.Object].self, from: Data(buffer: back.body)).map(\.id)
                    == ["d5", "d4"])

            // AND a cursor with a search, or one that names no photo, is refused
            #expect(try await client.execute(uri: "/api/photos?q=alt&after=d3", method: .get).status == .badRequest)
            let unknown = try await client.execute(uri: "/api/photos?after=nope", method: .get)
            #expect(unknown.status == .badRequest)
            #expect(unknown.text.contains("nope"))
        }
    }

    @Test func aPageNumberPastTheEndIsAnEmptyPageThatLinksBack() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit((1...5).map { Sample.photo("d\($0)", day: $0) })

        try await fixture.serve(pageSize: 2) { client in
            let last = try await client.execute(uri: "/?page=3", method: .get)
            #expect(last.status == .ok)
            #expect(last.text.contains("data-id=\"d1\""))
            #expect(!last.text.contains("href=\"/?page=4\""), "no older page after the last")
            for page in [4, 500, 1_000_000] {
                let past = try await client.execute(uri: "/?page=\(page)", method: .get)
                #expect(past.status == .ok)
                #expect(!past.text.contains("data-id="))
                #expect(past.text.contains("href=\"/?page=\(page - 1)\""), "a link back")
            }
        }
    }
}
