import Crypto
import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import TestSupport
import Testing

extension EndToEnd {
    /// `/images/ID` answers `Range` as curl asks it: the real `photosync serve`, on each store,
    /// and curl, for a part of an image and for a download cut short and resumed (`curl -C -`).
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ImageRangeEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        static let curl = URL(fileURLWithPath: "/usr/bin/curl")
        /// Three MiB and a bit: over PostgreSQL's 1 MiB chunk rows and the gallery's 512 KiB reads.
        static let bytes = Sample.bytes(count: (3 << 20) + 12_345)

        @Test(arguments: StoreKind.allCases)
        func curlGetsARangeAndResumesACutDownloadByteForByte(_ kind: StoreKind) async throws {
            let world = try await World.start(photos: 1, store: StoreSetup(kind))
            try await withTeardown(await world.stop()) {
                // GIVEN `photosync serve` on a database holding a 3 MiB image
                try await Self.storeImage(in: world)
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                try await withTeardown(await Self.stop(serve)) {
                    let base = try #require(
                        await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")
                    let url = base + "images/big?variant=regular"
                    try await Self.expectARange(of: url, in: world.directory)
                    try await Self.expectAResumedDownload(of: url, in: world.directory)
                    serve.signal(SIGINT)
                    let result = await serve.result()
                    #expect(result.status == 0, "\(result.stderr)")
                }
            }
        }

        /// `curl --range` gets a part that starts inside one chunk row and ends inside the next.
        static func expectARange(of url: String, in directory: URL) async throws {
            let part = directory.appending(path: "part")
            let headers = directory.appending(path: "headers")
            let curl = try await Self.curl(
                ["--range", "1048000-1049999", "--dump-header", headers.path], url, to: part)
            #expect(curl.status == 0 && curl.stdout == "206", "\(curl.stdout) \(curl.stderr)")
            let head = try String(contentsOf: headers, encoding: .utf8).lowercased()
            #expect(head.contains("content-range: bytes 1048000-1049999/\(bytes.count)\r\n"), "\(head)")
            #expect(head.contains("content-length: 2000\r\n") && head.contains("accept-ranges: bytes\r\n"), "\(head)")
            #expect(Bool(try Data(contentsOf: part) == bytes[1_048_000...1_049_999]), "the range's bytes")
        }

        /// A file holding the first 1,234,567 bytes, as a download cut short leaves it: `curl -C -`
        /// asks for the rest (`Range: bytes=1234567-`) and the file is then the whole image. Asked
        /// again, curl finds nothing left (416) and leaves the file as it is.
        static func expectAResumedDownload(of url: String, in directory: URL) async throws {
            let file = directory.appending(path: "download.jpg")
            try bytes.prefix(1_234_567).write(to: file)
            let resumed = try await Self.curl(["--continue-at", "-"], url, to: file)
            #expect(resumed.status == 0 && resumed.stdout == "206", "\(resumed.stdout) \(resumed.stderr)")
            #expect(try Self.sha256(of: file) == Self.sha256(of: bytes), "the resumed file is the image")

            let again = try await Self.curl(["--continue-at", "-"], url, to: file)
            #expect(again.status == 0 && again.stdout == "416", "\(again.stdout) \(again.stderr)")
            #expect(try Self.sha256(of: file) == Self.sha256(of: bytes), "a finished download stays whole")
        }

        /// curl with `options`, writing `url`'s body to `file`; its standard output is the status.
        static func curl(_ options: [String], _ url: String, to file: URL) async throws -> PhotosyncProcess.Result {
            try await PhotosyncProcess.run(
                ["--silent", "--show-error", "--noproxy", "*", "--write-out", "%{http_code}", "--output", file.path]
                    + options + [url],
                program: curl)
        }

        /// Stores ``bytes`` as photo `big`'s regular image in `world`'s database, from a file as a
        /// download is.
        static func storeImage(in world: World) async throws {
            let store: PhotoStore
            switch world.store {
            case .sqlite: store = try PhotoStore(path: world.database)
            case .postgres:
                store = try await PostgresStore.open(
                    try PostgresLocation(parsing: world.database), password: nil, logger: Logger(label: "photosync.e2e")
                )
            }
            defer { try? store.close() }
            try await store.ledger.commitPage(
                [
                    PhotoRecord(
                        id: "big", imageURL: "https://images.example.com/big", json: Data(#"{"id": "big"}"#.utf8))
                ],
                variant: .regular, source: .feed, now: Date()
            ) { _ in .backfill(next: nil) }
            let file = world.directory.appending(path: "big.jpg")
            try bytes.write(to: file)
            try await store.archive.storeImage(
                photoID: "big", variant: .regular, contentType: "image/jpeg", fileURL: file,
                byteCount: Int64(bytes.count), sha256: sha256(of: bytes), fetchedAt: Date())
        }

        /// Stops `serve` if it still runs, and waits for it to end.
        static func stop(_ serve: PhotosyncProcess) async {
            serve.signal(SIGINT)
            _ = await serve.result()
        }

        static func sha256(of data: Data) -> String {
            SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }

        static func sha256(of file: URL) throws -> String {
            sha256(of: try Data(contentsOf: file))
        }
    }
}
