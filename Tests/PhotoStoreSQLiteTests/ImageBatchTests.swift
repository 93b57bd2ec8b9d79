import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Image batches on SQLite: one transaction, counted in its own changes")
struct ImageBatchTests {
    let variant = Sample.variant

    /// Counts the transactions that commit on the store's writer connection.
    final class CommitCounter: TransactionObserver, @unchecked Sendable {
        private let commits = Mutex(0)
        var count: Int { commits.withLock { $0 } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    func image(_ id: String, _ bytes: ImageToStore.Bytes) -> ImageToStore {
        ImageToStore(
            photoID: id, variant: variant, contentType: "image/jpeg", bytes: bytes, sha256: Sample.sha256,
            fetchedAt: Instant.t(10))
    }

    @Test("many images and failures commit in one transaction, each image with its status")
    func oneTransaction() async throws {
        try await withStore { store, directory in
            try await store.ledger.commit(["a", "b", "c", "d", "e"].map { Sample.photo($0) })
            let big = Sample.bytes(count: 1_500_000)
            let file = directory.appendingPathComponent("c.download")
            try big.write(to: file)
            let counter = CommitCounter()
            store.pool.add(transactionObserver: counter, extent: .observerLifetime)

            let stored = try await store.archive.storeImages(
                [
                    image("a", .data(Data("a-bytes".utf8))), image("b", .data(Data("b-bytes".utf8))),
                    image("c", .file(file, byteCount: Int64(big.count))),
                ],
                failures: [
                    ImageAttemptFailure(photoID: "d", variant: variant, error: "503", retryAt: Instant.t(60)),
                    ImageAttemptFailure(photoID: "e", variant: variant, error: "404", retryAt: nil),
                ])

            #expect(stored == [true, true, true])
            #expect(counter.count == 1)
            #expect(try await store.archive.imageData(photoID: "c", variant: variant) == big)
            #expect(
                try await store.imageQueue.imageCounts(variants: [variant])
                    == ImageCounts(stored: 3, pending: 1, failed: 1, retrying: 1, nextRetryAt: Instant.t(60)))
            // (The sample hash is not the bytes' own, so only bytes against status is checked.)
            #expect(try await store.archive.verify().problems.filter { $0.kind != .sha256Mismatch }.isEmpty)
            // Storing again changes nothing and says so.
            #expect(try await store.archive.storeImages([image("a", .data(Data("other".utf8)))]) == [false])
            #expect(try await store.archive.imageData(photoID: "a", variant: variant) == Data("a-bytes".utf8))
        }
    }
}
