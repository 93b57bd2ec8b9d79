import Foundation
import Gallery
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

/// `GET /unsplash/photos/:id` against Unsplash's own answer (the recording `photo.json`): the
/// full object once the sync stored it, field by field; the summary until then, saying so, and
/// asking the sync for the full object. `GET /unsplash/photos/random` likewise (the recording
/// `photo-random-2023-with-location.json`): Unsplash answers full objects there too.
@Suite struct FullPhotoContractTests {
    /// The keys Unsplash's `GET /photos/:id` has beyond a list's photo (`photo-2025-02.json`).
    static let fullOnly: Set<String> = [
        "exif", "location", "meta", "public_domain", "tags", "views", "downloads", "topics", "related_collections",
    ]

    /// The recording, its summary stored as the list photo, and its id.
    static func storeSummary(
        _ fixture: GalleryFixture, of recording: Fixture = .photo
    ) async throws -> (recorded: JSONShape, id: String) {
        let recorded = try JSONShape.parse(try recording.data)
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
            try Self.expectFieldByField(recorded, response.json, id: id)
            #expect(response.header("X-Ratelimit-Remaining") == "4999")
        }
    }

    /// `answered` is `recorded` value for value, but for its API links, which move to the
    /// mirror: its download location and `self`, and its photographer's; every other link (the
    /// pages on unsplash.com) stays Unsplash's.
    static func expectFieldByField(_ recorded: JSONShape, _ answered: JSONShape, id: String) throws {
        #expect(JSONShape.mismatches(expected: recorded, actual: answered) == [])
        guard case .object(let wanted) = recorded, case .object(let got) = answered else {
            Issue.record("not objects")
            return
        }
        #expect(Set(got.keys) == Set(wanted.keys))
        guard case .object(var links)? = recorded["links"], case .object(var answeredLinks)? = got["links"] else {
            Issue.record("no links")
            return
        }
        let location = try #require(answeredLinks.removeValue(forKey: "download_location")?.text)
        let ixid = try #require(links.removeValue(forKey: "download_location")?.text?.split(separator: "?").last)
        #expect(location.hasSuffix("/unsplash/photos/\(id)/download?\(ixid)"), "\(location)")
        let origin = try #require(mirrorOrigin(of: location))
        #expect(answeredLinks.removeValue(forKey: "self") == .string(origin + "/unsplash/photos/\(id)"))
        links["self"] = nil
        #expect(answeredLinks == links)
        for (key, value) in wanted where key != "links" {
            #expect(got[key] == (key == "user" ? value.mirroredUser(on: origin) : value), "\(key)")
        }
    }

    @Test func aRandomPhotoIsItsStoredFullObjectAsUnsplashAnswersIt() async throws {
        // GIVEN the recorded random photo's summary, as a page lists it, and its full object
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (recorded, id) = try await Self.storeSummary(fixture, of: .photoRandom2023)
        #expect(try await fixture.writer.photoDetails.store(try Fixture.photoRandom2023.data, photoID: id, at: Date()))

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            // WHEN a client draws it, THEN it is the recording, field by field
            let one = try await client.get("/unsplash/photos/random")
            #expect(one.status == .ok)
            #expect(one.header("X-Photosync-Photo") == "full")
            try Self.expectFieldByField(recorded, one.json, id: id)
            #expect(one.json["tags"]?.elements.count == 20 && one.json["location"]?["country"]?.text == "Türkei")

            // AND so is each photo drawn with a count, and with a filter
            let many = try await client.get("/unsplash/photos/random?count=2")
            #expect(many.json.elements.count == 2)
            for photo in many.json.elements { try Self.expectFieldByField(recorded, photo, id: id) }
            let username = try #require(recorded["user"]?["username"]?.text)
            let filtered = try await client.get("/unsplash/photos/random?username=\(username)")
            try Self.expectFieldByField(recorded, filtered.json, id: id)
        }
    }

    @Test func aRandomPhotoWithoutItsFullObjectIsTheSummarySaidInAHeader() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (recorded, _) = try await Self.storeSummary(fixture, of: .photoRandom2023)
        guard case .object(let members) = recorded else { throw CancellationError() }

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let one = try await client.get("/unsplash/photos/random")

            #expect(one.header("X-Photosync-Photo") == "summary")
            let missing = JSONShape.mismatches(expected: recorded, actual: one.json)
            let fullOnly = Self.fullOnly.filter { members[$0] != nil }
            #expect(!fullOnly.isEmpty && Set(missing) == Set(fullOnly.map { "$.\($0) is missing" }))
        }
    }

    @Test func withoutItTheSummaryIsAnsweredSaidInAHeaderAndTheFullObjectAskedFor() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (recorded, id) = try await Self.storeSummary(fixture)
        let requests = try fixture.writer.storage.openPhotoDetailsRequests()
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

    @Test func aPhotoAskedForAgainIsNotRecordedAgainForTenMinutes() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (_, id) = try await Self.storeSummary(fixture)
        let requests = CountingDetailsRequests(try fixture.writer.storage.openPhotoDetailsRequests())
        defer { try? requests.close() }
        let clock = ManualClock()

        var mirror = MirrorConfiguration(now: { clock.now })
        mirror.photoDetailsRequests = requests
        try await fixture.serve(mirror: mirror) { client in
            for _ in 0..<3 {
                #expect(try await client.get("/unsplash/photos/\(id)").header("X-Photosync-Photo") == "summary")
            }
            #expect(requests.count == 1, "recorded once, not once a request")
            clock.advance(by: 600)
            _ = try await client.get("/unsplash/photos/\(id)")
            #expect(requests.count == 2, "remembered for ten minutes")
        }
        #expect(try await fixture.writer.photoDetails.pending(.requested, limit: 5) == [id])
    }

    @Test func aStoredFullObjectPointsItsURLsAtStoredImagesAsAListPhotoDoes() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let (_, id) = try await Self.storeSummary(fixture)
        try await fixture.writer.photoDetails.store(try Fixture.photo.data, photoID: id, at: Date())
        try await fixture.storeImage(id, bytes: Data([0xFF, 0xD8, 0xFF, 0xD9]))

        try await fixture.serve(mirror: MirrorConfiguration(imageURLs: .local)) { client in
            let response = try await client.get("/unsplash/photos/\(id)")
            #expect(response.header("X-Photosync-Photo") == "full")
            #expect(response.json["urls"]?["regular"]?.text?.hasSuffix("/images/\(id)?variant=regular") == true)
            #expect(response.json["exif"] != nil)
        }
    }
}

/// Counts the requests recorded through it.
final class CountingDetailsRequests: PhotoDetailsRequests {
    private let recorded: any PhotoDetailsRequests
    private let counted = Mutex(0)

    init(_ recorded: any PhotoDetailsRequests) {
        self.recorded = recorded
    }

    var count: Int { counted.withLock { $0 } }

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool {
        counted.withLock { $0 += 1 }
        return try await recorded.record(photoID: photoID, at: date)
    }

    func close() throws(StoreError) {
        try recorded.close()
    }
}
