import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// The real binary on its production transport (AsyncHTTPClient): stopping at any moment, and
/// leaving no download file behind whatever happens to a body.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct TransportEndToEndTests {
        struct StopHung: Error, CustomStringConvertible {
            var round: Int
            var description: String { "round \(round): photosync did not exit within 5 s of SIGTERM" }
        }

        @Test func sigtermAtRandomMomentsAtConcurrency16AlwaysExitsZeroWithinSeconds() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 600)
            try await withTeardown(await world.stop()) {
                await world.stub.delayImages(by: .milliseconds(3))
                var random = SeededRandom(seed: 0x51_6E_A1)
                let arguments = [
                    "run", "--api-base", await world.stub.baseURL.absoluteString, "--database", world.database,
                    "--config", world.config, "--allowed-image-host", "127.0.0.1", "--concurrency", "16",
                ]

                for round in 0..<10 {
                    let daemon = try PhotosyncProcess(
                        arguments, environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                    #expect(await daemon.awaitPages(1))
                    // A random moment while pages, downloads and tracking requests are in flight.
                    try await Task.sleep(for: .milliseconds(Int(random.next() % 150)))
                    daemon.signal(SIGTERM)
                    let result = try await withDeadline(.seconds(5), failure: StopHung(round: round)) {
                        await daemon.result()
                    }
                    #expect(result.status == 0, "round \(round): \(result.stderr)")
                }
                #expect(try await world.store().catalog.statistics().photos > 0)
                #expect(try FileManager.default.contentsOfDirectory(atPath: world.database + ".downloads").isEmpty)
            }
        }

        static func stop(_ stub: UnsplashStub, removing directory: URL) async {
            await stub.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        @Test func cutAndOversizedBodiesLeaveNoFileAnywhere() async throws {
            // Images of 2.5 to 7.5 MB: those over 4 MiB go through spool files beside the database.
            let stub = UnsplashStub(
                configuration: .init(photoCount: 20, accessKey: PhotosyncEndToEndTests.key, imageSize: 5_000_000))
            try await stub.start()
            let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-e2e-\(UUID().uuidString)")
            let temporary = directory.appending(path: "tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            // Awaited, whether the test passes or throws: the stub never outlives the test.
            try await withTeardown(await Self.stop(stub, removing: directory)) {
                let ids = await stub.photoIDs()
                for id in ids.prefix(6) {
                    await stub.truncateImage(photoID: id, times: 1000)
                }
                let database = directory.appending(path: "photosync.sqlite").path
                try "per_page: 30\n".write(
                    toFile: directory.appending(path: "photosync.yaml").path, atomically: true, encoding: .utf8)

                let result = try await PhotosyncProcess.run(
                    [
                        "run", "--once", "--api-base", await stub.baseURL.absoluteString, "--database", database,
                        "--config", directory.appending(path: "photosync.yaml").path, "--allowed-image-host",
                        "127.0.0.1",
                        "--max-image-mib", "7",
                    ],
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key, "TMPDIR": temporary.path])

                // Cut images wait for a retry after their attempts in the run, and images over 7 MiB
                // fail for good: the run says so and exits 75.
                #expect(result.status == 75, "\(result.stderr)")
                #expect(result.stdout.contains("failed"), "\(result.stdout)")
                let store = try PhotoStore.openExisting(path: database)
                let stats = try await store.catalog.statistics()
                #expect(stats.imagesRetrying > 0 && stats.imagesPending == stats.imagesRetrying)
                #expect(stats.imagesRetrying + stats.imagesFailed >= 6)
                #expect(stats.imagesStored + stats.imagesFailed + stats.imagesPending == Int64(ids.count))
                for id in try await store.catalog.photoIDs(withStoredImage: true) {
                    #expect(
                        try await store.catalog.photo(id: id)?.image?.sha256
                            == stub.expectedSHA256(photoID: id, variant: "regular"))
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: database + ".downloads").isEmpty)
                #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
                let mode =
                    try FileManager.default.attributesOfItem(atPath: database + ".downloads")[.posixPermissions] as? Int
                #expect(mode == 0o700)
            }
        }
    }
}
