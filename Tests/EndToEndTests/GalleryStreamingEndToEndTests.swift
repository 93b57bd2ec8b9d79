import Crypto
import Foundation
import PhotoStore
import PhotoStoreSQLite
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndToEnd {
    /// `/images/ID` streams an image from SQLite a chunk at a time: the real `photosync serve`,
    /// its memory read from `/proc`, so nothing else in the test process can blur it.
    @Suite(.timeLimit(.minutes(5))) struct GalleryStreamingEndToEndTests {
        static let imageBytes = 100 << 20
        static let allowedGrowth = 32 << 20

        @Test func servingAHundredMegabyteImageGrowsServesMemoryByLessThan32MiB() async throws {
            // GIVEN a database holding a 100 MiB image, stored from a file as a large download is
            let directory = FileManager.default.temporaryDirectory.appending(
                path: "photosync-stream-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appending(path: "photosync.sqlite").path
            let sha256 = try await Self.storeLargeImage(in: database, directory: directory)
            let serve = try PhotosyncProcess(["serve", "--listen", "127.0.0.1:0", "--database", database])
            var served = false
            defer { if !served { serve.signal(SIGKILL) } }
            let base = try #require(
                await GalleryEndToEndTests.galleryURL(of: serve), "serve never said where it listens")
            // One answer first, so whatever serve builds on its first request is in the baseline.
            _ = try await URLSession.shared.data(from: try #require(URL(string: base + "healthz")))
            let before = try Self.memory(of: serve.pid)

            // WHEN a client downloads it
            let (file, response) = try await URLSession.shared.download(
                from: try #require(URL(string: base + "images/big?variant=regular")))
            defer { try? FileManager.default.removeItem(at: file) }
            let after = try Self.memory(of: serve.pid)

            // THEN every byte arrived, as stored
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try Self.sha256(of: file) == sha256)
            // AND serve's peak resident memory grew by less than 32 MiB
            let growth = after.peak - before.resident
            #expect(growth < Self.allowedGrowth, "serve grew by \(growth >> 20) MiB, from \(before.resident >> 20) MiB")

            serve.signal(SIGINT)
            let result = await serve.result()
            served = true
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// Stores a photo `big` whose `regular` image is ``imageBytes`` of noise; returns their SHA-256.
        static func storeLargeImage(in database: String, directory: URL) async throws -> String {
            let store = try PhotoStore(path: database)
            try await store.ledger.commitPage(
                [
                    PhotoRecord(
                        id: "big", imageURL: "https://images.example.com/big", json: Data(#"{"id": "big"}"#.utf8))
                ],
                variant: .regular, source: .feed, now: Date()
            ) { _ in .backfill(next: nil) }
            let file = directory.appending(path: "big.jpg")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let output = try FileHandle(forWritingTo: file)
            var hasher = SHA256()
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            for _ in 0..<(imageBytes >> 20) {
                for index in chunk.indices {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    chunk[index] = UInt8(truncatingIfNeeded: state >> 56)
                }
                hasher.update(data: chunk)
                try output.write(contentsOf: chunk)
            }
            try output.close()
            let sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            try await store.archive.storeImage(
                photoID: "big", variant: .regular, contentType: "image/jpeg", fileURL: file,
                byteCount: Int64(imageBytes), sha256: sha256, fetchedAt: Date())
            try FileManager.default.removeItem(at: file)
            return sha256
        }

        /// A process's resident memory now and its peak so far (`VmRSS`, `VmHWM`), in bytes.
        static func memory(of pid: Int32) throws -> (resident: Int, peak: Int) {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            func kibibytes(_ field: String) -> Int {
                let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
                return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) << 10
            }
            return (kibibytes("VmRSS"), kibibytes("VmHWM"))
        }

        static func sha256(of file: URL) throws -> String {
            let input = try FileHandle(forReadingFrom: file)
            defer { try? input.close() }
            var hasher = SHA256()
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
            }
            return hasher.finalize().map { String(format: "%02x", $0) }.joined()
        }
    }
}
