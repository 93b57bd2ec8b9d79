import Crypto
import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import Logging
import PhotoStore
import PhotoStoreSQLite

/// A photosync database in a temporary directory, written through the store's own API as the
/// sync writes it, and the gallery reading it through a read-only connection as `serve` does.
struct GalleryFixture {
    let directory: URL
    let writer: PhotoStore
    var path: String { directory.appending(path: "photosync.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "GalleryTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        writer = try PhotoStore(path: directory.appending(path: "photosync.sqlite").path)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Stores `photos` as one page, each with a job for `variant`.
    func commit(_ photos: [PhotoRecord], variant: ImageVariant = .regular) async throws {
        try await writer.ledger.commitPage(
            photos, variant: variant, source: .feed, now: Date(timeIntervalSince1970: 1_700_000_000)
        ) { _ in .backfill(next: nil) }
    }

    /// Stores `bytes` as the `variant` image of `photoID`; returns their SHA-256.
    @discardableResult
    func storeImage(
        _ photoID: String, variant: ImageVariant = .regular, bytes: Data, contentType: String = "image/jpeg",
        fetchedAt: Date = Date(timeIntervalSince1970: 1_700_000_100)
    ) async throws -> String {
        let sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        try await writer.archive.storeImage(
            photoID: photoID, variant: variant, contentType: contentType, data: bytes, sha256: sha256,
            fetchedAt: fetchedAt)
        return sha256
    }

    /// Runs `body` with a client of the gallery served over real HTTP on a loopback port.
    func serve(pageSize: Int = 30, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void)
        async throws
    {
        try await serve(Gallery(store: try PhotoStore.openExisting(path: path), pageSize: pageSize), body)
    }

    /// Runs `body` with a client of `gallery` served over real HTTP on a loopback port, logging
    /// to `logger` (warnings and worse to nowhere by default).
    func serve(
        _ gallery: Gallery, logger: Logger? = nil,
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var quiet = Logger(label: "GalleryTests")
        quiet.logLevel = .warning
        try await gallery.application(host: "127.0.0.1", port: 0, logger: logger ?? quiet).test(.live) { client in
            try await body(client)
        }
    }
}

enum Sample {
    /// A photo `id` created `day` days after 2024-01-01, with its `regular` and `small` URLs.
    static func photo(
        _ id: String, day: Int, description: String? = nil, username: String = "ann", name: String = "Ann Example",
        color: String = "#0c2626", altDescription: String? = nil, json extra: String = ""
    ) -> PhotoRecord {
        let json = """
            {"id": "\(id)", "urls": {"regular": "https://images.example.com/\(id)?w=1080", "small": "https://images.example.com/\(id)?w=400"},
             "user": {"username": "\(username)"}\(extra)}
            """
        return PhotoRecord(
            id: id, createdAt: Date(timeIntervalSince1970: 1_704_067_200 + Double(day) * 86_400), width: 4000,
            height: 3000, color: color, description: description,
            altDescription: altDescription ?? "alt text of \(id)", userUsername: username, userName: name,
            likes: day, imageURL: "https://images.example.com/\(id)", json: Data(json.utf8))
    }

    /// Bytes that start like a JPEG; `count` of them.
    static func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        Data([0xFF, 0xD8, 0xFF] + (0..<max(0, count - 3)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
}
