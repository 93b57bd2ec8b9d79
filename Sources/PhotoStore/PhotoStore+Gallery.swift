import Foundation
import GRDB

/// What the gallery reads beyond a listing: every stored variant of a photo, and one image's
/// metadata before its bytes, so that a cached image costs no blob read.
extension PhotoStore {
    /// The stored variants of each photo in `photoIDs`, smallest first; a photo with none is
    /// absent from the result.
    public func storedImages(photoIDs: [String]) throws -> [String: [StoredImage]] {
        guard !photoIDs.isEmpty else { return [:] }
        return try read("reading stored images") { db in
            var images: [String: [StoredImage]] = [:]
            // One statement a photo keeps the SQL free of a variable-length IN list.
            for id in Set(photoIDs) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT variant, content_type, byte_count, sha256, fetched_at FROM image
                        WHERE photo_id = ? AND +status = 'stored'
                        ORDER BY byte_count, variant
                        """,
                    arguments: [id])
                if !rows.isEmpty { images[id] = try rows.map(Self.storedImage) }
            }
            return images
        }
    }

    /// The metadata of the stored image of `variant` (of the most recently fetched stored
    /// variant when nil), without its bytes; nil when no such image is stored.
    public func storedImage(photoID: String, variant: String?) throws -> StoredImage? {
        try read("reading the image of photo \(photoID)") { db in
            try Self.storedImageRow(photoID: photoID, variant: variant, in: db).map(Self.storedImage)
        }
    }

    private static func storedImage(_ row: Row) throws -> StoredImage {
        StoredImage(
            variant: try row.decode(forColumn: "variant"),
            contentType: try row.decode(forColumn: "content_type"),
            byteCount: try row.decode(forColumn: "byte_count"),
            sha256: try row.decode(forColumn: "sha256"),
            fetchedAt: try row.decodeDate(forColumn: "fetched_at"))
    }
}
