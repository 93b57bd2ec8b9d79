import Basics
import Crypto
import Foundation
import PhotoStore
import PhotosyncModel
import Synchronization

/// Fixed instants, whole seconds, so they survive either store's precision (SQLite keeps
/// milliseconds, PostgreSQL microseconds).
public enum Instant {
    public static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    public static func t(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
}

/// The store tests' one set of photos, cursors and bytes.
public enum Sample {
    /// The variant the store tests sync.
    public static let variant = ImageVariant.regular

    public static func imageURL(_ id: String, variant: ImageVariant = variant, revision: Int = 0) -> String {
        "https://images.example.com/\(id)-\(variant)?r=\(revision)"
    }

    /// A cursor as the sync stores it: path and query, relative to the API.
    public static func pageURL(_ page: Int) -> URL {
        URL(string: "/photos?page=\(page)&per_page=30")!
    }

    /// A photo as a page lists it, whose JSON carries the `urls` of `variants` and the download
    /// link, the way Unsplash's does.
    public static func photo(
        _ id: String,
        likes: Int = 1,
        width: Int = 4000,
        revision: Int = 0,
        variants: [ImageVariant] = [.raw, .regular, .small],
        downloadLocation: Bool = true,
        isPlus: Bool = false
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
            isPlus: isPlus,
            json: Data(json.utf8))
    }

    /// A photo with the columns listings order and filter by, created `created` seconds after
    /// ``Instant/t0`` (undated when nil), with no download link.
    public static func photo(
        _ id: String, created: TimeInterval?, likes: Int? = 1, width: Int = 4000, height: Int = 3000,
        color: String = "#0c2626", description: String? = nil, username: String? = nil, json: String? = nil
    ) -> PhotoRecord {
        let json = json ?? #"{"id": "\#(id)", "urls": {"regular": "https://images.example.com/\#(id)"}}"#
        return PhotoRecord(
            id: id, createdAt: created.map(Instant.t), updatedAt: nil, width: width, height: height, color: color,
            blurHash: nil, description: description, altDescription: nil, userUsername: username ?? "user-\(id)",
            userName: "User \(id)", likes: likes, isSponsored: false, imageURL: "https://images.example.com/\(id)",
            downloadLocation: nil, isPlus: false, json: Data(json.utf8))
    }

    /// Deterministic bytes that do not compress into a pattern a bug could hide behind.
    public static func bytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return Data(bytes)
    }

    public static let sha256 = String(repeating: "ab", count: 32)
}

extension SyncLedger {
    /// Commits `photos` as a backfill page of `source` at `now`, leaving `next` as the cursor.
    @discardableResult
    public func commit(
        _ photos: [PhotoRecord], next: Int? = 2, source: PhotoSource = .feed, now: Date = Instant.t0
    ) async throws -> PageCommit {
        try await commitPage(photos, variant: Sample.variant, source: source, now: now) { _ in
            .backfill(next: next.map(Sample.pageURL))
        }
    }
}

extension ImageArchive {
    /// Stores `data` as the image of `photoID`, fetched at `fetchedAt`.
    @discardableResult
    public func storeSample(
        _ photoID: String, variant: ImageVariant = Sample.variant, data: Data = Data("jpeg".utf8),
        fetchedAt: Date = Instant.t(10)
    ) async throws -> Bool {
        try await storeImage(
            photoID: photoID, variant: variant, contentType: "image/jpeg", data: data,
            sha256: Sample.sha256, fetchedAt: fetchedAt)
    }
}

/// A clock a test moves by hand, read as a date, as an instant of the continuous clock, or as
/// the time since it started.
public final class ManualClock: Sendable {
    private let elapsed = Mutex(Duration.zero)
    private let startDate: Date
    private let startInstant = ContinuousClock.now

    public init(startingAt date: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        startDate = date
    }

    /// The date the clock started at.
    public var start: Date { startDate }
    /// How far the clock was moved.
    public var offset: Duration { elapsed.withLock { $0 } }
    public var now: Date {
        let (seconds, attoseconds) = offset.components
        return startDate.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
    public var instant: ContinuousClock.Instant { startInstant + offset }

    public func advance(_ span: Duration) { elapsed.withLock { $0 += span } }
    public func advance(by seconds: TimeInterval) { advance(.milliseconds(Int64((seconds * 1_000).rounded()))) }
}

extension Sample {
    /// Three photos the search tests look for: a lake, a city (with a location and tags in its
    /// JSON) and a forest, each saying "mountain" in its own way.
    public static func searchPhotos() -> [PhotoRecord] {
        var lake = Sample.photo("lake", likes: 1)
        lake.description = "A quiet mountain lake at dawn"
        lake.altDescription = "calm water under mountains"
        lake.userName = "Ann Lee"
        var city = Sample.photo("city", likes: 2)
        city.description = "City lights at night, mountain of glass"
        city.altDescription = nil
        city.userName = "Bob Stone"
        city.json = Data(
            #"{"id":"city","location":{"name":"Zürich, Schweiz","city":"Zürich","country":"Schweiz"},"tags":[{"title":"skyline"},{"title":"neon"}]}"#
                .utf8)
        var forest = Sample.photo("forest", likes: 3)
        forest.description = "Mountains mountains mountains"
        forest.userName = "Cy Fern"
        return [lake, city, forest]
    }

    /// Six photos stored in this order (p0 first): p1, p3 and p5 mention "mountain" three
    /// times, the others once; "lake" is in p2 alone.
    public static func rankedSearchPhotos() -> [PhotoRecord] {
        (0..<6).map { index in
            var photo = Sample.photo("p\(index)")
            photo.description =
                index % 2 == 1 ? "mountain mountain mountain" : "a mountain" + (index == 2 ? " lake" : "")
            photo.altDescription = nil
            return photo
        }
    }
}

extension Sample {
    /// The hex SHA-256 of `data`, as a stored image's record keeps it.
    public static func sha256(_ data: Data) -> String {
        Hex.string(SHA256.hash(data: data))
    }

    /// `data` as the JPEG image `variant` of photo `id`, fetched at `fetchedAt`, under its true
    /// SHA-256: what a fetcher hands the archive.
    public static func image(
        _ id: String, variant: ImageVariant = variant, data: Data, fetchedAt: Date = Instant.t0
    ) -> ImageToStore {
        ImageToStore(
            photoID: id, variant: variant, contentType: "image/jpeg", bytes: .data(data), sha256: sha256(data),
            fetchedAt: fetchedAt)
    }

    /// Commits photos a, b and c, and stores each one's image under its true SHA-256: a's of
    /// 1,000 bytes, b's of 2,000, c's of `largest` (larger than a driver's chunk, so that
    /// hashing crosses chunk boundaries).
    public static func storeThree(_ store: PhotoStore, largest: Int) async throws {
        try await store.ledger.commit([photo("a"), photo("b"), photo("c")])
        for (id, count) in [("a", 1000), ("b", 2000), ("c", largest)] {
            let data = bytes(count: count, seed: UInt64(count))
            try await store.archive.storeImage(
                photoID: id, variant: variant, contentType: "image/jpeg", data: data, sha256: sha256(data),
                fetchedAt: Instant.t(10))
        }
    }
}
