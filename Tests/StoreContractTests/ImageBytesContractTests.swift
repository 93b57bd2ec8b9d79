import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Image bytes, on every store")
struct ImageBytesContractTests {
    let variant = Sample.variant

    @Test("an image streamed from a file of a few MB round-trips byte for byte", arguments: Backend.allCases)
    func fileRoundTrip(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("a")])
            // Not a multiple of the 1 MiB chunk, so the last partial chunk is exercised.
            let bytes = Sample.bytes(count: 3 * 1_048_576 + 12_345)
            let source = directory.appendingPathComponent("download.tmp")
            try bytes.write(to: source)

            let stored = try await store.archive.storeImage(
                photoID: "a", variant: variant, contentType: "image/jpeg", fileURL: source,
                byteCount: Int64(bytes.count), sha256: Sample.sha256, fetchedAt: Instant.t(10))

            #expect(stored)
            let destination = directory.appendingPathComponent("out.jpg")
            try Data("previous, longer content that must be truncated".utf8).write(to: destination)
            #expect(
                try await store.archive.writeImage(photoID: "a", variant: variant, to: destination)
                    == Int64(bytes.count))
            #expect(try Data(contentsOf: destination) == bytes)
            #expect(try await store.archive.imageData(photoID: "a", variant: nil) == bytes)
            #expect(
                try await store.catalog.photo(id: "a")?.image
                    == StoredImage(
                        variant: variant, contentType: "image/jpeg", byteCount: Int64(bytes.count),
                        sha256: Sample.sha256, fetchedAt: Instant.t(10)))
            #expect(try await store.catalog.statistics().bytesStored == Int64(bytes.count))
        }
    }

    @Test("a file whose size differs from the announced one stores nothing", arguments: Backend.allCases)
    func sizeMismatch(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("a")])
            let source = directory.appendingPathComponent("download.tmp")
            try Sample.bytes(count: 10).write(to: source)

            await #expect(throws: StoreError.imageSizeMismatch(file: source.path, expected: 11, actual: 10)) {
                try await store.archive.storeImage(
                    photoID: "a", variant: variant, contentType: "image/jpeg", fileURL: source,
                    byteCount: 11, sha256: Sample.sha256, fetchedAt: Instant.t(10))
            }

            #expect(try await store.archive.imageData(photoID: "a", variant: variant) == nil)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [variant], now: Instant.t0, limit: 10).map(\.photoID)
                    == ["a"])
        }
    }

    @Test("an empty image is stored and read back empty", arguments: Backend.allCases)
    func emptyImage(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("a")])
            let source = directory.appendingPathComponent("empty.tmp")
            try Data().write(to: source)

            #expect(
                try await store.archive.storeImage(
                    photoID: "a", variant: variant, contentType: "image/jpeg", fileURL: source,
                    byteCount: 0, sha256: Sample.sha256, fetchedAt: Instant.t(10)))

            let destination = directory.appendingPathComponent("out.jpg")
            #expect(try await store.archive.writeImage(photoID: "a", variant: nil, to: destination) == 0)
            #expect(try Data(contentsOf: destination).isEmpty)
        }
    }

    @Test("with no stored image, reading returns nil and creates no file", arguments: Backend.allCases)
    func noStoredImage(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("a")])
            try await store.archive.storeSample("a", variant: variant)
            let destination = directory.appendingPathComponent("out.jpg")

            #expect(try await store.archive.writeImage(photoID: "a", variant: .small, to: destination) == nil)
            #expect(try await store.archive.writeImage(photoID: "zz", variant: nil, to: destination) == nil)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(try await store.archive.imageData(photoID: "a", variant: .small) == nil)
            #expect(try await store.catalog.photo(id: "a", variant: .small)?.image == nil)
        }
    }

    @Test("without a variant, the most recently fetched stored variant is read", arguments: Backend.allCases)
    func anyVariant(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")])
            try await store.imageQueue.enqueueMissingImages(variant: .small)
            try await store.archive.storeImage(
                photoID: "a", variant: .small, contentType: "image/jpeg", data: Data("small".utf8),
                sha256: Sample.sha256, fetchedAt: Instant.t(10))
            try await store.archive.storeImage(
                photoID: "a", variant: variant, contentType: "image/jpeg", data: Data("regular".utf8),
                sha256: Sample.sha256, fetchedAt: Instant.t(20))

            #expect(try await store.archive.imageData(photoID: "a", variant: nil) == Data("regular".utf8))
            #expect(try await store.archive.imageData(photoID: "a", variant: .small) == Data("small".utf8))
            #expect(try await store.catalog.photo(id: "a")?.image?.variant == variant)
            #expect(try await store.catalog.statistics().imagesStored == 2)
        }
    }
}

