import Foundation

/// Image bytes, in and out. Bytes and their job's `stored` status commit together, so a crash
/// never leaves a stored job without bytes nor bytes for a pending job. Reads stream the bytes
/// a chunk at a time (``chunks(of:photoID:chunkSize:)``), so memory never grows with an image.
///
/// The SQLite implementation is `SQLiteImageArchive`.
public protocol ImageArchive: Sendable {
    /// Stores a batch as ``storeImages(_:failures:)`` does, keeping the stored image bytes within
    /// `storageLimit` (no limit when nil): before each image is stored, the bytes of the stored
    /// images fetched longest ago are freed, in the same transaction, until it fits. Their rows
    /// stay, marked `pruned` with their size and SHA-256, and are never stored again. An image
    /// larger than the whole limit is stored after everything older was pruned, so the stored
    /// bytes exceed the limit by at most one image.
    ///
    /// - Throws: as ``storeImages(_:failures:)``; nothing of the batch is stored nor pruned then.
    @discardableResult
    func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure], storageLimit: Int64?
    ) async throws(StoreError) -> StoredBatch

    /// Prunes the stored images fetched longest ago until the stored bytes are within
    /// `storageLimit`, in one transaction: for a limit lowered since the images were stored.
    ///
    /// - Returns: the images pruned, oldest-fetched first.
    @discardableResult
    func prune(toFit storageLimit: Int64) async throws(StoreError) -> [PrunedImage]

    /// The bytes of every stored image together: what `storage_limit` bounds.
    func storedBytes() async throws(StoreError) -> Int64

    /// The pruned image of `variant` of `photoID` (of its most recently fetched pruned variant
    /// when nil): its bytes were freed to keep within `storage_limit`; nil when there is none.
    func prunedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage?

    /// The metadata of the stored image of `variant` (of the most recently fetched stored
    /// variant when nil), without its bytes; nil when no such image is stored.
    func storedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage?

    /// The stored variants of each photo in `photoIDs`, smallest first; a photo with none is
    /// absent from the result.
    func storedImages(photoIDs: [String]) async throws(StoreError) -> [String: [StoredImage]]

    /// The bytes of `image`, the stored image of photo `photoID`, in chunks of at most
    /// `chunkSize` bytes (at most 2^31 - 1), in order.
    ///
    /// Each chunk is read in its own short read transaction, so a slow consumer never holds a
    /// snapshot open (which would keep the writer's WAL from being checkpointed). When the image
    /// is no longer stored as `image` says (removed, or stored again with other bytes), the
    /// sequence ends early: compare the bytes received with ``StoredImage/byteCount``.
    func chunks(of image: StoredImage, photoID: String, chunkSize: Int) -> ImageChunks

    /// The stored image's bytes in memory, chosen as by ``storedImage(photoID:variant:)``; nil
    /// when none is stored. For small images and tests: ``chunks(of:photoID:chunkSize:)``
    /// streams them.
    func imageData(photoID: String, variant: ImageVariant?) async throws(StoreError) -> Data?

    /// Streams the stored image of `variant` (or, when nil, the most recently fetched stored
    /// variant) into `destination`, creating or truncating it, 1 MiB at a time.
    ///
    /// - Returns: the number of bytes written; nil, without touching `destination`, when no
    ///   such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (the file may then be partly written),
    ///   `.databaseFailure`.
    func writeImage(photoID: String, variant: ImageVariant?, to destination: URL) async throws(StoreError)
        -> Int64?

    /// Streams the stored image chosen as by ``writeImage(photoID:variant:to:)`` into an open
    /// `output` (standard output, say), 1 MiB at a time; `name` names it in errors.
    ///
    /// - Returns: the number of bytes written; nil, writing nothing, when no such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (some bytes may have been written),
    ///   `.databaseFailure`.
    func writeImage(
        photoID: String, variant: ImageVariant?, to output: FileHandle, named name: String
    ) async throws(StoreError) -> Int64?

    /// Checks the database: SQLite's integrity check; every stored image re-hashed against its
    /// recorded SHA-256 and size; every stored image has bytes; no bytes without a stored image.
    ///
    /// It only reads, so it runs beside a writing `photosync run`. Each image is hashed in its
    /// own read transaction, 1 MiB at a time (memory does not grow with image size, and the
    /// writer's WAL is not held back for the whole run); images stored after the list was taken
    /// are checked by the next verify.
    ///
    /// - Parameter progress: called after each image.
    /// - Throws: `StoreError` when the database cannot be read; what is wrong with the data is
    ///   in the report, not thrown.
    func verify(
        progress: (VerificationProgress) -> Void
    ) async throws(StoreError) -> VerificationReport
}

extension ImageArchive {
    /// Group commit: stores every image of `images` (bytes and `stored` status) and records
    /// every failed attempt of `failures`, all in one transaction: either the whole batch
    /// commits or nothing does. That is what makes storing thousands of small images fast.
    /// A file's bytes are copied 1 MiB at a time, so memory does not grow with an image's size.
    ///
    /// - Returns: for each of `images`, in order, true when stored; false when it was already stored.
    /// - Throws: `StoreError.unknownImageJob`, `.imageTooLarge` (over 2 GiB - 1),
    ///   `.imageSizeMismatch`, `.cannotReadImageFile`, `.databaseFailure`; nothing of the
    ///   batch is stored then.
    @discardableResult
    public func storeImages(
        _ images: [ImageToStore], failures: [ImageAttemptFailure] = []
    ) async throws(StoreError) -> [Bool] {
        try await storeImages(images, failures: failures, storageLimit: nil).stored
    }

