import Foundation
import Testing
import UnsplashStub

/// The stub's `GET /photos/:id`, against Unsplash's own answer (the recording `photo.json`).
@Suite struct StubFullPhotoTests {
    @Test func aFullPhotoHasTheKeysOfTheRecordingInItsOrderAndSomeHaveAPlace() async throws {
        let fixture = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: StubServerTests.fixturesDirectory.appending(path: "photo.json")))
                as? [String: Any])

        try await withStub(photoCount: 12) { stub, client in
            let photos = try await client.get(stub, "/photos?per_page=12").photos()
            var places: [String] = []
            for listed in photos {
                let id = try #require(listed["id"] as? String)
                let answer = try await client.get(stub, "/photos/\(id)")
                #expect(answer.status == 200)
                let photo = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
                #expect(keys(photo) == keys(fixture))
                for nested in ["exif", "location", "location.position", "meta", "related_collections", "user"] {
                    #expect(keys(photo, at: nested) == keys(fixture, at: nested), "\(nested)")
                }
                let tags = try #require(photo["tags"] as? [[String: Any]])
                #expect(!tags.isEmpty && tags.allSatisfy { Set($0.keys) == ["type", "title"] })
                // The summary's members are the list's, and come first, as Unsplash orders them.
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(text.range(of: "\"user\"")!.lowerBound < text.range(of: "\"exif\"")!.lowerBound)
                if let city = (photo["location"] as? [String: Any])?["city"] as? String { places.append(city) }
            }
            #expect(!places.isEmpty && places.count < photos.count, "some photos have a place, not all: \(places)")

            let unknown = try await client.get(stub, "/photos/NoSuchPhoto")
            #expect(unknown.status == 404)
            #expect(String(decoding: unknown.body, as: UTF8.self) == #"{"errors":["Couldn't find Photo"]}"#)
        }
    }
}
