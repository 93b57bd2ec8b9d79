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
