import Foundation

/// The statements of a page commit that both drivers run alike, inside the commit's own
/// transaction (each driver runs them on its connection: `Database.rows(_:)` on SQLite,
/// `PostgresConnection.rows(_:_:)` on PostgreSQL). How the page's photos and jobs are written
/// stays each driver's: one statement a photo on SQLite, one for the page on PostgreSQL.
package enum LedgerStatements {
    /// Creates the source named `name` if it is new (active); ``sourceID(_:)`` reads its id from
    /// the statements' rows.
    package static func source(named name: String) -> [SQLStatement] {
        [
            "INSERT INTO source (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING",
            "SELECT id FROM source WHERE name = \(name)",
        ]
    }

    /// The id in the rows of ``source(named:)``'s statements.
    package static func sourceID(_ results: [[any SQLRow]]) throws -> Int64 {
        guard let id = try results.last?.first?.integer(0) else {
            throw MirrorValueMismatch(table: "source", column: "id", value: .null)
        }
        return id
    }

    /// The highest sequence of a stored photo (no row: none).
    package static let maxSequence: SQLStatement = "SELECT MAX(sequence) FROM photo"

    /// The last position in `source`'s block of memberships that `change` adds to
    /// (``MembershipPositions``), and the block; the next is `MembershipPositions.first(after:in:)`.
    /// Read as the first entry of `photo_source_position` backwards, which both planners take in
    /// one step, where a `MAX` over the range might read the whole block.
    package static func lastPosition(
        before change: CursorChange, source: Int64
    ) throws(MembershipPositions.BaselineOutOfRange) -> (SQLStatement, block: Range<Int64>?) {
        let block = try MembershipPositions.block(for: change)
        return (
            """
            SELECT position FROM photo_source
            WHERE source_id = \(source) AND position >= \(block?.lowerBound ?? .min)
              AND position < \(block?.upperBound ?? .max)
            ORDER BY position DESC LIMIT 1
            """, block
        )
    }

    /// Adds `element` to `rejected_photo`, or moves its last-seen time; ``isNew(_:)`` reads from
    /// the statements' rows whether it was new.
    package static func recordRejected(_ element: RejectedPhoto, seenAt now: Date) -> [SQLStatement] {
        let json = String(decoding: element.json, as: UTF8.self)
        return [
            "SELECT EXISTS (SELECT 1 FROM rejected_photo WHERE json = \(json))",
            """
            INSERT INTO rejected_photo (photo_id, json, reason, first_seen_at, last_seen_at)
            VALUES (\(element.photoID), \(json), \(element.reason), \(now), \(now))
            ON CONFLICT (json) DO UPDATE SET last_seen_at = excluded.last_seen_at, reason = excluded.reason
            """,
        ]
    }

    /// Whether the element of ``recordRejected(_:seenAt:)``'s statements was new.
    package static func isNew(_ results: [[any SQLRow]]) throws -> Bool {
        try !(results.first?.first?.boolean(0) ?? false)
    }

    /// Moves `source`'s cursor as `cursor` says. A page stored means the source exists: an
    /// earlier failure is over. A finished catch-up leaves no baseline behind: "in progress" is
    /// `catch_up_next IS NOT NULL`.
    package static func apply(_ cursor: CursorChange, source: Int64, now: Date) -> SQLStatement {
        switch cursor {
        case .backfill(let next):
            """
            UPDATE source SET backfill_next = \(next?.absoluteString), backfill_complete = \(next == nil),
                last_page_at = \(now), backfill_stall_reason = NULL, backfill_stalled_at = NULL,
                error = NULL, error_at = NULL
            WHERE id = \(source)
            """
        case .catchUp(let next, let baseline):
            """
            UPDATE source SET catch_up_next = \(next?.absoluteString), catch_up_baseline = \(next == nil ? nil : baseline),
                last_page_at = \(now), error = NULL, error_at = NULL
            WHERE id = \(source)
            """
        }
    }
}

extension LedgerStatements {
    /// Writes one photo of a page's commit, one statement a photo: inserts a new one, or
    /// rewrites the API's columns of one stored already (``keptByPageCommits`` stay). The columns
    /// are `photo`'s description (``MirrorPhoto``), the one list of them.
    package static func write(_ planned: PageCommitPlan.Planned, seenAt now: Date) -> SQLStatement {
        let values = MirrorPhoto(planned.record, sequence: planned.sequence, seenAt: now).mirrorValues
        guard planned.isStored else { return SQLStatement(fragments: [insertPhoto, .list(values)]) }
        var fragments: [SQLStatement.Fragment] = []
        fragments.reserveCapacity(2 * replacedColumns.count + 2)
        for (index, assignment) in replacedColumns { fragments += [assignment, .value(values[index])] }
        fragments += [.sql(" WHERE id = "), .value(.text(planned.record.id))]
        return SQLStatement(fragments: fragments)
    }

    /// The text before an insert's values, made once: a sync writes it for every new photo.
    private static let insertPhoto = SQLStatement.Fragment.sql(
        "INSERT INTO photo (\(MirrorPhoto.mapping.description.columns.map(\.name).joined(separator: ", "))) VALUES ")

    /// The columns an update rewrites, each by its place in `MirrorPhoto`'s values and the text
    /// before its value (`UPDATE photo SET name = `, `, name = `), made once.
    private static let replacedColumns: [(Int, SQLStatement.Fragment)] = {
        let columns = MirrorPhoto.mapping.description.columns.map(\.name).enumerated()
        return columns.filter { !keptByPageCommits.contains($0.element) }.enumerated().map { place, column in
            (column.offset, .sql((place == 0 ? "UPDATE photo SET " : ", ") + column.element + " = "))
        }
    }()

    /// What a page commit keeps of a photo it already had: the rest is the API's, replaced by
    /// every page that lists the photo.
    package static let keptByPageCommits: Set<String> = ["id", "sequence", "first_seen_at", "download_tracked_at"]
}

extension MirrorPhoto {
    /// `photo` as a page lists it, first (and last) seen at `now`, its download not tracked yet.
    package init(_ photo: PhotoRecord, sequence: Int64, seenAt now: Date) {
        self.init(
            id: photo.id, sequence: sequence, createdAt: photo.createdAt, updatedAt: photo.updatedAt,
            width: photo.width, height: photo.height, color: photo.color, blurHash: photo.blurHash,
            description: photo.description, altDescription: photo.altDescription, userUsername: photo.userUsername,
            userName: photo.userName, likes: photo.likes, isSponsored: photo.isSponsored,
            downloadLocation: photo.downloadLocation, downloadTrackedAt: nil, isPlus: photo.isPlus,
            json: String(decoding: photo.json, as: UTF8.self), firstSeenAt: now, lastSeenAt: now)
    }
}
