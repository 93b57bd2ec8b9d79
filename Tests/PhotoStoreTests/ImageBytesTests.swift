import Foundation
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Image bytes")
struct ImageBytesTests {
    let variant = Sample.variant

    @Test("an image streamed from a file of a few MB round-trips byte for byte")
    func fileRoundTrip() async throws {
        try await withStore { store, directory in
            try await store.commit([Sample.photo("a")])
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

    @Test("chunks hand out an image in order, and end early when its row changes under them")
    func chunksReadInShortReadsAndStopOnAChange() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a"), Sample.photo("b")])
            let bytes = Sample.bytes(count: 10_000)
            for id in ["a", "b"] {
                try await store.archive.storeImage(
                    photoID: id, variant: variant, contentType: "image/jpeg", data: bytes, sha256: Sample.sha256,
                    fetchedAt: Instant.t(10))
            }
            let a = try #require(try await store.archive.storedImage(photoID: "a", variant: variant))
            var whole = Data()
            var sizes: [Int] = []
            for try await chunk in store.archive.chunks(of: a, photoID: "a", chunkSize: 4_096) {
                whole += chunk
                sizes.append(chunk.count)
            }
            #expect(whole == bytes)
            #expect(sizes == [4_096, 4_096, 1_808])

            // WHEN the row of b changes after its first chunk
            let b = try #require(try await store.archive.storedImage(photoID: "b", variant: variant))
            var chunks = store.archive.chunks(of: b, photoID: "b", chunkSize: 4_096).makeAsyncIterator()
            #expect(try await chunks.next()?.count == 4_096)
            try await store.pool.write { db in
                try db.execute(
                    sql: "UPDATE image SET sha256 = ? WHERE photo_id = 'b'",
                    arguments: [String(repeating: "cd", count: 32)])
            }
            // THEN the stream ends rather than mixing in other bytes
            #expect(try await chunks.next() == nil)
        }
    }

    @Test("a file whose size differs from the announced one stores nothing")
    func sizeMismatch() async throws {
        try await withStore { store, directory in
            try await store.commit([Sample.photo("a")])
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

    @Test("an empty image is stored and read back empty")
    func emptyImage() async throws {
        try await withStore { store, directory in
            try await store.commit([Sample.photo("a")])
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

    @Test("with no stored image, reading returns nil and creates no file")
    func noStoredImage() async throws {
        try await withStore { store, directory in
            try await store.commit([Sample.photo("a")])
            try await store.storeSample("a", variant: variant)
            let destination = directory.appendingPathComponent("out.jpg")

            #expect(try await store.archive.writeImage(photoID: "a", variant: .small, to: destination) == nil)
            #expect(try await store.archive.writeImage(photoID: "zz", variant: nil, to: destination) == nil)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(try await store.archive.imageData(photoID: "a", variant: .small) == nil)
            #expect(try await store.catalog.photo(id: "a", variant: .small)?.image == nil)
        }
    }

    @Test("without a variant, the most recently fetched stored variant is read")
    func anyVariant() async throws {
        try await withStore { store, _ in
            try await store.commit([Sample.photo("a")])
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
