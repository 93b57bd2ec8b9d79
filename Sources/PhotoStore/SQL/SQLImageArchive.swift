import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The archive's lookups and file streaming written once, for a driver's ``ImageArchive`` that
/// offers its ``SQLExecutor``: an image's metadata, a page's stored images, the stored bytes,
/// an image's bytes in memory or streamed to a file. Where the bytes live (`bytesTable`) and how
/// they are written and read a chunk at a time stay the driver's: SQLite's incremental blob I/O
/// on `image_data`, PostgreSQL's `image_chunk` rows and its one-trip batch statements.
package protocol SQLImageArchive: ImageArchive {
    var sql: any SQLExecutor { get }
    /// The table of the images' bytes, one or more rows an image by `image_id`, in order.
    var bytesTable: String { get }
}

extension SQLImageArchive {
    package func storedBytes() async throws(StoreError) -> Int64 {
        try await sql.read("adding up stored images", ArchiveStatements.storedBytes) { rows in
            try rows.first?.integer(0) ?? 0
        }
    }

    package func storedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await sql.read(
            "reading the image of photo \(photoID)", ArchiveStatements.image(photoID: photoID, variant: variant)
        ) { rows in try rows.first.flatMap { try ArchiveStatements.image($0, from: 0)?.image } }
    }

    package func prunedImage(photoID: String, variant: ImageVariant?) async throws(StoreError) -> StoredImage? {
        try await sql.read(
            "reading the image of photo \(photoID)",
            ArchiveStatements.image(photoID: photoID, variant: variant, status: .pruned)
        ) { rows in try rows.first.flatMap { try ArchiveStatements.image($0, from: 0)?.image } }
    }

    /// One statement for all of `photoIDs`, which it reads as a JSON array (one prepared
    /// statement whatever their number: no `IN` list), each photo's rows found through the
    /// `UNIQUE (photo_id, variant)` index; each photo's few variants are sorted here. A
    /// statement a photo, each sorting in a temporary B-tree of its own, was 14 % of a gallery
    /// page's CPU on SQLite.
    package func storedImages(photoIDs: [String]) async throws(StoreError) -> [String: [StoredImage]] {
        guard !photoIDs.isEmpty else { return [:] }
        let ids = String(decoding: (try? JSONEncoder().encode(Array(Set(photoIDs)))) ?? Data("[]".utf8), as: UTF8.self)
        return try await sql.read(
            "reading stored images",
            """
            SELECT image.photo_id, image.id, image.variant, image.content_type, image.byte_count, image.sha256,
                image.fetched_at
            FROM \(sqlite: "json_each(", postgres: "json_array_elements_text(")\(ids)\(sqlite: ") AS wanted CROSS", postgres: "::json) AS wanted (value)")
            JOIN image ON image.photo_id = wanted.value
            WHERE \(sqlite: "+image.status", postgres: "image.status") = \(literal: ImageStatus.stored)
            """
        ) { rows in
            var images: [String: [StoredImage]] = [:]
            for row in rows {
                if let found = try ArchiveStatements.image(row, from: 1) {
                    images[try row.text(0) ?? "", default: []].append(found.image)
                }
            }
            return images.mapValues { variants in variants.sorted { $0.isSmaller(than: $1) } }
        }
    }

    /// The image's metadata and its bytes rows, in one read.
    package func imageData(photoID: String, variant: ImageVariant?) async throws(StoreError) -> Data? {
        let image = ArchiveStatements.image(photoID: photoID, variant: variant)
        let table = SQLStatement(stringLiteral: bytesTable)
        return try await sql.read(
            "reading the image of photo \(photoID)",
            [
                image,
                """
                SELECT bytes FROM \(sql: table) WHERE image_id = (SELECT id FROM (\(sql: image)) AS found)
                ORDER BY \(sqlite: "image_id", postgres: "index")
                """,
            ]
        ) { results in
            guard !results[0].isEmpty else { return nil }
            return try results[1].reduce(into: Data()) { data, row in data += try row.bytes(0) ?? Data() }
        }
    }

    package func writeImage(photoID: String, variant: ImageVariant?, to destination: URL) async throws(StoreError)
        -> Int64?
    {
        guard let image = try await storedImage(photoID: photoID, variant: variant) else { return nil }
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .cannotWriteImageFile(file: destination.path, reason: String(cString: strerror(errno)))
        }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? output.close() }
        return try await write(image, photoID: photoID, to: output, named: destination.path)
    }

    package func writeImage(
        photoID: String, variant: ImageVariant?, to output: FileHandle, named name: String
    ) async throws(StoreError) -> Int64? {
        guard let image = try await storedImage(photoID: photoID, variant: variant) else { return nil }
        return try await write(image, photoID: photoID, to: output, named: name)
    }

    /// Streams `image` 1 MiB at a time, each chunk its own read (``ImageArchive/chunks(of:photoID:chunkSize:)``).
    /// - Throws: `StoreError.cannotWriteImageFile` also when the image was pruned or stored again
    ///   meanwhile, so that a short file is never taken for the image.
    private func write(
        _ image: StoredImage, photoID: String, to output: FileHandle, named name: String
    ) async throws(StoreError) -> Int64 {
        var written: Int64 = 0
        do {
            for try await chunk in chunks(of: image, photoID: photoID, chunkSize: 1 << 20) {
                try output.write(contentsOf: chunk)
                written += Int64(chunk.count)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .cannotWriteImageFile(file: name, reason: "\(error)")
        }
        guard written == image.byteCount else {
            throw .cannotWriteImageFile(file: name, reason: "the image was pruned or replaced while it was written")
        }
        return written
    }
}

