import Foundation
import TestSupport
import Testing

@testable import UnsplashAPI

@Suite struct PhotoDecodingTests {
    @Test func decodesARealPageWithItsNullableFields() throws {
        let photos = try JSONDecoder().decode([Photo].self, from: Fixture.page1.data)
        #expect(photos.count == 10)
        let first = try #require(photos.first)
        #expect(first.id == "RySPDa0FdcQ")
        #expect(first.width == 5792 && first.height == 8688)
        #expect(first.color == "#260c0c")
        #expect(first.createdAt == Date(timeIntervalSince1970: 1_682_688_060))  // 2023-04-28T13:21:00Z
        #expect(first.urls?[.regular]?.hasPrefix("https://images.unsplash.com/photo-1682687980961") == true)
        #expect(
            first.links?.downloadLocation
                == "https://api.unsplash.com/photos/RySPDa0FdcQ/download?ixid=M3w1NDk1MDR8MXwxfGFsbHwxfHx8fHx8Mnx8MTcwNDcwOTA1OXw"
        )
        // Nullable fields really are null somewhere on the page, and decode.
        #expect(photos.contains { $0.description == nil })
        #expect(photos.allSatisfy { $0.user?.username != nil })
    }

    @Test func tellsSponsoredPhotosApart() throws {
        let photos = try JSONDecoder().decode([Photo].self, from: Fixture.page1.data)
        #expect(photos[0].isSponsored)
        #expect(photos.filter(\.isSponsored).count < photos.count)
        let list = try PhotoList(body: Fixture.page1.data, decoder: JSONDecoder())
        #expect(list.photos.map(\.isSponsored) == photos.map(\.isSponsored))
    }

    @Test func keepsEverythingTheAPISentIncludingUnmodelledFields() throws {
        let original = try JSONDecoder().decode(JSONValue.self, from: Fixture.photo2025.data)
        // From its own text (as a list decodes each element), the text is kept as it is.
        let kept = try Photo(json: Fixture.photo2025.data)
        #expect(try kept.json == Fixture.photo2025.data)
        // Through a Decoder, it is re-encoded with sorted keys: member for member the same object.
        let reencoded = try JSONDecoder().decode(Photo.self, from: Fixture.photo2025.data)
        let json = try JSONDecoder().decode(JSONValue.self, from: reencoded.json)
        #expect(json == original)
        #expect(json["alternative_slugs"]?["ja"]?.string != nil)
        #expect(json["asset_type"]?.string == "photo")
        #expect(kept.id == reencoded.id && kept.user == reencoded.user && kept.urls == reencoded.urls)
    }

    @Test func keepsNonASCIITextIntact() throws {
        let photo = try JSONDecoder().decode(Photo.self, from: Fixture.photo2025.data)
        let json = try JSONDecoder().decode(JSONValue.self, from: photo.json)
        let slugs = try #require(json["alternative_slugs"])
        let text = String(decoding: try JSONEncoder().encode(slugs), as: UTF8.self)
        #expect(text.unicodeScalars.contains { $0.value > 0x3000 })
    }

    @Test func pagesOfAMovingFeedOverlap() throws {
        // The fixture that makes deduplication by id necessary.
        let first = try JSONDecoder().decode([Photo].self, from: Fixture.page1.data).map(\.id)
        let second = try JSONDecoder().decode([Photo].self, from: Fixture.page2.data).map(\.id)
        #expect(Set(first).intersection(second).count == 6)
    }

    @Test func aPhotoWithoutAnIDDoesNotDecode() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Photo.self, from: Data(#"{"width": 1}"#.utf8)) }
    }
}

@Suite struct LinkHeaderTests {
    let middle =
        #"<https://api.unsplash.com/photos?page=1&per_page=30>; rel="first", <https://api.unsplash.com/photos?page=1&per_page=30>; rel="prev", <https://api.unsplash.com/photos?page=334&per_page=30>; rel="last", <https://api.unsplash.com/photos?page=3&per_page=30>; rel="next""#

    @Test func findsEveryRelationInAnyOrder() {
        let links = LinkHeader(middle)
        #expect(links.next?.absoluteString == "https://api.unsplash.com/photos?page=3&per_page=30")
        #expect(links["last"]?.absoluteString == "https://api.unsplash.com/photos?page=334&per_page=30")
        #expect(links["FIRST"] != nil && links["prev"] != nil)
    }

    @Test func theLastPageHasNoNext() {
        let links = LinkHeader(
            #"<https://api.unsplash.com/photos?page=1>; rel="first", <https://api.unsplash.com/photos?page=333>; rel="prev""#
        )
        #expect(links.next == nil)
        #expect(links["prev"] != nil)
    }

    @Test func acceptsUnquotedAndMultipleRelations() {
        let links = LinkHeader(
            #"<https://x.test/a>; rel=next, <https://x.test/b>; type="text/html"; rel="last alternate""#)
        #expect(links.next?.absoluteString == "https://x.test/a")
        #expect(links["alternate"]?.absoluteString == "https://x.test/b")
    }

    @Test func skipsGarbage() {
        #expect(LinkHeader("").links.isEmpty)
        #expect(LinkHeader("nonsense; rel=next").links.isEmpty)
    }
}
