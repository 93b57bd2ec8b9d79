import Foundation
import GRDB
import PhotoStore
import PhotosyncModel

/// The ledger in SQLite: sources are rows of `source`, named by `PhotoSource.description`;
/// memberships rows of `photo_source`; a page commit is one write transaction with its cursor.
struct SQLiteSyncLedger: SQLSyncLedger {
    let database: StoreDatabase
    var sql: any SQLExecutor { SQLiteExecutor(database: database) }

    @discardableResult
    func commitPage(
        _ photos: [PhotoRecord], rejected: [RejectedPhoto] = [], variant: ImageVariant,
        moreVariants: [ImageVariant] = [],
        source: PhotoSource, now: Date, cursor: @escaping @Sendable (PageCommit) throws -> CursorChange
    ) async throws(StoreError) -> PageCommit {
        try await database.write("committing a page of \(photos.count) photos") { db in
            let sourceID = try LedgerStatements.sourceID(db.run(LedgerStatements.source(named: source.description)))
            // Every statement here is cached (GRDB caches its record statements too): preparing
            // them anew for each photo (the INSERT also compiles the search trigger) was half the
            // page walk's CPU.
            var stored: [String: Int64] = [:]
            var memberships: [String: Int64] = [:]
            for id in Set(photos.map(\.id)) {
                stored[id] = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT sequence FROM photo WHERE id = ?"), arguments: [id])
                memberships[id] = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM photo_source WHERE photo_id = ? AND source_id = ?"),
                    arguments: [id, sourceID])
            }
            let plan = PageCommitPlan(
                page: photos, stored: stored, memberships: memberships,
                maxSequence: try db.run([LedgerStatements.maxSequence])[0].first?.integer(0) ?? 0)
            for photo in plan.photos {
                _ = try db.run([LedgerStatements.write(photo, seenAt: now)])
                try db.cachedStatement(sql: "DELETE FROM rejected_photo WHERE photo_id = ?")
                    .execute(arguments: [photo.record.id])
                try SQLiteImageQueue.queue(photo.record, variant: variant, moreVariants: moreVariants, in: db)
            }
            if let oldest = plan.oldestStored {
                try SQLiteImageQueue.reopenWalks(from: oldest, except: [variant] + moreVariants, in: db)
            }
            var newlyRejected: [RejectedPhoto] = []
            for element in rejected
            where try LedgerStatements.isNew(db.run(LedgerStatements.recordRejected(element, seenAt: now))) {
                newlyRejected.append(element)
            }
            let commit = plan.commit(newlyRejected: newlyRejected)
            let change = try cursor(commit)
            let (last, block) = try LedgerStatements.lastPosition(before: change, source: sourceID)
            var position = MembershipPositions.first(after: try db.run([last])[0].first?.integer(0), in: block)
            for photoID in plan.joining {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO photo_source (photo_id, source_id, first_seen_at, position) VALUES (?, ?, ?, ?)
                        """
                ).execute(arguments: [photoID, sourceID, now.stored, position])
                position += 1
            }
            _ = try db.run([LedgerStatements.apply(change, source: sourceID, now: now)])
            return commit
        }
    }

    // MARK: - Download tracking

    func pendingDownloadTracking(limit: Int) async throws(StoreError) -> [DownloadTrackingJob] {
        try await database.read("listing downloads to track") { db in
            try DownloadTrackingRow.fetchAll(
                db.cachedStatement(sql: Self.pendingDownloadTrackingSQL), arguments: [limit]
            )
            .map(\.job)
        }
    }

    func markDownloadsTracked(photoIDs: [String], at date: Date) async throws(StoreError) {
        guard !photoIDs.isEmpty else { return }
        let path = database.path
        try await database.write("marking \(photoIDs.count) downloads tracked") { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE photo SET download_tracked_at = COALESCE(download_tracked_at, ?) WHERE id = ?")
            for photoID in photoIDs {
                try statement.execute(arguments: [date.stored, photoID])
                if db.changesCount == 0 {
                    throw StoreError.unknownPhoto(path: path, photoID: photoID)
                }
            }
        }
    }

    // MARK: - SQL

    /// The photos to track. Each one's images are found by its id (`+` keeps SQLite from using
    /// the status index instead: that scans every stored image for each photo, and made each
    /// read of a 3,000-photo sync's tracking queue take up to 0.4 s).
    static let pendingDownloadTrackingSQL = """
        SELECT id AS photo_id, download_location FROM photo
        WHERE download_tracked_at IS NULL AND download_location IS NOT NULL
          AND (EXISTS (SELECT 1 FROM image WHERE image.photo_id = photo.id AND +image.status = \(ImageStatus.stored.sqlLiteral))
               OR EXISTS (SELECT 1 FROM download_request WHERE download_request.photo_id = photo.id))
        ORDER BY sequence
        LIMIT ?
        """

}

/// A photo whose download is still to be tracked, as ``SQLiteSyncLedger/pendingDownloadTrackingSQL``
/// reads it, by position, as `ImageJobRow` is.
private struct DownloadTrackingRow: FetchableRecord {
    let job: DownloadTrackingJob

    init(row: Row) throws {
        job = DownloadTrackingJob(
            photoID: try row.decode(String.self, atIndex: 0), downloadLocation: try row.decode(String.self, atIndex: 1))
    }
}
