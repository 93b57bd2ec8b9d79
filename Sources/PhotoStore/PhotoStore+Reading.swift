import Foundation
import GRDB

/// What `photosync query` and `status` read.
extension PhotoStore {
    /// The photo with this id, with the metadata of its stored image of `variant` (of the most
    /// recently fetched stored variant when nil); nil when no such photo exists.
    public func photo(id: String, variant: String? = nil) throws -> StoredPhoto? {
        try read("reading photo \(id)") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM photo WHERE id = ?", arguments: [id]) else {
                return nil
            }
            let image = try Self.storedImageRow(photoID: id, variant: variant, in: db).map { image in
                StoredImage(
                    variant: try image.decode(forColumn: "variant"),
                    contentType: try image.decode(forColumn: "content_type"),
                    byteCount: try image.decode(forColumn: "byte_count"),
                    sha256: try image.decode(forColumn: "sha256"),
                    fetchedAt: try image.decodeDate(forColumn: "fetched_at"))
            }
            return StoredPhoto(
                id: try row.decode(forColumn: "id"),
                sequence: try row.decode(forColumn: "sequence"),
                createdAt: try row.decodeDateIfPresent(forColumn: "created_at"),
                updatedAt: try row.decodeDateIfPresent(forColumn: "updated_at"),
                width: try row.decode(forColumn: "width"),
                height: try row.decode(forColumn: "height"),
                color: try row.decode(forColumn: "color"),
                blurHash: try row.decode(forColumn: "blur_hash"),
                description: try row.decode(forColumn: "description"),
                altDescription: try row.decode(forColumn: "alt_description"),
                userUsername: try row.decode(forColumn: "user_username"),
                userName: try row.decode(forColumn: "user_name"),
                likes: try row.decode(forColumn: "likes"),
                isSponsored: try row.decode(forColumn: "is_sponsored"),
                downloadLocation: try row.decode(forColumn: "download_location"),
                downloadTrackedAt: try row.decodeDateIfPresent(forColumn: "download_tracked_at"),
                json: try row.decode(forColumn: "json"),
                firstSeenAt: try row.decodeDate(forColumn: "first_seen_at"),
                lastSeenAt: try row.decodeDate(forColumn: "last_seen_at"),
                image: image)
        }
    }

    /// The ids of stored photos in the order they were first stored; only those with a stored
    /// image when `withStoredImage` is true.
    public func photoIDs(withStoredImage: Bool = false) throws -> [String] {
        try read("listing photos") { db in
            try String.fetchAll(db, sql: withStoredImage
                ? "SELECT id FROM photo WHERE EXISTS (SELECT 1 FROM image WHERE photo_id = photo.id AND +status = 'stored') ORDER BY sequence"
                : "SELECT id FROM photo ORDER BY sequence")
        }
    }

    /// Counts of photos and images by status, stored bytes and the backfill's progress, from
    /// one snapshot. Reads `byte_count` columns, never image blobs.
    public func statistics() throws -> StoreStatistics {
        try read("computing statistics") { db in
            let photos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            var counts: [String: Int64] = [:]
            var bytesStored: Int64 = 0
            for row in try Row.fetchAll(db, sql: """
                SELECT status, COUNT(*) AS count, COALESCE(SUM(byte_count), 0) AS bytes
                FROM image GROUP BY status
                """)
            {
                let status: String = try row.decode(forColumn: "status")
                counts[status] = try row.decode(forColumn: "count")
                if status == "stored" { bytesStored = try row.decode(forColumn: "bytes") }
            }
            // The top-level backfill facts are the feed's, as before there were sources; complete
            // means every active source is complete.
            let sources = try Self.sourceStatistics(db)
            let state = try Self.syncState(db, source: Self.feed)
            let active = sources.filter(\.active)
            var statistics = StoreStatistics(
                photos: photos,
                imagesStored: counts["stored", default: 0],
                imagesPending: counts["pending", default: 0],
                imagesFailed: counts["failed", default: 0],
                bytesStored: bytesStored,
                backfillNext: state.backfillNext,
                backfillComplete: !active.isEmpty && active.allSatisfy(\.state.backfillComplete),
                lastPageAt: sources.compactMap(\.state.lastPageAt).max())
            statistics.rejectedPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM rejected_photo") ?? 0
            statistics.backfillStall = state.backfillStall ?? active.lazy.compactMap(\.state.backfillStall).first
            statistics.sources = sources
            statistics.plusPhotos = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE is_plus = 1") ?? 0
            return statistics
        }
    }
}
