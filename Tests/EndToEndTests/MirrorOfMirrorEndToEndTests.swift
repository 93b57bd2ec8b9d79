import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// photosync syncs from photosync: a first mirror synced from the stub, `serve` on it, and a
/// second `run --once` whose API base is the first one's `/unsplash`.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct MirrorOfMirrorEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        @Test(arguments: StoreKind.allCases)
        func aSecondMirrorGetsTheSamePhotosAndImagesAndItsTrackingReachesUnsplashOnce(_ store: StoreKind) async throws {
            // GIVEN a first mirror of the feed, a user, a collection and a search, metadata only, so
            // that whatever tracking reaches the stub came through the mirror's API
            let world = try await World.start(photos: 90, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let user = world.stub.usernames[0]
                let sources = ["feed", "user:\(user)", "collection:3773378", "search:lake"]
                let first = try await world.sync(sources.flatMap { ["--source", $0] } + ["--variant", "none"])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(await world.stub.requests().filter { $0.path.hasSuffix("/download") }.isEmpty)

                // AND `serve` on it
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                var served = false
                defer { if !served { serve.signal(SIGKILL) } }
                let gallery = try #require(
                    await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")
                let apiBase = gallery + "unsplash"

                // WHEN a second mirror syncs the same sources from the first one's API
                let second = world.directory.appending(path: "second")
                try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
                let secondDatabase = second.appending(path: "photosync.sqlite").path
                let secondConfig = second.appending(path: "photosync.yaml").path
                try "per_page: 30\n".write(toFile: secondConfig, atomically: true, encoding: .utf8)
                let mirrored = try await PhotosyncProcess.run(
                    [
                        "run", "--once", "--api-base", apiBase, "--database", secondDatabase, "--config", secondConfig,
                        "--allowed-image-host", "127.0.0.1",
                    ] + sources.flatMap { ["--source", $0] },
                    environment: ["UNSPLASH_ACCESS_KEY": "a-key-of-the-second-mirror"])
                #expect(mirrored.status == 0, "\(mirrored.stderr)")

                // THEN it holds the same photos, nothing missing, and each source's photos
                let firstStore = try await world.store()
                let secondStore = try PhotoStore.openExisting(path: secondDatabase)
                let firstIDs = Set(try await firstStore.catalog.photoIDs())
                #expect(Set(try await secondStore.catalog.photoIDs()) == firstIDs)
                for source in sources where source != "search:lake" {
                    let expected = try await firstStore.catalog.photos(matching: PhotoQuery(source: source))
                    let got = try await secondStore.catalog.photos(matching: PhotoQuery(source: source))
                    #expect(Set(got.map(\.id)) == Set(expected.map(\.id)), "\(source)")
                }
                // AND the collection and the user as the first mirror stored them: its title, their name
                for source: PhotoSource in ["collection:3773378", "user:\(user)"] {
                    let original = try #require(try await firstStore.catalog.sourceObject(ofAny: [source]), "\(source)")
                    let copied = try #require(try await secondStore.catalog.sourceObject(ofAny: [source]), "\(source)")
                    let originalObject = try JSONSerialization.jsonObject(with: original) as? [String: Any]
                    let copiedObject = try JSONSerialization.jsonObject(with: copied) as? [String: Any]
                    let name: String
                    if case .user = source { name = "name" } else { name = "title" }
                    #expect(copiedObject?[name] as? String == originalObject?[name] as? String, "\(source)")
                    #expect(copiedObject?["id"] as? String == originalObject?["id"] as? String, "\(source)")
                    let links = copiedObject?["links"] as? [String: String]
                    #expect(links?["self"]?.hasPrefix(apiBase) == true, "\(links ?? [:])")
                }
                let collection = try #require(await world.stub.sourceObject("collection:3773378"))
                #expect(collection.contains(#""title":"Neon Signage""#))

                // AND the same images, byte for byte, from Unsplash's (the stub's) URLs
                let premium = Set(await world.stub.premiumPhotoIDs())
                for id in firstIDs.subtracting(premium) {
                    let image = try await secondStore.catalog.photo(id: id)?.image
                    #expect(image?.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"), "\(id)")
                }

                // AND its download tracking arrived at the first mirror, queued for Unsplash
                let firstMirror = try await world.store()
                let requests = try firstMirror.storage.openDownloadRequests()
                let requested = Set(try await requests.requested().keys)
                try requests.close()
                try firstMirror.close()
                #expect(requested == firstIDs.subtracting(premium))
                #expect(await world.stub.requests().filter { $0.path.hasSuffix("/download") }.isEmpty)

                serve.signal(SIGINT)
                #expect(await serve.result().status == 0)
                served = true

                // AND from there it reaches the stub once per photo, however often the first runs
                for _ in 0..<2 {
                    let forwarded = try await world.sync(sources.flatMap { ["--source", $0] } + ["--variant", "none"])
                    #expect(forwarded.status == 0, "\(forwarded.stderr)")
                }
                for id in requested {
                    #expect(await world.stub.downloadTrackingCount(photoID: id) == 1, "\(id)")
                }
            }
        }

        @Test func photosIsTheStubsFeedInItsOrderThoughOtherSourcesAreMirroredToo() async throws {
            // GIVEN the feed (300 photos), a user, a collection, a search and a topic mirrored from
            // the stub (the topic lists Unsplash+ photos the feed does not)
            let world = try await World.start(photos: 300)
            try await withTeardown(await world.stop()) {
                let user = world.stub.usernames[0]
                let sources = ["feed", "user:\(user)", "collection:3773378", "search:lake", "topic:wallpapers"]
                let synced = try await world.sync(sources.flatMap { ["--source", $0] } + ["--variant", "none"])
                #expect(synced.status == 0, "\(synced.stderr)")
                let feed = await world.stub.photoIDs()
                let all = try await world.store().catalog.photoIDs()
                #expect(all.count > feed.count, "the other sources hold photos the feed does not")
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                var served = false
                defer { if !served { serve.signal(SIGKILL) } }
                let gallery = try #require(
                    await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")

                // WHEN a client pages /photos, 30 a page, following Link as python-unsplash does
                var seen: [String] = []
                var next: URL? = URL(string: gallery + "unsplash/photos?per_page=30")
                var pages = 0
                while let url = next, pages < 20 {
                    pages += 1
                    var request = URLRequest(url: url)
                    request.setValue("Client-ID any-key", forHTTPHeaderField: "Authorization")
                    let (body, response) = try await URLSession.shared.data(for: request)
                    let http = try #require(response as? HTTPURLResponse)
                    #expect(http.statusCode == 200)
                    #expect(http.value(forHTTPHeaderField: "X-Total") == String(feed.count))
                    let photos = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
                    seen += photos.compactMap { $0["id"] as? String }
                    next = http.value(forHTTPHeaderField: "Link").flatMap(Self.nextLink)
                }
                // AND an Unsplash+ photo's download is answered, neither recorded nor tracked
                let premium = try #require(await world.stub.premiumPhotoIDs().first { all.contains($0) })
                var download = URLRequest(
                    url: try #require(URL(string: gallery + "unsplash/photos/\(premium)/download")))
                download.setValue("Client-ID any-key", forHTTPHeaderField: "Authorization")
                let (_, downloaded) = try await URLSession.shared.data(for: download)
                let downloadAnswer = try #require(downloaded as? HTTPURLResponse)
                #expect(downloadAnswer.statusCode == 200)
                #expect(
                    downloadAnswer.value(forHTTPHeaderField: "X-Photosync-Download-Tracking")
                        == "not-tracked-unsplash-plus")
                serve.signal(SIGINT)
                #expect(await serve.result().status == 0)
                served = true
                let store = try PhotoStore.openExisting(path: world.database)
                let requests = try store.storage.openDownloadRequests()
                #expect(try await requests.requested().isEmpty)
                try requests.close()
                try store.close()
                // AND query says its image is not downloaded, for it is an Unsplash+ photo
                let shown = try await world.query(["--id", premium])
                #expect(shown.stdout.contains("image       not downloaded: an Unsplash+ photo"), "\(shown.stdout)")
                let output = try await world.query([
                    "--id", premium, "--output", world.directory.appending(path: "p").path,
                ])
                #expect(output.status == 1)
                #expect(output.stderr.contains("photo \(premium) is an Unsplash+ photo"), "\(output.stderr)")

                // THEN it gets the feed's photos only, page 1 the feed's first 30, in the API's order
                #expect(seen.count == feed.count)
                #expect(Array(seen.prefix(30)) == Array(feed.prefix(30)))
                #expect(seen == feed)
            }
        }

        /// The `rel="next"` target of a `Link` header.
        static func nextLink(_ header: String) -> URL? {
            for part in header.split(separator: ",") where part.contains("rel=\"next\"") {
                guard let start = part.firstIndex(of: "<"), let end = part.firstIndex(of: ">") else { continue }
                return URL(string: String(part[part.index(after: start)..<end]))
            }
            return nil
        }

        @Test func withLocalImageURLsTheSecondMirrorCopiesTheFirstOnesImagesByteForByte() async throws {
            // GIVEN a first mirror with its images, tracked at the stub once each, served with
            // `urls` pointing at its own stored images
            let world = try await World.start(photos: 40)
            try await withTeardown(await world.stop()) {
                let first = try await world.sync(["--source", "feed"])
                #expect(first.status == 0, "\(first.stderr)")
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                    "--mirror-image-urls", "local",
                ])
                var served = false
                defer { if !served { serve.signal(SIGKILL) } }
                let gallery = try #require(
                    await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")

                // WHEN a second mirror syncs the feed from it
                let second = world.directory.appending(path: "second")
                try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
                let secondDatabase = second.appending(path: "photosync.sqlite").path
                try "per_page: 30\n".write(
                    toFile: second.appending(path: "photosync.yaml").path, atomically: true, encoding: .utf8)
                let mirrored = try await PhotosyncProcess.run(
                    [
                        "run", "--once", "--api-base", gallery + "unsplash", "--database", secondDatabase,
                        "--config", second.appending(path: "photosync.yaml").path, "--allowed-image-host", "127.0.0.1",
                    ],
                    environment: ["UNSPLASH_ACCESS_KEY": "a-key-of-the-second-mirror"])
                #expect(mirrored.status == 0, "\(mirrored.stderr)")
                serve.signal(SIGINT)
                #expect(await serve.result().status == 0)
                served = true

                // THEN its images are the first one's, and were never asked of the stub again
                let firstStore = try await world.store()
                let secondStore = try PhotoStore.openExisting(path: secondDatabase)
                let stored = try await firstStore.catalog.photoIDs(withStoredImage: true)
                #expect(!stored.isEmpty)
                #expect(Set(try await secondStore.catalog.photoIDs(withStoredImage: true)) == Set(stored))
                for id in stored {
                    #expect(
                        try await secondStore.catalog.photo(id: id)?.image?.sha256
                            == firstStore.catalog.photo(id: id)?.image?.sha256, "\(id)")
                    #expect(await world.stub.imageRequestCount(photoID: id) == 1, "\(id)")
                }
                // AND its tracking, queued at the first mirror, never reaches the stub twice
                let again = try await world.sync(["--source", "feed"])
                #expect(again.status == 0, "\(again.stderr)")
                for id in stored {
                    #expect(await world.stub.downloadTrackingCount(photoID: id) == 1, "\(id)")
                }
            }
        }

        @Test func servingBeyondLoopbackWithoutClientKeysIsOneLineAndExit64() async throws {
            let world = try await World.start(photos: 5)
            try await withTeardown(await world.stop()) {
                let result = try await PhotosyncProcess.run([
                    "serve", "--listen", "0.0.0.0:0", "--database", world.database, "--config", world.config,
                ])
                #expect(result.status == 64)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.contains("--mirror-client-key"), "\(result.stderr)")
            }
        }
    }
}
