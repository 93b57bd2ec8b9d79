import Foundation

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// Runs `body` with a new, empty directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PhotoStoreTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a store freshly created in a temporary directory.
func withStore<T>(_ body: (PhotoStore, URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        let store = try PhotoStore(path: directory.appendingPathComponent("photos.sqlite").path)
        return try await body(store, directory)
    }
}

/// Fixed instants, whole seconds, so they survive the store's millisecond precision.
enum Instant {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static func t(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
}

enum Sample {
    static let variant = ImageVariant.regular

    static func imageURL(_ id: String, variant: ImageVariant = variant, revision: Int = 0) -> String {
        "https://images.example.com/\(id)-\(variant)?r=\(revision)"
    }

    /// A cursor as the sync stores it: path and query, relative to the API.
    static func pageURL(_ page: Int) -> URL {
        URL(string: "/photos?page=\(page)&per_page=30")!
    }

    /// A photo whose JSON carries the `urls` of `variants`, the way Unsplash's does.
    static func photo(
        _ id: String,
        likes: Int = 1,
        width: Int = 4000,
        revision: Int = 0,
        variants: [ImageVariant] = [.raw, .regular, .small],
        downloadLocation: Bool = true
    ) -> PhotoRecord {
        let urls = variants.map { "\"\($0)\": \"\(imageURL(id, variant: $0, revision: revision))\"" }
        let location = downloadLocation ? "https://api.example.com/photos/\(id)/download" : nil
        let json = """
            {"id": "\(id)", "likes": \(likes), "urls": {\(urls.joined(separator: ", "))},
             "links": {"download_location": \(location.map { "\"\($0)\"" } ?? "null")}}
            """
        return PhotoRecord(
            id: id,
            createdAt: Instant.t(-86_400),
            updatedAt: Instant.t(-3_600),
            width: width,
            height: 3000,
            color: "#0c2626",
            blurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            description: "photo \(id)",
            altDescription: "alt \(id)",
            userUsername: "user-\(id)",
            userName: "User \(id)",
            likes: likes,
            isSponsored: false,
            imageURL: variants.contains(variant) ? imageURL(id, revision: revision) : nil,
            downloadLocation: location,
            json: Data(json.utf8))
    }

    /// Deterministic bytes that do not compress into a pattern a bug could hide behind.
    static func bytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return Data(bytes)
    }

    static let sha256 = String(repeating: "ab", count: 32)
}

extension PhotoStore {
    /// Commits `photos` as a backfill page at `now`.
    @discardableResult
    func commit(_ photos: [PhotoRecord], next: Int? = 2, now: Date = Instant.t0) async throws -> PageCommit {
        try await ledger.commitPage(photos, variant: Sample.variant, source: .feed, now: now) { _ in
            .backfill(next: next.map(Sample.pageURL))
        }
    }

    @discardableResult
    func storeSample(_ photoID: String, variant: ImageVariant = Sample.variant, data: Data = Data("jpeg".utf8))
        async throws -> Bool
    {
        try await archive.storeImage(
            photoID: photoID, variant: variant, contentType: "image/jpeg", data: data,
            sha256: Sample.sha256, fetchedAt: Instant.t(10))
    }

    /// The rows `body` inserted, updated or deleted, counting those its triggers changed.
    func totalChanges(_ body: () async throws -> Void) async throws -> Int {
        let before = try await pool.write { $0.totalChangesCount }
        try await body()
        return try await pool.write { $0.totalChangesCount } - before
    }

    /// The SQLite implementations behind the parts, for tests of what only they have.
    var sqliteCatalog: SQLitePhotoCatalog { catalog as! SQLitePhotoCatalog }
    var sqliteStorage: SQLiteStorage { storage as! SQLiteStorage }
}

func posixPermissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
