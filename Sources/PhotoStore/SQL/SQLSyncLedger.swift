import Foundation

/// The ledger's methods that read and write the `source` table and its neighbours, written once
/// for a driver's ``SyncLedger`` that offers its ``SQLExecutor``. The page commit and the
/// download tracking stay the driver's: their statements and round trips differ.
package protocol SQLSyncLedger: SyncLedger {
    var sql: any SQLExecutor { get }
}

extension SQLSyncLedger {
    package func syncState(source: PhotoSource) async throws(StoreError) -> SyncState {
        try await sql.read(
            "reading the state of \(source)",
            "SELECT \(sql: SyncState.columns) FROM source WHERE name = \(source.description)"
        ) { rows in try rows.first.map { try SyncState($0, from: 0) } ?? SyncState() }
    }

    package func recordBackfillStall(reason: String, source: PhotoSource, at now: Date) async throws(StoreError) {
        try await updateSource(
            source.description, "recording a stall of \(source)",
            "backfill_stall_reason = \(reason), backfill_stalled_at = COALESCE(backfill_stalled_at, \(now))")
    }

    package func recordSourceFailure(_ source: PhotoSource, message: String, at now: Date) async throws(StoreError) {
        try await updateSource(
            source.description, "recording a failure of \(source)",
            "error = \(message), error_at = COALESCE(error_at, \(now))")
    }

    package func storeSourceObject(_ json: Data, sources: [PhotoSource], at now: Date) async throws(StoreError) {
        let text = String(decoding: json, as: UTF8.self)
        let names = sources.map(\.description)
        try await sql.write(
            "storing the object of \(names.joined(separator: ", "))",
            names.flatMap { Self.update(source: $0, "object_json = \(text), object_fetched_at = \(now)") }
        ) { _ in }
    }

    package func recordConfigurationLoaded(at date: Date, reload: Bool) async throws(StoreError) {
        try await sql.write(
            "recording when the configuration was loaded",
            [
                """
                INSERT INTO configuration_load (id, loaded_at, reason) VALUES (1, \(date), \(reload ? "reload" : "start"))
                ON CONFLICT (id) DO UPDATE SET loaded_at = excluded.loaded_at, reason = excluded.reason
                """
            ]
        ) { _ in }
    }

    package func activateSources(_ sources: [PhotoSource]) async throws(StoreError) {
        try await sql.write(
            "recording the configured sources",
            ["UPDATE source SET active = \(false)"]
                + sources.flatMap { Self.update(source: $0.description, "active = \(true)") }
        ) { _ in }
    }

    package func rejectedPhotos(limit: Int) async throws(StoreError) -> [RejectedPhoto] {
        try await sql.read(
            "listing rejected photos", "SELECT photo_id, json, reason FROM rejected_photo ORDER BY id LIMIT \(limit)"
        ) {
            rows in
            try rows.map { row in
                RejectedPhoto(photoID: try row.text(0), json: try row.json(1) ?? Data(), reason: try row.text(2) ?? "")
            }
        }
    }

    package func maxSequence() async throws(StoreError) -> Int64 {
        try await sql.read("reading the highest sequence", "SELECT MAX(sequence) FROM photo") { rows in
            try rows.first?.integer(0) ?? 0
        }
    }

    package func maxMembership() async throws(StoreError) -> Int64 {
        try await sql.read("reading the newest membership", "SELECT MAX(id) FROM photo_source") { rows in
            try rows.first?.integer(0) ?? 0
        }
    }

    package func sourceObjectsFetched(sources: [PhotoSource]) async throws(StoreError) -> [PhotoSource: Date] {
        guard !sources.isEmpty else { return [:] }
        return try await sql.read(
            "reading when source objects were fetched",
            """
            SELECT name, object_fetched_at FROM source
            WHERE name IN \(list: sources.map(\.description)) AND object_json IS NOT NULL
            """
        ) { rows in
            let names = try rows.map { (try $0.text(0), try $0.date(1)) }
            return Dictionary(
                uniqueKeysWithValues: sources.compactMap { source in
                    names.first { $0.0 == source.description }?.1.map { (source, $0) }
                })
        }
    }

    /// Sets `assignments` on the source named `name`, created (active) if it is new, in one
    /// write.
    private func updateSource(_ name: String, _ operation: String, _ assignments: SQLStatement) async throws(StoreError)
    {
        try await sql.write(operation, Self.update(source: name, assignments)) { _ in }
    }

    /// The statements that create the source named `name` if it is new (active) and set
    /// `assignments` on it.
    private static func update(source name: String, _ assignments: SQLStatement) -> [SQLStatement] {
        [
            "INSERT INTO source (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING",
            "UPDATE source SET \(sql: assignments) WHERE name = \(name)",
        ]
    }
}

extension SyncState {
    /// A source's state in its row, in the order ``init(_:from:)`` reads it.
    static let columns: SQLStatement = """
        backfill_next, backfill_complete, catch_up_next, catch_up_baseline, last_page_at, backfill_stall_reason,
        backfill_stalled_at
        """

    /// The state in the ``columns`` of `row` from `first` on.
    init(_ row: any SQLRow, from first: Int) throws {
        let stalledAt = try row.date(first + 6)
        self.init(
            backfillNext: try row.text(first).flatMap(URL.init(string:)), backfillComplete: try row.boolean(first + 1),
            catchUpNext: try row.text(first + 2).flatMap(URL.init(string:)),
            catchUpBaseline: try row.integer(first + 3), lastPageAt: try row.date(first + 4),
            backfillStall: try row.text(first + 5).map {
                BackfillStall(reason: $0, since: stalledAt ?? Date(timeIntervalSince1970: 0))
            })
    }
}
