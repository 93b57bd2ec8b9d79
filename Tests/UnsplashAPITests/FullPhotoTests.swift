import Foundation
import Networking
import TestSupport
import Testing

@testable import UnsplashAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /photos/:id` against what Unsplash really answered.
@Suite struct FullPhotoTests {
    @Test("the recorded full photo: its text kept byte for byte, exif and tags read, the budget reported")
    func recordedPhoto() async throws {
        let session = MockURLSession(responses: [.json(try Fixture.photo.text, headers: try Fixture.photo.headers)])
        let (photo, rateLimit) = try await makeRepository(session).photo(id: "vUGBY_MnSsg")

        #expect(try #require(session.requests.first).url?.path == "/photos/vUGBY_MnSsg")
        #expect(session.requests.first?.value(forHTTPHeaderField: "Authorization") != nil)
        #expect(photo.id == "vUGBY_MnSsg")
        #expect(photo.json == (try Fixture.photo.data), "the text as it was sent")
        #expect(photo.exif?.make == "Leica")
        #expect(photo.exif?.model == "Leica M6")
        #expect(photo.exif?.iso == 400)
        #expect(photo.tags == ["building", "black", "white", "grey", "tile", "rug", "film camera"])
        #expect(photo.location == FullPhoto.Location(name: nil, city: nil, country: nil))
        #expect(rateLimit?.limit == 50)
    }

    @Test("a full photo with a place: its name, city and country")
    func location() throws {
        let photo = try FullPhoto(body: try Fixture.photoRandom2023.data)
        #expect(photo.location?.name == "Cappadocia, Türkei")
        #expect(photo.location?.country == "Türkei")
        #expect(photo.location?.city == nil)
        #expect(photo.tags.count == 20)
        #expect(photo.exif?.make == nil)
    }

    @Test("an unknown photo is the API's 404")
    func unknownPhoto() async throws {
        let session = MockURLSession(responses: [.json(try Fixture.photo404.text, status: 404)])
        await #expect(throws: UnsplashError.self) { try await makeRepository(session).photo(id: "nope") }
    }

    @Test("a body that is not a photo object is refused")
    func notAPhoto() throws {
        #expect(throws: DecodingError.self) { try FullPhoto(body: Data("[]".utf8)) }
        #expect(throws: DecodingError.self) { try FullPhoto(body: Data(#"{"id": 7}"#.utf8)) }
        #expect(throws: DecodingError.self) {
            try FullPhoto(body: Data(("{\"id\":\"a\",\"x\":\"" + String(repeating: "y", count: 1 << 20) + "\"}").utf8))
        }
        let odd = try FullPhoto(body: Data(#"{"id":"a","exif":"none","tags":[{"title":3},{"title":"ok"}]}"#.utf8))
        #expect(odd.exif == nil)
        #expect(odd.tags == ["ok"])
    }
}
