import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("The storage budget, on every store")
struct StorageBudgetContractTests {
    let variant = Sample.variant

    /// Real hashes, so that `verify` checks the bytes that stay.
    func image(_ id: String, _ data: Data, fetchedAt: Date) -> ImageToStore {
        Sample.image(id, variant: variant, data: data, fetchedAt: fetchedAt)
    }

    func stored(_ store: PhotoStore, _ id: String) async throws -> Bool {
        try await store.archive.storedImage(photoID: id, variant: variant) != nil
    }

    @Test(
        "storing past the limit prunes the images fetched longest ago, in the same transaction",
        arguments: Backend.allCases)
    func prunesOldestFirst(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            // GIVEN five stored images of 1,000 bytes, fetched one second apart, and a limit of 3,500
            let ids = ["a", "b", "c", "d", "e", "f"]
            try await store.ledger.commit(ids.map { Sample.photo($0) })
            for (index, id) in ids.prefix(3).enumerated() {
                let bytes = Sample.bytes(count: 1_000, seed: UInt64(index + 1))
                try await store.archive.storeImages(
                    [image(id, bytes, fetchedAt: Instant.t(Double(index)))], failures: [], storageLimit: 3_500)
            }
            #expect(try await store.archive.storedBytes() == 3_000)

            // WHEN two more images arrive in one batch
            let batch = try await store.archive.storeImages(
                [
                    image("d", Sample.bytes(count: 1_000, seed: 4), fetchedAt: Instant.t(10)),
                    image("e", Sample.bytes(count: 1_000, seed: 5), fetchedAt: Instant.t(10)),
                ],
                failures: [], storageLimit: 3_500)

            // THEN the two fetched longest ago are pruned, and the stored bytes stay within the limit
            #expect(batch.stored == [true, true])
            #expect(batch.pruned.map(\.photoID) == ["a", "b"])
            #expect(try await store.archive.storedBytes() == 3_000)
            for id in ["a", "b"] { #expect(try await !stored(store, id), "\(id)") }
            for id in ["c", "d", "e"] { #expect(try await stored(store, id), "\(id)") }
            // AND a pruned image keeps its size and hash, and has no bytes left
            let pruned = try #require(try await store.archive.prunedImage(photoID: "a", variant: variant))
            #expect(pruned.byteCount == 1_000 && pruned.sha256.count == 64)
            #expect(try await store.archive.imageData(photoID: "a", variant: nil) == nil)
            let stats = try await store.catalog.statistics()
            #expect(stats.imagesPruned == 2 && stats.bytesPruned == 2_000 && stats.imagesStored == 3)
            // AND the photo's metadata stays
            #expect(try await store.catalog.photo(id: "a") != nil)
            // AND verify accepts pruned rows
            #expect(try await store.archive.verify().problems.isEmpty)
            // AND a pruned image is never stored again, nor queued again
            let again = try await store.archive.storeImages(
                [image("a", Sample.bytes(count: 1_000, seed: 1), fetchedAt: Instant.t(20))], failures: [],
                storageLimit: nil)
            #expect(again.stored == [false])
            #expect(try await store.imageQueue.enqueueMissingImages(variant: variant) == 0)
            #expect(try await store.imageQueue.imageCounts(variants: [variant]).pending == 1)
        }
    }

    @Test(
        "the images of each status and variant and their bytes are kept with every change, as a count of every image says",
        arguments: Backend.allCases)
    func tallies(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            /// `status`'s figures of the images, and the same counted from every image row.
            func figures() async throws -> (kept: [Int64], counted: [Int64]) {
                let stats = try await store.catalog.statistics()
                let kept = [
                    stats.imagesPending, stats.imagesStored, stats.imagesFailed, stats.imagesPruned,
                    stats.bytesStored, stats.bytesPruned, try await store.archive.storedBytes(),
                ]
                var counted: [Int64] = []
                for status in ["pending", "stored", "failed", "pruned"] {
                    counted.append(try await count("status = '\(status)'"))
                }
                for status in ["stored", "pruned", "stored"] {
                    let bytes = "SELECT coalesce(sum(byte_count), 0) FROM image WHERE status = '\(status)'"
                    counted.append(Int64(try await behind.integer(bytes) ?? -1))
                }
                return (kept, counted)
            }
            /// The images of each variant and both by status, as `run`'s summary counts them,
            /// and the same counted from every image row.
            func byVariant() async throws -> (kept: [Int64], counted: [Int64]) {
                var (kept, counted): ([Int64], [Int64]) = ([], [])
                for variants in [[variant], [.small], [variant, .small]] {
                    let counts = try await store.imageQueue.imageCounts(variants: variants)
                    kept += [counts.pending, counts.stored, counts.failed]
                    let names = variants.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                    for status in ["pending", "stored", "failed"] {
                        counted.append(try await count("status = '\(status)' AND variant IN (\(names))"))
                    }
                }
                return (kept, counted)
            }
            func count(_ condition: String) async throws -> Int64 {
                Int64(try await behind.integer("SELECT count(*) FROM image WHERE \(condition)") ?? -1)
            }
            // GIVEN six photos, each with a pending image and a pending small image
            let ids = ["a", "b", "c", "d", "e", "f"]
            try await store.ledger.commitPage(
                ids.map { Sample.photo($0) }, rejected: [], variant: variant, moreVariants: [.small], source: .feed,
                now: Instant.t0
            ) { _ in .backfill(next: nil) }
            var now = try await figures()
            #expect(now.kept == [12, 0, 0, 0, 0, 0, 0] && now.kept == now.counted)
            var variants = try await byVariant()
            #expect(variants.kept == [6, 0, 0, 6, 0, 0, 12, 0, 0] && variants.kept == variants.counted)

            // WHEN images are stored, fail for now and for good, and are pruned to fit a limit,
            // and a small image is stored
            for (index, id) in ["a", "b", "c"].enumerated() {
                let bytes = Sample.bytes(count: 1_000 + index, seed: UInt64(index + 1))
                try await store.archive.storeImages(
                    [image(id, bytes, fetchedAt: Instant.t(Double(index)))], failures: [], storageLimit: 2_000)
            }
            try await store.archive.storeImages(
                [],
                failures: [
                    ImageAttemptFailure(photoID: "d", variant: variant, error: "503", retryAt: Instant.t(60)),
                    ImageAttemptFailure(photoID: "e", variant: variant, error: "410", retryAt: nil),
                ])
            try await store.archive.storeImages(
                [Sample.image("f", variant: .small, data: Sample.bytes(count: 10), fetchedAt: Instant.t(5))])
            // THEN the figures are the images' own: a, b pruned; c stored; d pending; e failed;
            // f's small image stored
            now = try await figures()
            #expect(now.kept == [7, 2, 1, 2, 1_012, 2_001, 1_012], "\(now.kept)")
            #expect(now.kept == now.counted)
            variants = try await byVariant()
            #expect(variants.kept == [2, 1, 1, 5, 1, 0, 7, 2, 1], "\(variants.kept)")
            #expect(variants.kept == variants.counted)

            // WHEN the failed image is queued again and a photo goes, its stored image with it
            try await store.imageQueue.requeue(.all)
            try await behind.execute("DELETE FROM photo WHERE id = 'c'")
            // THEN they are still the images' own
            now = try await figures()
            #expect(now.kept == [7, 1, 0, 2, 10, 2_001, 10], "\(now.kept)")
            #expect(now.kept == now.counted)
            variants = try await byVariant()
            #expect(variants.kept == [3, 0, 0, 4, 1, 0, 7, 1, 0], "\(variants.kept)")
            #expect(variants.kept == variants.counted)
        }
    }

