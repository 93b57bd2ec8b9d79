import Crypto
import Foundation
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

/// `photosync copy`'s contract (``StoreTransfer``, ``MirrorCopy``): a mirror copied into any store
/// and back is the mirror it was, row for row and byte for byte, and a copy stopped between any
/// two batches goes on to the same end.
@Suite("Copying a mirror between stores")
struct TransferContractTests {
    /// A mirror with a row in every table: two sources with cursors and an object, memberships,
    /// images stored (one of several PostgreSQL chunks), failed and pending, a tracking mark, a
    /// rejected photo, a full object, and both of serve's pending requests.
    static func fill(_ store: PhotoStore) async throws {
        let feed = (1...5).map { Sample.photo("f\($0)") }
        try await store.ledger.commit(Array(feed[0..<3]), next: 2, now: Instant.t0)
        try await store.ledger.commit(Array(feed[3...]), next: nil, now: Instant.t(60))
        try await store.ledger.commitPage(
            [Sample.photo("f2"), Sample.photo("u1")],
            rejected: [RejectedPhoto(photoID: "bad", json: Data(#"{"id": "bad"}"#.utf8), reason: "no urls")],
            variant: Sample.variant, source: "user:ann", now: Instant.t(120)
        ) { _ in .backfill(next: Sample.pageURL(2)) }
        try await store.ledger.storeSourceObject(
            Data(#"{"username": "ann"}"#.utf8), sources: ["user:ann"], at: Instant.t(130))
        try await store.ledger.recordSourceFailure("user:ann", message: "HTTP 500", at: Instant.t(140))
        _ = try await store.archive.storeImages([
            ArchiveContractTests.image("f1", ArchiveContractTests.bytes(5 << 19), fetchedAt: Instant.t(200)),
            ArchiveContractTests.image("f2", ArchiveContractTests.bytes(1_000, seed: 9), fetchedAt: Instant.t(201)),
        ])
        try await store.imageQueue.recordImageFailure(
            photoID: "f3", variant: Sample.variant, error: "HTTP 404", retryAt: nil)
        try await store.imageQueue.recordImageFailure(
            photoID: "f4", variant: Sample.variant, error: "timed out", retryAt: Instant.t(900))
        try await store.ledger.markDownloadsTracked(photoIDs: ["f1"], at: Instant.t(300))
        _ = try await store.photoDetails.store(
            Data(#"{"id": "f1", "location": {"name": "Oslo"}}"#.utf8), photoID: "f1", at: Instant.t(400))
        let downloads = try store.storage.openDownloadRequests()
        _ = try await downloads.record(photoID: "f2", at: Instant.t(500))
        _ = try await downloads.record(photoID: "f5", at: Instant.t(510))
        try downloads.close()
        let details = try store.storage.openPhotoDetailsRequests()
        _ = try await details.record(photoID: "u1", at: Instant.t(600))
        try details.close()
    }

    /// Every table's rows as the store's reader gives them, without the keys each store numbers
    /// itself.
    static func rows(of store: PhotoStore) async throws -> [MirrorTable: MirrorRows] {
        try await store.transfer.reading { reader throws(StoreError) in
            var tables: [MirrorTable: MirrorRows] = [:]
            for table in MirrorTable.allCases {
                tables[table] = Self.withoutKeys(try await reader.rows(of: table, after: nil, limit: 1_000))
            }
            return tables
        }
    }

    private static func withoutKeys(_ rows: MirrorRows) -> MirrorRows {
        switch rows {
        case .sources(let rows):
            .sources(
                rows.map {
                    var row = $0
                    row.key = 0
                    return row
                })
        case .memberships(let rows):
            .memberships(
                rows.map {
                    var row = $0
                    row.key = 0
                    return row
                })
        case .images(let rows):
            .images(
                rows.map {
                    var row = $0
                    row.key = 0
                    return row
                })
        case .rejectedPhotos(let rows):
            .rejectedPhotos(
                rows.map {
                    var row = $0
                    row.key = 0
                    return row
                })
        case .photos, .photoDetails, .downloadRequests: rows
        }
    }

    /// The tables compared one by one: two unequal images' bytes are not worked out element by
    /// element (see ArchiveContractTests).
    static func expectSame(_ copied: [MirrorTable: MirrorRows], _ original: [MirrorTable: MirrorRows]) {
        for table in MirrorTable.allCases {
            #expect(Bool(copied[table] == original[table]), "\(table.rawValue)")
        }
    }

    @Test("a mirror copied from SQLite into a store and back is the same, row for row", arguments: Backend.allCases)
    func copiedThereAndBack(_ backend: Backend) async throws {
        try await Backend.sqlite.withPhotoStore { original in
            try await Self.fill(original)
            let rows = try await Self.rows(of: original)
            #expect(rows[.images]?.imageBytes == Int64(5 << 19) + 1_000)
            let due = try await original.ledger.pendingDownloadTracking(limit: 10).map(\.photoID)
            // f2's image is stored, and a client asked for f5's download: neither is tracked yet.
            #expect(due == ["f2", "f5"])
            try await backend.withPhotoStore { middle in
                let there = try await MirrorCopy(from: original, to: middle, origin: "original").run()
                #expect(there.rows[.photos] == 6 && there.rows[.sources] == 2 && !there.resumed)
                Self.expectSame(try await Self.rows(of: middle), rows)
                #expect(try await middle.ledger.pendingDownloadTracking(limit: 10).map(\.photoID) == due)
                #expect(try await middle.archive.verify().isClean)
                #expect(try await middle.archive.storedBytes() == Int64(5 << 19) + 1_000)
                let found = try await middle.catalog.photos(matching: PhotoQuery(text: "Oslo", sort: .relevance))
                #expect(found.map(\.id) == ["f1"], "the search index is the target's own, full objects in it")
                try await Backend.sqlite.withPhotoStore { back in
                    _ = try await MirrorCopy(from: middle, to: back, origin: "middle").run()
                    Self.expectSame(try await Self.rows(of: back), rows)
                    #expect(try await back.copyStateAfterCopy() == .holdsMirror)
                }
            }
        }
    }

    /// A row of every table with a value in every column that is not the value a copy starts a
    /// row from (no nil, no false, no zero): a column left out of a table's description, or
    /// read or written as another, comes back different.
    static func everyColumn() -> [MirrorRows] {
        let bytes = Data((0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + seconds) }
        return [
            .sources([
                MirrorSource(
                    key: 7, name: "user:zed", active: true, backfillNext: "https://api/users/zed/photos?page=3",
                    backfillComplete: true, catchUpNext: "https://api/users/zed/photos?page=1", catchUpBaseline: 42,
                    lastPageAt: at(1), backfillStallReason: "the page repeats", backfillStalledAt: at(2),
                    error: "HTTP 500", errorAt: at(3), objectJSON: #"{"username": "zed"}"#, objectFetchedAt: at(4))
            ]),
            .photos([
                MirrorPhoto(
                    id: "p1", sequence: 9, createdAt: at(10), updatedAt: at(11), width: 4_000, height: 3_000,
                    color: "#a0b0c0", blurHash: "LEHV6nWB2yk8", description: "a lake", altDescription: "a blue lake",
                    userUsername: "zed", userName: "Zed Z", likes: 12, isSponsored: true,
                    downloadLocation: "https://api/photos/p1/download", downloadTrackedAt: at(12), isPlus: true,
                    json: #"{"id": "p1"}"#, firstSeenAt: at(13), lastSeenAt: at(14))
            ]),
            .photoDetails([
                MirrorPhotoDetails(
                    photoID: "p1", requestedAt: at(20), json: #"{"id": "p1", "views": 3}"#, fetchedAt: at(21))
            ]),
            .memberships([
                MirrorMembership(key: 3, photoID: "p1", sourceName: "user:zed", firstSeenAt: at(30), position: 5)
            ]),
            .images([
                MirrorImage(
                    key: 4, photoID: "p1", variant: "small", status: "stored", sourceURL: "https://images/p1",
                    attempts: 2, lastError: "timed out", nextAttemptAt: at(40), failureClass: "transient",
                    contentType: "image/jpeg", byteCount: Int64(bytes.count), sha256: sha256, fetchedAt: at(41),
                    bytes: bytes)
            ]),
            .rejectedPhotos([
                MirrorRejectedPhoto(
                    key: 5, photoID: "bad", json: #"{"id": "bad"}"#, reason: "no urls", firstSeenAt: at(50),
                    lastSeenAt: at(51))
            ]),
            .downloadRequests([MirrorDownloadRequest(photoID: "p1", requestedAt: at(60))]),
        ]
    }

    @Test(
        "every column of every table, none at its default, copied from SQLite into a store and back is the same",
        arguments: Backend.allCases)
    func everyColumnCopiedThereAndBack(_ backend: Backend) async throws {
        let written = Dictionary(uniqueKeysWithValues: Self.everyColumn().map { ($0.table, Self.withoutKeys($0)) })
        try await Backend.sqlite.withPhotoStore { original in
            for rows in Self.everyColumn() {
                try await original.transfer.write(
                    rows, reaching: CopyProgress(origin: "written", table: rows.table, after: rows.lastKey))
            }
            try await original.transfer.finishCopy()
            Self.expectSame(try await Self.rows(of: original), written)
            try await backend.withPhotoStore { middle in
                _ = try await MirrorCopy(from: original, to: middle, origin: "original").run()
                Self.expectSame(try await Self.rows(of: middle), written)
                try await Backend.sqlite.withPhotoStore { back in
                    _ = try await MirrorCopy(from: middle, to: back, origin: "middle").run()
                    Self.expectSame(try await Self.rows(of: back), written)
                }
            }
        }
    }

    @Test("a copy stopped after any batch goes on to the same end, each row once", arguments: Backend.allCases)
    func stoppedCopiesResume(_ backend: Backend) async throws {
        try await Backend.sqlite.withPhotoStore { original in
            try await Self.fill(original)
            let rows = try await Self.rows(of: original)
            // Batches of two rows: 14 of them for this mirror; stop after each in turn.
            for stopAfter in [1, 2, 4, 7, 9, 12] {
                try await backend.withPhotoStore { target in
                    let stopping = target.stoppingTransfer(afterWrites: stopAfter)
                    await #expect(throws: MirrorCopy.Failure.self) {
                        try await MirrorCopy(from: original, to: stopping, origin: "original", rowsPerBatch: 2).run()
                    }
                    guard case .copying(let progress) = try await target.transfer.copyState() else {
                        Issue.record("a stopped copy is recorded as one")
                        return
                    }
                    #expect(progress.origin == "original")
                    await #expect(
                        throws: MirrorCopy.Failure.targetCopiesAnother(target: target.path, origin: "original")
                    ) {
                        try await MirrorCopy(from: original, to: target, origin: "elsewhere").run()
                    }
                    let resumed = try await MirrorCopy(from: original, to: target, origin: "original", rowsPerBatch: 2)
                        .run()
                    #expect(resumed.resumed)
                    Self.expectSame(try await Self.rows(of: target), rows)
                    #expect(try await target.archive.verify().isClean)
                }
            }
        }
    }

    @Test("a store with a mirror of its own is not copied into", arguments: Backend.allCases)
    func aMirrorIsNotMixedWithAnother(_ backend: Backend) async throws {
        try await Backend.sqlite.withPhotoStore { original in
            try await Self.fill(original)
            try await backend.withPhotoStore { target in
                #expect(try await target.transfer.copyState() == .empty)
                try await target.ledger.commit([Sample.photo("own")])
                await #expect(throws: MirrorCopy.Failure.targetHoldsMirror(target: target.path)) {
                    try await MirrorCopy(from: original, to: target, origin: "original").run()
                }
                #expect(try await target.ledger.maxSequence() == 1, "nothing copied")
            }
        }
    }
}

extension PhotoStore {
    fileprivate func copyStateAfterCopy() async throws -> CopyTargetState {
        try await transfer.copyState()
    }

    /// This store, but its copy stops (throws) when it is about to write batch `afterWrites + 1`.
    fileprivate func stoppingTransfer(afterWrites: Int) -> PhotoStore {
        PhotoStore(
            path: path, ledger: ledger, imageQueue: imageQueue, archive: archive, catalog: catalog,
            photoDetails: photoDetails, storage: storage, files: files,
            transfer: StoppingTransfer(wrapped: transfer, path: path, writes: afterWrites))
    }
}

/// A transfer that writes a number of batches and then fails, as a copy killed between two
/// transactions.
private final class StoppingTransfer: StoreTransfer {
    let wrapped: any StoreTransfer
    let path: String
    let writesLeft: Mutex<Int>

    init(wrapped: any StoreTransfer, path: String, writes: Int) {
        self.wrapped = wrapped
        self.path = path
        writesLeft = Mutex(writes)
    }

    func reading<T: Sendable>(
        _ body: @escaping @Sendable (any MirrorReader) async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await wrapped.reading(body)
    }

    func copyState() async throws(StoreError) -> CopyTargetState {
        try await wrapped.copyState()
    }

    func write(_ rows: MirrorRows, reaching progress: CopyProgress) async throws(StoreError) {
        let go = writesLeft.withLock { left in
            left -= 1
            return left >= 0
        }
        guard go else { throw .unavailable(path: path, reason: "stopped by the test") }
        try await wrapped.write(rows, reaching: progress)
    }

    func finishCopy() async throws(StoreError) {
        try await wrapped.finishCopy()
    }
}
