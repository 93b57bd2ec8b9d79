import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

/// The archive's contract (``ImageArchive``), held to on every store.
@Suite("The image archive, on every store")
struct ArchiveContractTests {
    static func image(_ id: String, _ bytes: Data, fetchedAt: Date = Instant.t0) -> ImageToStore {
        Sample.image(id, data: bytes, fetchedAt: fetchedAt)
    }

    /// Bytes that do not repeat within a chunk, so that a chunk out of place shows.
    static func bytes(_ count: Int, seed: UInt64 = 7) -> Data {
        Sample.bytes(count: count, seed: seed)
    }

    @Test("an image of 2.5 MiB comes back byte for byte, whole and in chunks, once", arguments: Backend.allCases)
    func anImageComesBackByteForByte(_ backend: Backend) async throws {
        try await backend.withStore { ledger, queue, archive in
            try await ledger.commit([Sample.photo("a")])
            let bytes = Self.bytes(5 << 19)
            #expect(try await archive.storeImages([Self.image("a", bytes)]) == [true])
            #expect(try await archive.storeImages([Self.image("a", bytes)]) == [false], "stored once")

            // Compared as one Bool: a failed comparison of two 2.5 MiB values makes Swift Testing
            // work out their difference element by element, which does not end.
            let whole = try await archive.imageData(photoID: "a", variant: nil)
            #expect(Bool(whole == bytes), "the image's bytes in memory")
            let stored = try #require(try await archive.storedImage(photoID: "a", variant: .regular))
            #expect(stored.byteCount == Int64(bytes.count))
            var streamed = Data()
            for try await chunk in archive.chunks(of: stored, photoID: "a", chunkSize: 300_000) {
                #expect(chunk.count <= 300_000)
                streamed.append(chunk)
            }
            #expect(Bool(streamed == bytes), "the image's bytes in chunks")
            #expect(try await archive.storedImages(photoIDs: ["a", "b"]).mapValues(\.count) == ["a": 1])
            #expect(try await queue.dueImageJobs(variants: [.regular], now: Instant.t0, limit: 10).isEmpty)
            #expect(try await archive.storedBytes() == Int64(bytes.count))

            let report = try await archive.verify()
            #expect(report.problems.isEmpty && report.imagesChecked == 1 && report.bytesChecked == Int64(bytes.count))
        }
    }

    @Test("a file's bytes are stored as it holds them, and a short file stores nothing", arguments: Backend.allCases)
    func aFileIsStoredOrNothingIs(_ backend: Backend) async throws {
        try await backend.withStore { ledger, _, archive in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let bytes = Self.bytes(1_500_000)
            try bytes.write(to: file)
            let sha256 = Sample.sha256(bytes)
            let good = ImageToStore(
                photoID: "a", variant: .regular, contentType: "image/jpeg",
                bytes: .file(file, byteCount: Int64(bytes.count)), sha256: sha256, fetchedAt: Instant.t0)
            var short = good
            short.photoID = "b"
            short.bytes = .file(file, byteCount: Int64(bytes.count) + 10)

            await #expect(throws: StoreError.self) { try await archive.storeImages([good, short]) }
            #expect(try await archive.storedImage(photoID: "a", variant: nil) == nil, "the whole batch or nothing")
            #expect(try await archive.storeImages([good]) == [true])
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: copy) }
            #expect(try await archive.writeImage(photoID: "a", variant: nil, to: copy) == Int64(bytes.count))
            let written = try Data(contentsOf: copy)
            #expect(Bool(written == bytes), "the file written")
        }
    }

    @Test(
        "a storage limit prunes the images fetched longest ago, which are never stored again",
        arguments: Backend.allCases)
    func aLimitPrunesTheOldest(_ backend: Backend) async throws {
        try await backend.withStore { ledger, _, archive in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b"), Sample.photo("c")])
            try await archive.storeImages([Self.image("a", Self.bytes(1_000), fetchedAt: Instant.t(0))])
            try await archive.storeImages([Self.image("b", Self.bytes(1_000, seed: 2), fetchedAt: Instant.t(1))])
            let batch = try await archive.storeImages(
                [Self.image("c", Self.bytes(1_000, seed: 3), fetchedAt: Instant.t(2))], failures: [],
                storageLimit: 2_500)
            #expect(batch.stored == [true])
            #expect(batch.pruned == [PrunedImage(photoID: "a", variant: .regular, byteCount: 1_000)])
            #expect(try await archive.storedBytes() == 2_000)
            #expect(try await archive.prunedImage(photoID: "a", variant: nil)?.byteCount == 1_000)
            #expect(try await archive.storeImages([Self.image("a", Self.bytes(1_000))]) == [false])
            #expect(try await archive.prune(toFit: 1_000).map(\.photoID) == ["b"])
            #expect(try await archive.verify().problems.isEmpty)
        }
    }

    @Test(
        "an image streams into an open file byte for byte; one not stored writes nothing",
        arguments: Backend.allCases)
    func anImageStreamsIntoAnOpenFile(_ backend: Backend) async throws {
        try await backend.withStore { ledger, _, archive in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let bytes = Self.bytes(3 << 19 + 17)
            try await archive.storeImages([Self.image("a", bytes)])
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: path) }
            #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
            let output = try FileHandle(forWritingTo: path)
            #expect(try await archive.writeImage(photoID: "b", variant: nil, to: output, named: "stdout") == nil)
            #expect(
                try await archive.writeImage(photoID: "a", variant: .regular, to: output, named: "stdout")
                    == Int64(bytes.count))
            try output.close()
            #expect(try Data(contentsOf: path) == bytes)
        }
    }
}