    @Test(
        "an image larger than the whole limit is stored after everything older is pruned", arguments: Backend.allCases)
    func imageLargerThanTheLimit(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b"].map { Sample.photo($0) })
            try await store.archive.storeImages([image("a", Sample.bytes(count: 1_000), fetchedAt: Instant.t(0))])
            let batch = try await store.archive.storeImages(
                [image("b", Sample.bytes(count: 5_000), fetchedAt: Instant.t(1))], failures: [], storageLimit: 2_000)
            #expect(batch.stored == [true] && batch.pruned.map(\.photoID) == ["a"])
            #expect(try await store.archive.storedBytes() == 5_000)
        }
    }

    @Test("a lowered limit prunes the oldest images at once", arguments: Backend.allCases)
    func loweredLimit(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
            for (index, id) in ["a", "b", "c"].enumerated() {
                let bytes = Sample.bytes(count: 1_000, seed: UInt64(index + 1))
                try await store.archive.storeImages([image(id, bytes, fetchedAt: Instant.t(Double(index)))])
            }
            #expect(try await store.archive.prune(toFit: 3_000).isEmpty)
            #expect(try await store.archive.prune(toFit: 1_500).map(\.photoID) == ["a", "b"])
            #expect(try await store.archive.storedBytes() == 1_000)
        }
    }

    @Test("a batch that fails prunes nothing", arguments: Backend.allCases)
    func failedBatchPrunesNothing(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit(["a", "b"].map { Sample.photo($0) })
            try await store.archive.storeImages([image("a", Sample.bytes(count: 1_000), fetchedAt: Instant.t(0))])
            await #expect(throws: StoreError.self) {
                try await store.archive.storeImages(
                    [
                        image("b", Sample.bytes(count: 1_000), fetchedAt: Instant.t(1)),
                        image("no-such-photo", Sample.bytes(count: 10), fetchedAt: Instant.t(1)),
                    ],
                    failures: [], storageLimit: 1_500)
            }
            #expect(try await stored(store, "a"))
            #expect(try await store.archive.storedBytes() == 1_000)
        }
    }
}
