import Foundation
import PhotoStore
import TestSupport
import Testing

/// The archive's edges (``ImageArchive``): several variants of a photo, pruned images, empty
/// and repeated images, batches with failures, files that cannot be written, on every store.
@Suite("The image archive's edges, on every store")
struct ArchiveEdgeContractTests {
    /// An image of `count` bytes for `variant` of `id`, fetched `at` seconds after t0.
    static func image(_ id: String, _ variant: ImageVariant, bytes count: Int, at seconds: TimeInterval) -> ImageToStore
    {
        Sample.image(
            id, variant: variant, data: Sample.bytes(count: count, seed: UInt64(count) &+ UInt64(seconds)),
            fetchedAt: Instant.t(seconds))
    }

    @Test(
        "a photo's stored variants come smallest first, equal sizes by name; pruned and unknown ones are absent",
        arguments: Backend.allCases)
    func storedVariantsSmallestFirst(_ backend: Backend) async throws {
        try await backend.withStore { ledger, queue, archive in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            for variant in [ImageVariant.raw, .small] { try await queue.enqueueMissingImages(variant: variant) }
            try await archive.storeImages([
                Self.image("b", .regular, bytes: 10, at: 0), Self.image("a", .small, bytes: 30, at: 1),
                Self.image("a", .raw, bytes: 50, at: 2), Self.image("a", .regular, bytes: 50, at: 3),
            ])
            let images = try await archive.storedImages(photoIDs: ["a", "b", "zz"])
            #expect(images.mapValues { $0.map(\.variant) } == ["a": [.small, .raw, .regular], "b": [.regular]])
            #expect(images["a"]?.map(\.byteCount) == [30, 50, 50])
            #expect(images["a"]?.first?.fetchedAt == Instant.t(1))
            #expect(try await archive.storedImages(photoIDs: []).isEmpty)

            #expect(try await archive.prune(toFit: 60).map(\.photoID) == ["b", "a", "a"])
            #expect(
                try await archive.storedImages(photoIDs: ["a", "b"]).mapValues { $0.map(\.variant) } == [
                    "a": [.regular]
                ])
        }
    }

    @Test(
        "a pruned image is found by its variant or as the newest pruned one, and is no stored image",
        arguments: Backend.allCases)
    func prunedImagesAreFound(_ backend: Backend) async throws {
        try await backend.withStore { ledger, queue, archive in
            try await ledger.commit([Sample.photo("a")])
            for variant in [ImageVariant.raw, .small] { try await queue.enqueueMissingImages(variant: variant) }
            try await archive.storeImages([
                Self.image("a", .small, bytes: 10, at: 5), Self.image("a", .raw, bytes: 20, at: 1),
                Self.image("a", .regular, bytes: 30, at: 9),
            ])
            #expect(try await archive.prune(toFit: 30).map(\.variant) == [.raw, .small])

            #expect(try await archive.prunedImage(photoID: "a", variant: nil)?.variant == .small, "fetched last")
            #expect(try await archive.prunedImage(photoID: "a", variant: .raw)?.byteCount == 20)
            #expect(try await archive.prunedImage(photoID: "a", variant: .regular) == nil, "it is stored")
            #expect(try await archive.prunedImage(photoID: "zz", variant: nil) == nil)
            #expect(try await archive.storedImage(photoID: "a", variant: .small) == nil)
            #expect(try await archive.storedImage(photoID: "a", variant: nil)?.variant == .regular)
            #expect(try await archive.imageData(photoID: "a", variant: .raw) == nil)
        }
    }

    @Test(
        "pruning frees the images fetched longest ago whatever order they were stored in, and says so",
        arguments: Backend.allCases)
    func pruneInFetchOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await store.archive.prune(toFit: 0).isEmpty, "nothing stored: nothing pruned")
            #expect(try await store.archive.storedBytes() == 0)
            try await store.ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
            // Stored a, b, c, but fetched c first, then a, then b.
            try await store.archive.storeImages([Self.image("a", Sample.variant, bytes: 100, at: 20)])
            try await store.archive.storeImages([Self.image("b", Sample.variant, bytes: 200, at: 30)])
            try await store.archive.storeImages([Self.image("c", Sample.variant, bytes: 300, at: 10)])

            #expect(try await store.archive.prune(toFit: 600).isEmpty, "it fits exactly")
            let pruned = try await store.archive.prune(toFit: 0)
            #expect(
                pruned == [
                    PrunedImage(photoID: "c", variant: Sample.variant, byteCount: 300),
                    PrunedImage(photoID: "a", variant: Sample.variant, byteCount: 100),
                    PrunedImage(photoID: "b", variant: Sample.variant, byteCount: 200),
                ])
            #expect(try await store.archive.storedBytes() == 0)
            let statistics = try await store.catalog.statistics()
            #expect(statistics.bytesPruned == 600 && statistics.bytesStored == 0 && statistics.imagesPruned == 3)
        }
    }

    @Test(
        "the same image twice in one batch is stored once: the second is reported already stored",
        arguments: Backend.allCases)
    func aRepeatInOneBatch(_ backend: Backend) async throws {
        try await backend.withStore { ledger, _, archive in
            try await ledger.commit([Sample.photo("a")])
            let first = Self.image("a", Sample.variant, bytes: 64, at: 1)
            let second = Self.image("a", Sample.variant, bytes: 65, at: 2)
            #expect(try await archive.storeImages([first, second]) == [true, false])
            #expect(try await archive.storedImage(photoID: "a", variant: nil)?.byteCount == 64)
            #expect(try await archive.storedBytes() == 64)
        }
    }

    @Test("a batch stores its images and records its failures together", arguments: Backend.allCases)
    func aBatchWithFailures(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
            let stored = try await store.archive.storeImages(
                [Self.image("a", Sample.variant, bytes: 8, at: 1)],
                failures: [
                    ImageAttemptFailure(photoID: "b", variant: Sample.variant, error: "503", retryAt: Instant.t(60)),
                    ImageAttemptFailure(photoID: "c", variant: Sample.variant, error: "410", retryAt: nil),
                ])
            #expect(stored == [true])
            #expect(
                try await store.imageQueue.imageCounts(variants: [Sample.variant])
                    == ImageCounts(stored: 1, pending: 1, failed: 1, retrying: 1, nextRetryAt: Instant.t(60)))
            #expect(try await store.imageQueue.failedImages(limit: 5).map(\.lastError) == ["410"])
            await #expect(throws: StoreError.unknownImageJob(path: store.path, photoID: "zz", variant: Sample.variant))
            {
                try await store.archive.storeImages(
                    [],
                    failures: [ImageAttemptFailure(photoID: "zz", variant: Sample.variant, error: "x", retryAt: nil)])
            }
        }
    }

    @Test("an empty image reads back empty in memory and streams no chunk", arguments: Backend.allCases)
    func anEmptyImageInMemory(_ backend: Backend) async throws {
        try await backend.withStore { ledger, _, archive in
            try await ledger.commit([Sample.photo("a")])
            #expect(
                try await archive.storeImage(
                    photoID: "a", variant: Sample.variant, contentType: "image/jpeg", data: Data(),
                    sha256: Sample.sha256(Data()), fetchedAt: Instant.t(1)))
            #expect(try await archive.imageData(photoID: "a", variant: nil) == Data())
            let image = try #require(try await archive.storedImage(photoID: "a", variant: Sample.variant))
            #expect(image.byteCount == 0)
            var chunks = 0
            for try await _ in archive.chunks(of: image, photoID: "a") { chunks += 1 }
            #expect(chunks == 0)
            #expect(try await archive.verify().problems.isEmpty)
        }
    }

    @Test(
        "an image that cannot be written where asked is refused as such; a photo without one writes nothing",
        arguments: Backend.allCases)
    func anUnwritableDestination(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            try await store.archive.storeSample("a")
            let nowhere = directory.appendingPathComponent("missing/folder/a.jpg")
            do {
                _ = try await store.archive.writeImage(photoID: "a", variant: nil, to: nowhere)
                Issue.record("a file in a missing folder was written")
            } catch let error as StoreError {
                guard case .cannotWriteImageFile(let file, _) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(file == nowhere.path)
            }
            #expect(try await store.archive.writeImage(photoID: "b", variant: nil, to: nowhere) == nil)
        }
    }

    @Test("a stream of chunks ends early when its image's row changes under it", arguments: Backend.allCases)
    func chunksEndWhenTheRowChanges(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let bytes = Sample.bytes(count: 10_000)
            for id in ["a", "b"] { try await store.archive.storeSample(id, data: bytes) }
            let a = try #require(try await store.archive.storedImage(photoID: "a", variant: Sample.variant))
            var whole = Data()
            var sizes: [Int] = []
            for try await chunk in store.archive.chunks(of: a, photoID: "a", chunkSize: 4_096) {
                whole += chunk
                sizes.append(chunk.count)
            }
            #expect(whole == bytes)
            #expect(sizes == [4_096, 4_096, 1_808])

            // WHEN the row of b changes after its first chunk
            let b = try #require(try await store.archive.storedImage(photoID: "b", variant: Sample.variant))
            var chunks = store.archive.chunks(of: b, photoID: "b", chunkSize: 4_096).makeAsyncIterator()
            #expect(try await chunks.next()?.count == 4_096)
            try await behind.execute(
                "UPDATE image SET sha256 = '\(String(repeating: "cd", count: 32))' WHERE photo_id = 'b'")
            // THEN the stream ends rather than mixing in other bytes
            #expect(try await chunks.next() == nil)
        }
    }
}