    /// Stores an image streamed from `fileURL`, which must hold exactly `byteCount` bytes, and
    /// marks its job stored, in one transaction: a batch of one (``storeImages(_:failures:)``).
    ///
    /// - Parameter sha256: lowercase hex SHA-256 of the bytes, computed by the caller.
    /// - Returns: true when stored; false, changing nothing, when the image was already stored.
    @discardableResult
    public func storeImage(
        photoID: String, variant: ImageVariant, contentType: String, fileURL: URL, byteCount: Int64, sha256: String,
        fetchedAt: Date
    ) async throws(StoreError) -> Bool {
        try await storeImages([
            ImageToStore(
                photoID: photoID, variant: variant, contentType: contentType,
                bytes: .file(fileURL, byteCount: byteCount), sha256: sha256, fetchedAt: fetchedAt)
        ])[0]
    }

    /// Same as the file variant, from bytes in memory: for small images and tests.
    @discardableResult
    public func storeImage(
        photoID: String, variant: ImageVariant, contentType: String, data: Data, sha256: String, fetchedAt: Date
    ) async throws(StoreError) -> Bool {
        try await storeImages([
            ImageToStore(
                photoID: photoID, variant: variant, contentType: contentType, bytes: .data(data), sha256: sha256,
                fetchedAt: fetchedAt)
        ])[0]
    }

    /// The bytes of `image` in chunks of 512 KiB: see ``chunks(of:photoID:chunkSize:)``.
    public func chunks(of image: StoredImage, photoID: String) -> ImageChunks {
        chunks(of: image, photoID: photoID, chunkSize: 512 << 10)
    }

    /// Checks the archive as ``verify(progress:)`` does, telling no one of its progress.
    public func verify() async throws(StoreError) -> VerificationReport {
        try await verify(progress: { _ in })
    }
}

/// What storing a batch did: see ``ImageArchive/storeImages(_:failures:storageLimit:)``.
public struct StoredBatch: Sendable, Equatable {
    /// For each image given, in order: true when stored; false when it was already stored or pruned.
    public var stored: [Bool]
    /// The images whose bytes were freed to make room, oldest-fetched first.
    public var pruned: [PrunedImage]

    public init(stored: [Bool], pruned: [PrunedImage]) {
        self.stored = stored
        self.pruned = pruned
    }
}

/// An image whose bytes were freed to keep within `storage_limit`.
public struct PrunedImage: Sendable, Equatable {
    public var photoID: String
    public var variant: ImageVariant
    public var byteCount: Int64

    public init(photoID: String, variant: ImageVariant, byteCount: Int64) {
        self.photoID = photoID
        self.variant = variant
        self.byteCount = byteCount
    }
}

/// The bytes of one stored image, read a chunk at a time: see
/// ``ImageArchive/chunks(of:photoID:chunkSize:)``. Each chunk is one read of the store's, so a
/// slow consumer holds no transaction open between chunks. All of the image by default; only some
/// of its bytes with ``bytes(in:)`` (an HTTP `Range`).
public struct ImageChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    /// Reads `length` bytes at `offset`; nil when the image is no longer the one listed.
    public typealias ReadChunk = @Sendable (_ offset: Int64, _ length: Int) async throws(StoreError) -> Data?

    let image: StoredImage
    let chunkSize: Int
    let read: ReadChunk
    /// The offsets of the image's bytes the sequence yields, within `0..<image.byteCount`.
    public private(set) var range: Range<Int64>

    /// The chunks of `image`, at most `chunkSize` bytes each (between 1 and 2^31 - 1), each read
    /// by `read`: for a store's implementation of ``ImageArchive/chunks(of:photoID:chunkSize:)``.
    public init(image: StoredImage, chunkSize: Int, read: @escaping ReadChunk) {
        self.image = image
        self.chunkSize = Swift.max(1, Swift.min(chunkSize, Int(Int32.max)))
        self.read = read
        self.range = 0..<Swift.max(0, image.byteCount)
    }

    /// The same chunks, of the bytes at offsets `range` only (clamped to the image's bytes): the
    /// first read starts at `range.lowerBound`, wherever that falls in the store's own chunks,
    /// and the last ends at `range.upperBound`. An image that changed meanwhile ends the sequence
    /// early as it does for the whole image: compare the bytes received with ``byteCount``.
    public func bytes(in range: Range<Int64>) -> ImageChunks {
        var part = self
        part.range = range.clamped(to: self.range)
        return part
    }

    /// How many bytes the sequence yields when the image is unchanged: the length of ``range``,
    /// the image's ``StoredImage/byteCount`` unless ``bytes(in:)`` chose fewer.
    public var byteCount: Int64 { range.upperBound - range.lowerBound }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self, offset: range.lowerBound)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ImageChunks
        var offset: Int64

        /// The next chunk; nil at the end, or when the image changed since it was listed.
        /// - Throws: `StoreError` when the store cannot be read.
        public mutating func next() async throws -> Data? {
            let end = chunks.range.upperBound
            guard offset < end else { return nil }
            let length = Int(Swift.min(Int64(chunks.chunkSize), end - offset))
            let chunk = try await chunks.read(offset, length)
            if let chunk { offset += Int64(chunk.count) }
            return chunk
        }
    }
}
