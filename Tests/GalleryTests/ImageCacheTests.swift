import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

@testable import Gallery

/// `/images` answers a hot image from memory (``ImageCache``), and never longer than a second
/// after the store stopped holding it.
@Suite(.timeLimit(.minutes(5))) struct ImageCacheTests {
    static let bytes = ImageRangeTests.noise(70_000)

    /// A gallery serving ``bytes`` as photo `a`'s regular image, its images kept with `clock`'s
    /// time; `body` gets the fixture (its writer), a client and the ETag.
    static func serving(
        clock: ManualClock, budget: Int = 64 << 20,
        _ body: @escaping @Sendable (GalleryFixture, any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)])
        let etag = "\"\(try await fixture.storeImage("a", bytes: bytes))\""
        let gallery = Gallery(
            store: try PhotoStore.openExisting(path: fixture.path), pageSize: 30, sources: nil,
            mirror: MirrorConfiguration(), templates: GalleryTemplates.shared,
            images: ImageCache(budget: budget, now: { clock.instant }))
        try await fixture.serve(gallery) { client in try await body(fixture, client, etag) }
    }

    @Test func anImageSentWholeIsSentFromMemoryUntilTheStoreNoLongerHoldsIt() async throws {
        let clock = ManualClock()
        try await Self.serving(clock: clock) { fixture, client, etag in
            let uri = "/images/a?variant=regular"
            let first = try await client.execute(uri: uri, method: .get)
            #expect(first.status == .ok && Data(buffer: first.body) == Self.bytes)
            // The store lets the image go: for the second after the store last said it held
            // it, the bytes in memory answer, a range as a slice of them.
            #expect(try await fixture.writer.archive.prune(toFit: 0).map(\.photoID) == ["a"])

            let again = try await client.execute(uri: uri, method: .get)
            let range = try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-199"])

            #expect(again.status == .ok && Data(buffer: again.body) == Self.bytes)
            #expect(again.headers[.eTag] == etag && again.headers[.contentLength] == "70000")
            #expect(range.status == .partialContent && Data(buffer: range.body) == Self.bytes[100..<200])
            #expect(range.headers[.contentRange] == "bytes 100-199/70000")
            // Past the second the store is asked again, and the image is gone, from memory too.
            clock.advance(.milliseconds(1_001))
            #expect(try await client.execute(uri: uri, method: .get).status == .notFound)
        }
    }

    @Test func theLatestVariantIsAskedForAgainAfterASecondAndANewerOneAnswers() async throws {
        let clock = ManualClock()
        try await Self.serving(clock: clock) { fixture, client, etag in
            #expect(try await client.execute(uri: "/images/a", method: .get).headers[.eTag] == etag)
            let small = ImageRangeTests.noise(1_000, seed: 7)
            _ = try await fixture.writer.imageQueue.enqueueMissingImages(variant: .small)
            let newer = try await fixture.storeImage(
                "a", variant: .small, bytes: small, fetchedAt: Date(timeIntervalSince1970: 1_700_000_200))

            #expect(try await client.execute(uri: "/images/a", method: .get).headers[.eTag] == etag)
            clock.advance(.seconds(2))
            let latest = try await client.execute(uri: "/images/a", method: .get)

            #expect(latest.headers[.eTag] == "\"\(newer)\"" && Data(buffer: latest.body) == small)
        }
    }

    @Test func aRangeAloneKeepsNoBytesAndAWholeImageOverTheBudgetIsStreamed() async throws {
        let clock = ManualClock()
        try await Self.serving(clock: clock, budget: 50_000) { fixture, client, _ in
            let uri = "/images/a?variant=regular"
            #expect(
                try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-9"]).status
                    == .partialContent)
            #expect(try await client.execute(uri: uri, method: .get).status == .ok)
            try await fixture.writer.archive.prune(toFit: 0)

            // Neither kept the bytes: with the store's gone, the answer is cut short (the
            // connection closed, or fewer bytes than the image's).
            let whole = try? await client.execute(uri: uri, method: .get)
            #expect(whole.map { Data(buffer: $0.body) } != Self.bytes)
        }
    }

    @Test func pastTheBudgetTheImageUsedLongestAgoLetsGoOfItsBytes() async throws {
        let clock = ManualClock()
        let cache = ImageCache(budget: 100, largest: 60, now: { clock.instant })
        func image(_ sha256: String, _ count: Int) -> StoredImage {
            StoredImage(
                variant: .regular, contentType: "image/jpeg", byteCount: Int64(count), sha256: sha256,
                fetchedAt: Date(timeIntervalSince1970: 0))
        }
        @discardableResult
        func use(_ id: String, _ image: StoredImage, keeping: Bool = false) async throws -> ImageCache.Kept? {
            let kept = try await cache.image(photoID: id, variant: .regular) { () async throws(StoreError) in image }
            if keeping {
                cache.keep(
                    ByteBuffer(repeating: 1, count: Int(image.byteCount)), of: image, photoID: id, variant: .regular)
            }
            return kept
        }
        let (a, b, d) = (image("a", 60), image("b", 40), image("d", 30))
        try await use("a", a, keeping: true)
        try await use("b", b, keeping: true)
        #expect(cache.bytesKept == 100)

        try await use("a", a)
        try await use("d", d, keeping: true)

        #expect(cache.bytesKept == 90, "b, used longest ago, made room for d")
        #expect(try await use("b", b)?.bytes == nil)
        #expect(try await use("a", a)?.bytes?.readableBytes == 60)
        #expect(!cache.keeps(image("c", 61)) && cache.keeps(a))
    }
}
