import Foundation

/// Where a copy into a store stands, kept alike by both drivers: the row of `photosync_copy`, a
/// table that exists only while a copy is under way in the database. The first batch creates it
/// (``progress(_:)``, in the batch's transaction), ``finish`` drops it.
package enum CopyStatements {
    /// Records `progress` in the transaction of the batch that reached it.
    package static func progress(_ progress: CopyProgress) -> [SQLStatement] {
        let (afterInteger, afterText) = progress.afterColumns
        return [
            """
            CREATE TABLE IF NOT EXISTS photosync_copy (
                id integer PRIMARY KEY CHECK (id = 1), origin text NOT NULL, stage text NOT NULL,
                after_integer bigint, after_text text)
            """,
            """
            INSERT INTO photosync_copy (id, origin, stage, after_integer, after_text)
            VALUES (1, \(progress.origin), \(progress.table.rawValue), \(afterInteger), \(afterText))
            ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, stage = excluded.stage,
                after_integer = excluded.after_integer, after_text = excluded.after_text
            """,
        ]
    }

    /// Ends the copy.
    package static let finish: [SQLStatement] = ["DROP TABLE IF EXISTS photosync_copy"]
}

extension SQLExecutor {
    /// What a copy finds in this store before it starts: a copy under way, a mirror, or nothing.
    package func copyState() async throws(StoreError) -> CopyTargetState {
        let (copying, holdsRows) = try await read(
            "reading where a copy stands",
            [
                """
                SELECT \(
                    sqlite: "EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'photosync_copy')",
                    postgres: "to_regclass('photosync_copy') IS NOT NULL")
                """,
                """
                SELECT EXISTS (SELECT 1 FROM photo) OR EXISTS (SELECT 1 FROM source)
                    OR EXISTS (SELECT 1 FROM image) OR EXISTS (SELECT 1 FROM rejected_photo)
                """,
            ]
        ) { results in (try results[0].first?.boolean(0) ?? false, try results[1].first?.boolean(0) ?? false) }
        guard copying else { return holdsRows ? .holdsMirror : .empty }
        // The copy holds the writer's lock: the table stays between the two reads.
        return try await read(
            "reading where a copy stands", "SELECT origin, stage, after_integer, after_text FROM photosync_copy"
        ) { rows in
            guard let row = rows.first, let origin = try row.text(0),
                let table = try row.text(1).flatMap(MirrorTable.init(rawValue:))
            else { return .holdsMirror }
            return .copying(
                CopyProgress(origin: origin, table: table, afterInteger: try row.integer(2), afterText: try row.text(3))
            )
        }
    }
}
