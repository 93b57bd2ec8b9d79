import Foundation
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Image bytes on SQLite: its chunk rows, read in short reads")
struct ImageBytesTests {
    let variant = Sample.variant

    @Test("chunks hand out an image in order, and end early when its row changes under them")
    func chunksReadInShortReadsAndStopOnAChange() async throws {
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
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
}
