import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("The storage budget on SQLite: the file's free pages (FileStorage)")
struct StorageBudgetTests {
    let variant = Sample.variant

    /// Real hashes, so that `verify` checks the bytes that stay.
    func image(_ id: String, _ data: Data, fetchedAt: Date) -> ImageToStore {
        ImageToStore(
            photoID: id, variant: variant, contentType: "image/jpeg", bytes: .data(data),
            sha256: Sample.sha256(data), fetchedAt: fetchedAt)
    }

    func stored(_ store: PhotoStore, _ id: String) async throws -> Bool {
        try await store.archive.storedImage(photoID: id, variant: variant) != nil
    }

    @Test("pruned pages go back to the file system, and the file shrinks")
    func incrementalVacuumShrinksTheFile() async throws {
        try await withStore { store, _ in
            #expect(try await store.files!.hasIncrementalVacuum())
            let ids = (0..<40).map { "p\($0)" }
            try await store.ledger.commit(ids.map { Sample.photo($0) })
            for (index, id) in ids.enumerated() {
                let bytes = Sample.bytes(count: 100_000, seed: UInt64(index + 1))
                try await store.archive.storeImages([image(id, bytes, fetchedAt: Instant.t(Double(index)))])
            }
            try await store.files!.checkpoint()
            let full = store.files!.fileSizes.database
            // Storing one more under a 1 MB limit prunes all but the last few.
            try await store.ledger.commit([Sample.photo("last")])
            let batch = try await store.archive.storeImages(
                [image("last", Sample.bytes(count: 100_000, seed: 99), fetchedAt: Instant.t(100))],
                failures: [], storageLimit: 1_000_000)
            #expect(batch.pruned.count == 31)
            #expect(try await store.files!.incrementalVacuum(maxPages: 16) > 0)
            try await store.files!.checkpoint()
            let shrunk = store.files!.fileSizes.database
            #expect(shrunk < full - 2_500_000, "\(full) -> \(shrunk)")
            #expect(try await store.archive.verify().problems.isEmpty)
        }
    }

    @Test("a database from before incremental vacuum is converted once, keeping everything")
    func convertsAnOlderDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            // GIVEN a database created without auto_vacuum, as before v8, with a stored image
            do {
                let queue = try DatabaseQueue(path: path)
                try Schema.migrator.migrate(queue, upTo: "v7 an index of Unsplash+ photos")
                #expect(try await queue.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 0)
                try queue.close()
            }
            let store = try PhotoStore(path: path)
            #expect(try await !store.files!.hasIncrementalVacuum())
            try await store.ledger.commit([Sample.photo("a")])
            try await store.archive.storeImages([image("a", Sample.bytes(count: 50_000), fetchedAt: Instant.t(0))])

