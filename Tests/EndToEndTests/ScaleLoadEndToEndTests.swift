import Foundation
import GRDB
import TestSupport
import Testing
import UnsplashStub

/// `scale-load` (Benchmarks/Loader), which builds scale.sh's mirrors, against a real sync of the
/// stub: what it writes must be what `photosync run --once --variant thumb` writes, and a later
/// run against a stub of 30 more photos must find exactly those 30 and stop on a known page.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(3))) struct ScaleLoadEndToEndTests {
        static let photos = 90
        /// Fewer than the photos, so that the newer ones borrow the older ones' pictures.
        static let pictures = 40
        static let imageSize = 15_000

        /// The built `scale-load`, beside `photosync`.
        static var scaleLoad: URL {
            PhotosyncProcess.executable.deletingLastPathComponent().appending(path: "scale-load")
        }

        /// The stub's feed of `photos`, served on 127.0.0.1.
        static func stub(photos: Int) async throws -> UnsplashStub {
            let stub = UnsplashStub(configuration: .init(photoCount: photos, imageSize: imageSize))
            try await stub.start()
            return stub
        }

        /// `photosync run --once --variant thumb` of `stub` into `database`, as scale.sh runs it.
        static func sync(_ stub: UnsplashStub, into database: String, config: String) async throws
            -> PhotosyncProcess.Result
        {
            try await PhotosyncProcess.run(
                [
                    "run", "--once", "--variant", "thumb", "--no-download-tracking", "--config", config,
                    "--api-base", await stub.baseURL.absoluteString, "--allowed-image-host", "127.0.0.1",
                    "--database", database,
                ], environment: ["UNSPLASH_ACCESS_KEY": "e2e"])
        }

        @Test func theLoaderStoresWhatASyncOfTheStubStores() async throws {
            let directory = FileManager.default.temporaryDirectory.appending(path: "scale-load-e2e-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config = directory.appending(path: "photosync.yaml").path
            try "per_page: 30\n".write(toFile: config, atomically: true, encoding: .utf8)
            let (synced, loaded) = (
                directory.appending(path: "synced.sqlite").path, directory.appending(path: "loaded.sqlite").path
            )
            let stub = try await Self.stub(photos: Self.photos)
            try await withTeardown(try? FileManager.default.removeItem(at: directory)) {
                try await withTeardown(await stub.stop()) {
                    let sync = try await Self.sync(stub, into: synced, config: config)
                    try #require(sync.status == 0, "\(sync.stderr)")
                    let load = try await PhotosyncProcess.run(
                        [
                            "--database", loaded, "--photos", String(Self.photos),
                            "--image-size", String(Self.imageSize), "--pictures", String(Self.pictures),
                            "--api-base", await stub.baseURL.absoluteString,
                        ], program: Self.scaleLoad)
                    try #require(load.status == 0, "\(load.stderr)")
                    #expect(load.stdout.contains("90 photos, 3 pages, 90 thumbnails"), "\(load.stdout)")
                }
                try Self.expectSameMirror(synced, loaded)
                let verify = try await PhotosyncProcess.run(["verify", "--database", loaded])
                #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

                // A feed that grew by a page: the run stores it, reads page 2, knows it, stops.
                let grown = try await Self.stub(photos: Self.photos + 30)
                try await withTeardown(await grown.stop()) {
                    let next = try await Self.sync(grown, into: loaded, config: config)
                    #expect(next.status == 0, "\(next.stderr)")
                    #expect(next.stdout.contains("synced: 2 pages, 60 photos (30 new), 30 images"), "\(next.stdout)")
                    let pages = await grown.requests().filter { $0.path == "/photos" }.map { $0.queryValue("page") }
                    #expect(pages == ["1", "2"])
                }
                let stored = try Self.rows(loaded, "SELECT count(*) FROM image WHERE status = 'stored'")
                #expect(stored == [[String(Self.photos + 30)]])
            }
        }

        /// Every row a sync writes, but for the instants it was written at; the images' SHA-256
        /// only where the loader painted the photo's own picture (the oldest `pictures` photos,
        /// the last the sync stored); the others must differ, their pictures being borrowed.
        static func expectSameMirror(_ synced: String, _ loaded: String) throws {
            let queries = [
                """
                SELECT id, sequence, created_at, updated_at, width, height, color, blur_hash, description,
                    alt_description, user_username, user_name, likes, is_sponsored, download_location,
                    download_tracked_at, is_plus, json
                FROM photo ORDER BY sequence
                """,
                "SELECT p.id, p.photo_id, s.name, p.position FROM photo_source AS p JOIN source AS s ON s.id = p.source_id ORDER BY p.id",
                """
                SELECT id, name, active, backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                    backfill_stall_reason, error, object_json, last_page_at IS NOT NULL
                FROM source ORDER BY id
                """,
                """
                SELECT i.id, i.photo_id, i.variant, i.status, i.source_url, i.attempts, i.last_error,
                    i.next_attempt_at, i.content_type, i.byte_count, i.failure_class,
                    CASE WHEN p.sequence > \(photos - pictures) THEN i.sha256 END, length(d.bytes)
                FROM image AS i JOIN photo AS p ON p.id = i.photo_id LEFT JOIN image_data AS d ON d.image_id = i.id
                ORDER BY i.id
                """,
                "SELECT rowid, * FROM photo_search ORDER BY rowid",
                "SELECT * FROM image_tally ORDER BY status",
                "SELECT * FROM image_walk ORDER BY variant",
                "SELECT id, backfill_next, backfill_complete, catch_up_next, catch_up_baseline FROM sync_state",
                "SELECT count(*), group_concat(reason) FROM configuration_load",
                "SELECT count(*) FROM rejected_photo",
            ]
            for sql in queries {
                let (expected, found) = (try rows(synced, sql), try rows(loaded, sql))
                #expect(!expected.isEmpty, "\(sql)")
                #expect(found == expected, "\(sql)")
            }
            let sameBytes =
                "SELECT sum(i.sha256 = l.sha256) FROM image AS i JOIN loaded.image AS l ON l.photo_id = i.photo_id"
            let same = try DatabaseQueue(path: synced).writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS loaded", arguments: [loaded])
                return try Int.fetchOne(db, sql: sameBytes)
            }
            #expect(same == pictures)
        }

        static func rows(_ path: String, _ sql: String) throws -> [[String]] {
            var configuration = Configuration()
            configuration.readonly = true
            return try DatabaseQueue(path: path, configuration: configuration).read { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description) }
            }
        }
    }
}