extension ArchiveStatements {
    /// The image of `variant` of `photoID` in `status`, or its most recently fetched one when
    /// `variant` is nil: its id, then the metadata of a stored image (``image(_:from:)``).
    ///
    /// Without a variant the statement has no NULL, so PostgreSQL prepares it on its connection.
    /// SQLite reads `+status`, which keeps it from searching the image queue's status index,
    /// where every stored image sits under one key, instead of the photo's own rows
    /// (`QueryPlanTests`).
    package static func image(
        photoID: String, variant: ImageVariant?, status: ImageStatus = .stored
    ) -> SQLStatement {
        let ofVariant: SQLStatement = variant.map { "AND variant = \($0.rawValue)" } ?? ""
        return """
            SELECT id, variant, content_type, byte_count, sha256, fetched_at FROM image
            WHERE photo_id = \(photoID) AND \(sqlite: "+status", postgres: "status") = \(status.rawValue) \(sql: ofVariant)
            ORDER BY fetched_at DESC, variant LIMIT 1
            """
    }

    /// The image row in `row`'s columns from `first` on (id, variant, content type, byte count,
    /// SHA-256, fetch time), as ``image(photoID:variant:status:)`` selects them; nil for a
    /// variant this build does not know.
    package static func image(_ row: any SQLRow, from first: Int) throws -> (id: Int64, image: StoredImage)? {
        guard let variant = try row.text(first + 1).flatMap(ImageVariant.init(rawValue:)) else { return nil }
        return (
            try row.integer(first) ?? 0,
            StoredImage(
                variant: variant, contentType: try row.text(first + 2) ?? "",
                byteCount: try row.integer(first + 3) ?? 0,
                sha256: try row.text(first + 4) ?? "",
                fetchedAt: try row.date(first + 5) ?? Date(timeIntervalSince1970: 0))
        )
    }
}

extension StoredImage {
    /// Fewer bytes, or as many and the first variant by name: the order of
    /// ``ImageArchive/storedImages(photoIDs:)`` and ``PhotoSummary/smallestImage``, as SQL's
    /// `ORDER BY byte_count, variant` (variant names are lowercase ASCII).
    package func isSmaller(than other: StoredImage) -> Bool {
        (byteCount, variant.rawValue) < (other.byteCount, other.variant.rawValue)
    }

    /// Fetched later, or at once and the first variant by name: ``PhotoSummary/image``, as SQL's
    /// `ORDER BY fetched_at DESC, variant`.
    package func isNewer(than other: StoredImage) -> Bool {
        (fetchedAt, other.variant.rawValue) > (other.fetchedAt, variant.rawValue)
    }
}
