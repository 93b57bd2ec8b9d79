import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `photo_details`: the real binary against the stub, fetching photos' full objects after the
/// pages (`all`), or those a client of `serve` asked for (`on-demand`).
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct PhotoDetailsEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        /// The stub's requests for photos' full objects (`/photos/ID`), by photo id.
        static func detailsRequests(_ stub: UnsplashStub) async -> [String] {
            await stub.requests().compactMap { request in
                let parts = request.path.split(separator: "/")
                return parts.count == 2 && parts[0] == "photos" ? String(parts[1]) : nil
            }
        }

        @Test func allFetchesEveryPhotosFullObjectOnceQueryShowsItAndSearchFindsItsPlace() async throws {
            let world = try await World.start(photos: 40)
            try await withTeardown(await world.stop()) {
                // WHEN a sync runs with photo_details: all, twice
                let first = try await world.sync(["--photo-details", "all", "--variant", "none"])
                #expect(first.status == 0, "\(first.stderr)")
                let second = try await world.sync(["--photo-details", "all", "--variant", "none"])
                #expect(second.status == 0, "\(second.stderr)")

                // THEN every photo's full object was fetched once
                let store = try await world.store()
                let ids = try await store.catalog.photoIDs()
                #expect(ids.count == 40)
                let requested = await Self.detailsRequests(world.stub)
                #expect(requested.sorted() == ids.sorted())

                // AND query shows one's camera and tags
                let id = try #require(ids.first)
                let query = try await world.query(["--id", id])
                #expect(query.status == 0, "\(query.stderr)")
                #expect(
                    query.stdout.contains("camera      FUJIFILM X-T4, 1/250 s, f/5.6, 23.0 mm, ISO"), "\(query.stdout)")
                #expect(query.stdout.contains("  tags        "), "\(query.stdout)")
                // AND query --json is the full object, with when it was fetched
                let json = try await world.query(["--id", id, "--json"])
                #expect(json.status == 0, "\(json.stderr)")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect((object["exif"] as? [String: Any])?["make"] as? String == "FUJIFILM", "\(json.stdout)")
                #expect((object["tags"] as? [Any])?.isEmpty == false && object["views"] != nil, "\(json.stdout)")
                #expect(object["details_fetched_at"] is String && object["image"] is NSNull, "\(json.stdout)")

                // AND search finds the photos of a place by its city
                var cities: [String: Set<String>] = [:]
                for id in ids {
                    let details = try #require(try await store.photoDetails.details(photoID: id))
                    let object = try JSONSerialization.jsonObject(with: details.json) as? [String: Any]
                    if let city = (object?["location"] as? [String: Any])?["city"] as? String {
                        cities[city, default: []].insert(id)
                    }
                }
                #expect(!cities.isEmpty, "the stub gives some photos a place")
                // Each place's photos are found by its city (so are photos whose description names
                // it: the stub's descriptions name cities too, and search folds accents)
                for (city, photos) in cities {
                    let found = try await store.catalog.photos(matching: PhotoQuery(text: "\"\(city)\"", limit: 100))
                    #expect(photos.isSubset(of: Set(found.map(\.id))), "\(city)")
                }
            }
        }

        @Test func onDemandFetchesWhatAClientOfServeAskedForAndServeThenAnswersTheFullObject() async throws {
            let world = try await World.start(photos: 10)
            try await withTeardown(await world.stop()) {
                // GIVEN a sync with the default, on-demand: no full object fetched
                let first = try await world.sync(["--variant", "none"])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(await Self.detailsRequests(world.stub).isEmpty)

                // AND serve on it
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                var served = false
                defer { if !served { serve.signal(SIGKILL) } }
                let gallery = try #require(
                    await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")
                let id = try #require(try await world.store().catalog.photoIDs().first)
                func get() async throws -> (object: [String: Any], version: String?) {
                    var request = URLRequest(url: try #require(URL(string: gallery + "unsplash/photos/" + id)))
                    request.setValue("Client-ID any", forHTTPHeaderField: "Authorization")
                    let (body, response) = try await URLSession.shared.data(for: request)
                    let http = try #require(response as? HTTPURLResponse)
                    #expect(http.statusCode == 200)
                    let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                    return (object, http.value(forHTTPHeaderField: "X-Photosync-Photo"))
                }

                // WHEN a client asks for a photo
                let summary = try await get()
                // THEN it gets the summary, said so
                #expect(summary.version == "summary")
                #expect(summary.object["exif"] == nil)

                // WHEN the sync runs again
                let second = try await world.sync(["--variant", "none"])
                #expect(second.status == 0, "\(second.stderr)")
                // THEN it fetched that photo's full object, and only that one
                #expect(await Self.detailsRequests(world.stub) == [id])

                // AND the client now gets the full object
                let full = try await get()
                #expect(full.version == "full")
                #expect((full.object["exif"] as? [String: Any])?["make"] as? String == "FUJIFILM")
                #expect(full.object["related_collections"] != nil)
                let location = (full.object["links"] as? [String: Any])?["download_location"] as? String
                #expect(location?.hasPrefix(gallery + "unsplash/photos/\(id)/download") == true, "\(location ?? "")")

                serve.signal(SIGINT)
                #expect(await serve.result().status == 0)
                served = true
            }
        }
    }
}