            // WHEN it is converted: THEN it is, and nothing is lost; a second time does nothing
            // (not when it is larger than allowed). Only a conversion that happens is announced.
            var announced: [Int64] = []
            #expect(
                try await store.files!.enableIncrementalVacuum(freeDisk: 1 << 40, largest: 1000) {
                    announced.append($0)
                }
                    == .tooLarge)
            #expect(try await !store.files!.hasIncrementalVacuum())
            let conversion = try await store.files!.enableIncrementalVacuum(freeDisk: 1 << 40, largest: 1 << 30) {
                announced.append($0)
            }
            guard case .converted = conversion else {
                Issue.record("not converted: \(conversion)")
                return
            }
            #expect(try await store.files!.hasIncrementalVacuum())
            #expect(
                try await store.files!.enableIncrementalVacuum(freeDisk: 1 << 40, largest: 1 << 30) {
                    announced.append($0)
                }
                    == .alreadyIncremental)
            #expect(announced.count == 1 && announced[0] > 0, "\(announced)")
            #expect(try await store.archive.imageData(photoID: "a", variant: nil) == Sample.bytes(count: 50_000))
            // AND without room for a copy it is left alone
            let other = directory.appendingPathComponent("other.sqlite").path
            do {
                let queue = try DatabaseQueue(path: other)
                try Schema.migrator.migrate(queue, upTo: "v7 an index of Unsplash+ photos")
                try queue.close()
            }
            #expect(
                try await PhotoStore(path: other).files!.enableIncrementalVacuum(freeDisk: 10, largest: 1 << 30) { _ in
                }
                    == .tooLittleFreeDisk)
        }
    }

    /// Makes the database at `path` as migration `version` left it, with photos `ids` (their
    /// sequences in order from 1) and the images `images` inserts (`?` is a SHA-256).
    private static func makeDatabase(at path: String, upTo version: String, photos ids: [String], images: String)
        async throws
    {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: version)
        try await queue.write { db in
            for (index, id) in ids.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO photo (id, sequence, is_sponsored, json, first_seen_at, last_seen_at)
                        VALUES (?, ?, 0, '{}', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')
                        """, arguments: [id, index + 1])
            }
            try db.execute(sql: images, arguments: [Sample.sha256])
        }
        try queue.close()
    }

    @Test("v18 counts v17's images by variant, and its tallies follow every change; v19 orders them")
    func imageTalliesByVariant() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v17.sqlite").path
            // GIVEN a v17 database, its tallies by status alone: a photo's regular image stored
            // (4 bytes), its thumbnail pending, another photo's thumbnail failed for good
            try await Self.makeDatabase(
                at: path, upTo: "v17 image tallies", photos: ["a", "b"],
                images: """
                    INSERT INTO image (id, photo_id, variant, status, source_url, content_type, byte_count,
                                       sha256, fetched_at)
                    VALUES (1, 'a', 'regular', 'stored', 'u', 'image/jpeg', 4, ?, '2026-01-01 00:00:00.000');
                    INSERT INTO image_data (image_id, bytes) VALUES (1, x'01020304');
                    INSERT INTO image (id, photo_id, variant, source_url) VALUES (2, 'a', 'thumb', 'u');
                    INSERT INTO image (id, photo_id, variant, status, source_url, attempts, failure_class)
                    VALUES (3, 'b', 'thumb', 'failed', 'u', 1, 'permanent');
                    """)
            // WHEN it is opened, which migrates it
            let store = try PhotoStore(path: path)
            func figures() async throws -> [Int64] {
                let regular = try await store.imageQueue.imageCounts(variants: [.regular])
                let thumb = try await store.imageQueue.imageCounts(variants: [.thumb])
                let statistics = try await store.catalog.statistics()
                return [
                    regular.stored, regular.pending, thumb.pending, thumb.failed, statistics.imagesStored,
                    statistics.imagesPending, statistics.imagesFailed, try await store.archive.storedBytes(),
                ]
            }
            // THEN each variant's images are counted apart, and `status` and the budget add them up
            #expect(try await figures() == [1, 0, 1, 1, 1, 1, 1, 4])
            // AND (v19) every image knows its photo's sequence, the order its jobs are due in
            let unordered = """
                SELECT count(*) FROM image JOIN photo ON photo.id = image.photo_id
                WHERE image.photo_sequence IS NOT photo.sequence
                """
            #expect(try await store.pool.read { try Int.fetchOne($0, sql: unordered) } == 0)
            // AND the tallies follow a thumbnail stored and a photo deleted with its images
            try await store.archive.storeImages(
                [Sample.image("a", variant: .thumb, data: Sample.bytes(count: 3), fetchedAt: Instant.t(2))])
            #expect(try await figures() == [1, 0, 0, 1, 2, 0, 1, 7])
            try await store.pool.write { try $0.execute(sql: "DELETE FROM photo WHERE id = 'a'") }
            #expect(try await figures() == [0, 0, 0, 1, 0, 0, 1, 0])
        }
    }

    @Test("v8 keeps every image and its bytes, and v17 counts them")
    func migrationKeepsImages() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v7.sqlite").path
            // GIVEN a v7 database with a stored image (bytes in image_data), a pending and a failed one
            try await Self.makeDatabase(
                at: path, upTo: "v7 an index of Unsplash+ photos", photos: ["a", "b", "c"],
                images: """
                    INSERT INTO image (id, photo_id, variant, status, source_url, content_type, byte_count,
                                       sha256, fetched_at)
                    VALUES (1, 'a', 'regular', 'stored', 'u', 'image/jpeg', 4, ?, '2026-01-01 00:00:00.000');
                    INSERT INTO image_data (image_id, bytes) VALUES (1, x'01020304');
                    INSERT INTO image (id, photo_id, variant, source_url) VALUES (2, 'b', 'regular', 'u');
                    INSERT INTO image (id, photo_id, variant, status, source_url, attempts, last_error)
                    VALUES (3, 'c', 'regular', 'failed', 'u', 5, '404');
                    """)
            // WHEN it is opened, which migrates it
            let store = try PhotoStore(path: path)
            // THEN every image row and its bytes are there, and the total is counted
            #expect(try await store.archive.imageData(photoID: "a", variant: nil) == Data([1, 2, 3, 4]))
            // (v9 gives the image that had failed one more try: it is pending again.)
            let counts = try await store.imageQueue.imageCounts(variants: [.regular])
            #expect(counts.stored == 1 && counts.pending == 2 && counts.failed == 0)
            #expect(try await store.archive.storedBytes() == 4)
            // AND v17 counts them for `status`
            let statistics = try await store.catalog.statistics()
            #expect(statistics.imagesStored == 1 && statistics.imagesPending == 2 && statistics.bytesStored == 4)
            #expect(try await store.pool.read { try String.fetchOne($0, sql: "PRAGMA foreign_key_check") } == nil)
        }
    }
}