@Suite("A range of an image's bytes, on every store")
struct ImageRangeContractTests {
    /// Two MiB and a bit: over PostgreSQL's 1 MiB chunk rows and into a third.
    static let bytes = Sample.bytes(count: 2 * 1_048_576 + 4_321)

    /// Stores ``bytes`` as photo `a`'s image from a file, as a download is; returns its metadata.
    static func storeImage(_ store: PhotoStore, in directory: URL) async throws -> StoredImage {
        try await store.ledger.commit([Sample.photo("a")])
        let source = directory.appendingPathComponent("download.tmp")
        try bytes.write(to: source)
        try await store.archive.storeImage(
            photoID: "a", variant: Sample.variant, contentType: "image/jpeg", fileURL: source,
            byteCount: Int64(bytes.count), sha256: Sample.sha256, fetchedAt: Instant.t(10))
        return try #require(try await store.archive.storedImage(photoID: "a", variant: Sample.variant))
    }

    /// The ranges read, and what each is once clamped to the image.
    static let ranges: [(Range<Int64>, Range<Int64>)] = [
        // Starting and ending inside one chunk row, then across the first rows' boundary
        (1_000..<1_001, 1_000..<1_001), (1_048_000..<1_049_000, 1_048_000..<1_049_000),
        // Exactly the second row; from inside the first to inside the third
        (1_048_576..<2_097_152, 1_048_576..<2_097_152), (777..<2_100_000, 777..<2_100_000),
        // To the end, and past it: clamped
        (2_097_000..<2_101_473, 2_097_000..<2_101_473), (2_097_000..<9_999_999, 2_097_000..<2_101_473),
        (5..<5, 5..<5), (3_000_000..<3_000_010, 2_101_473..<2_101_473),
    ]

    @Test("a range read from inside a chunk is exactly those bytes", arguments: Backend.allCases)
    func aRangeIsExactlyItsBytes(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            let image = try await Self.storeImage(store, in: directory)
            for (range, clamped) in Self.ranges {
                // Reads of 1,000 bytes, none of them aligned on a chunk row
                let chunks = store.archive.chunks(of: image, photoID: "a", chunkSize: 1_000).bytes(in: range)
                var received = Data()
                for try await chunk in chunks {
                    #expect(chunk.count <= 1_000)
                    received.append(chunk)
                }
                #expect(chunks.range == clamped, "\(range)")
                #expect(chunks.byteCount == Int64(clamped.count), "\(range)")
                // Compared as one Bool: Swift Testing's difference of two large values does not end.
                let expected = Self.bytes[Int(clamped.lowerBound)..<Int(clamped.upperBound)]
                #expect(Bool(received == expected), "\(range): \(received.count) bytes")
            }
        }
    }

    @Test("a range of an image pruned under it ends early, short of its byte count", arguments: Backend.allCases)
    func aRangeEndsEarlyWhenItsImageGoes(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            let image = try await Self.storeImage(store, in: directory)
            let chunks = store.archive.chunks(of: image, photoID: "a", chunkSize: 100_000).bytes(
                in: 1_000_000..<1_500_000)
            var iterator = chunks.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(Bool(first == Self.bytes[1_000_000..<1_100_000]), "the range's first chunk")

            // WHEN the image is pruned after the first chunk
            #expect(try await store.archive.prune(toFit: 0).map(\.photoID) == ["a"])

            // THEN the range ends rather than sending other bytes, short of what was expected
            #expect(try await iterator.next() == nil)
            #expect(chunks.byteCount == 500_000)
        }
    }
}
