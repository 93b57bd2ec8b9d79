import Foundation
import PhotoStore
import TestSupport
import Testing

@Suite("Image batches, on every store")
struct ImageBatchContractTests {
    let variant = Sample.variant

    func image(_ id: String, _ bytes: ImageToStore.Bytes) -> ImageToStore {
        ImageToStore(
            photoID: id, variant: variant, contentType: "image/jpeg", bytes: bytes, sha256: Sample.sha256,
            fetchedAt: Instant.t(10))
    }

    @Test(
        "when one image of a batch cannot be stored, nothing of the batch is: no bytes without status",
        arguments: Backend.allCases)
    func allOrNothing(_ backend: Backend) async throws {
        try await backend.withPhotoStoreAndFolder { store, directory in
            try await store.ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
            let short = directory.appendingPathComponent("b.download")
            try Sample.bytes(count: 10).write(to: short)

            await #expect(throws: StoreError.imageSizeMismatch(file: short.path, expected: 20, actual: 10)) {
                try await store.archive.storeImages(
                    [image("a", .data(Data("a-bytes".utf8))), image("b", .file(short, byteCount: 20))],
                    failures: [
                        ImageAttemptFailure(photoID: "c", variant: variant, error: "503", retryAt: Instant.t(60))
                    ])
            }

            #expect(
                try await store.imageQueue.imageCounts(variants: [variant])
                    == ImageCounts(stored: 0, pending: 3, failed: 0))
            #expect(try await store.archive.imageData(photoID: "a", variant: variant) == nil)
            // No bytes without a stored image: `verify` names any as orphaned.
            #expect(try await store.archive.verify().problems.isEmpty)
            #expect(
                try await store.imageQueue.unattemptedImageCount(variants: [variant]) == 3,
                "the failure was rolled back too")
        }
    }
}
