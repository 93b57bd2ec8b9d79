import Foundation
import Gallery
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PhotoStore
import TestSupport
import Testing

/// `GET /unsplash/photos/:id` against Unsplash's own answer (the recording `photo.json`): the
/// full object once the sync stored it, field by field; the summary until then, saying so, and
/// asking the sync for the full object.
@Suite struct FullPhotoContractTests {
    /// The keys Unsplash's `GET /photos/:id` has beyond a list's photo (`photo-2025-02.json`).
    static let fullOnly: Set<String> = [
        "exif", "location", "meta", "public_domain", "tags", "views", "downloads", "topics", "related_collections",
    ]

    /// The recording, its summary stored as the list photo, and its id.
    static func storeSummary(_ fixture: GalleryFixture) async throws -> (recorded: JSONShape, id: String) {
        let recorded = try JSONShape.parse(try Fixture.photo.data)
        guard case .object(var members) = recorded else { throw CancellationError() }
        for key in fullOnly { members[key] = nil }
        var summary = GalleryFixture.record(.object(members))
        summary.imageURL = recorded["urls"]?["regular"]?.text
        try await fixture.commit([summary], source: "feed")
        return (recorded, try #require(recorded["id"]?.text))
    }

    @Test func theStoredFullObjectIsAnsweredFieldByFieldAsUnsplashAnswersIt() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (recorded, id) = try await Self.storeSummary(fixture)
        // The full object as the sync stores it: the text Unsplash sent.
        #expect(try await fixture.writer.photoDetails.store(try Fixture.photo.data, photoID: id, at: Date()))

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let response = try await client.get("/unsplash/photos/\(id)")

            #expect(response.status == .ok)
            #expect(response.header("X-Photosync-Photo") == "full")
            #expect(JSONShape.mismatches(expected: recorded, actual: response.json) == [])
            guard case .object(let wanted) = recorded, case .object(let got) = response.json else {
                Issue.record("not objects")
                return
            }
            #expect(Set(got.keys) == Set(wanted.keys))
            for (key, value) in wanted where key != "links" {
                #expect(got[key] == value, "\(key)")
            }
            // Only the download location moves to the mirror; every other link stays Unsplash's.
            guard case .object(var links)? = recorded["links"], case .object(var answered)? = got["links"] else {
                Issue.record("no links")
                return
            }
            let location = try #require(answered.removeValue(forKey: "download_location")?.text)
            let ixid = try #require(links.removeValue(forKey: "download_location")?.text?.split(separator: "?").last)
            #expect(location.hasSuffix("/unsplash/photos/\(id)/download?\(ixid)"), "\(location)")
            #expect(answered == links)
            #expect(response.header("X-Ratelimit-Remaining") == "4999")
        }
    }

    @Test func withoutItTheSummaryIsAnsweredSaidInAHeaderAndTheFullObjectAskedFor() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (recorded, id) = try await Self.storeSummary(fixture)
        let requests = try PhotoDetailsRequests(path: fixture.path)
        defer { try? requests.close() }

        var mirror = MirrorConfiguration()
        mirror.photoDetailsRequests = requests
        try await fixture.serve(mirror: mirror) { client in
            let response = try await client.get("/unsplash/photos/\(id)")

            #expect(response.status == .ok)
            #expect(response.header("X-Photosync-Photo") == "summary")
            let missing = JSONShape.mismatches(expected: recorded, actual: response.json)
            #expect(Set(missing) == Set(Self.fullOnly.map { "$.\($0) is missing" }))
            #expect(try await fixture.writer.photoDetails.isRequested(photoID: id), "the sync is asked for it")

            let unknown = try await client.get("/unsplash/photos/nope")
            #expect(unknown.status == .notFound)
            #expect(unknown.json == .object(["errors": .array([.string("Couldn't find Photo")])]))
        }
        #expect(try await fixture.writer.photoDetails.pending(.requested, limit: 5) == [id])
    }

    @Test func aStoredFullObjectPointsItsURLsAtStoredImagesAsAListPhotoDoes() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (_, id) = try await Self.storeSummary(fixture)
        try await fixture.writer.photoDetails.store(try Fixture.photo.data, photoID: id, at: Date())
        try fixture.storeImage(id, bytes: Data([0xFF, 0xD8, 0xFF, 0xD9]))

        try await fixture.serve(mirror: MirrorConfiguration(imageURLs: .local)) { client in
            let response = try await client.get("/unsplash/photos/\(id)")
            #expect(response.header("X-Photosync-Photo") == "full")
            #expect(response.json["urls"]?["regular"]?.text?.hasSuffix("/images/\(id)?variant=regular") == true)
            #expect(response.json["exif"] != nil)
        }
    }
}
