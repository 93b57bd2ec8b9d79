import Foundation

/// Copies a whole mirror from one store into another, asking Unsplash for nothing: `photosync
/// copy` and `backup` from PostgreSQL.
///
/// The source is read from one snapshot; the target is written a batch at a time, each batch in
/// one transaction with the progress it reaches, so a copy killed at any moment (even `kill -9`)
/// resumes after the last batch that committed and writes every row once.
public struct MirrorCopy: Sendable {
    /// Where the copy stands, told after every batch.
    public struct Progress: Sendable, Equatable {
        public var table: MirrorTable
        /// The rows of `table` written so far by this process.
        public var rows: Int
        /// The rows of every table written so far by this process.
        public var totalRows: Int
        /// The image bytes written so far by this process.
        public var imageBytes: Int64
        /// Whether `table` is copied to its end: told once a table, after its last batch.
        public var tableComplete: Bool
    }

    /// What a finished copy wrote (in this process: a resumed copy counts from where it resumed).
    public struct Summary: Sendable, Equatable {
        public var rows: [MirrorTable: Int]
        public var imageBytes: Int64
        /// Whether it went on from a copy that stopped before its end.
        public var resumed: Bool
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The target holds a mirror of its own, which a copy must not mix another into.
        case targetHoldsMirror(target: String)
        /// The target holds a copy from another mirror that stopped before its end.
        case targetCopiesAnother(target: String, origin: String)
        /// The store failed.
        case store(StoreError)
    }

    public let source: PhotoStore
    public let target: PhotoStore
    /// The source's name as the target records it: its path, or its URL without a password.
    public let origin: String
    /// The rows a batch holds at most, when not each table's own ``MirrorTable/batchSize``: for
    /// tests that stop a copy between small batches.
    public let rowsPerBatch: Int?

    public init(from source: PhotoStore, to target: PhotoStore, origin: String, rowsPerBatch: Int? = nil) {
        self.source = source
        self.target = target
        self.origin = origin
        self.rowsPerBatch = rowsPerBatch
    }

    /// Copies every table, or goes on with a copy that stopped.
    ///
    /// - Throws: ``Failure``: a target that is neither empty nor a copy from `origin`, or a store
    ///   failure (the batches committed stay, and a second call resumes after them).
    public func run(progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws(Failure) -> Summary {
        let state: CopyTargetState
        do {
            state = try await target.transfer.copyState()
        } catch {
            throw .store(error)
        }
        let start: CopyProgress
        let resumed: Bool
        switch state {
        case .empty:
            start = CopyProgress(origin: origin, table: MirrorTable.allCases[0], after: nil)
            resumed = false
        case .copying(let stopped):
            guard stopped.origin == origin else {
                throw .targetCopiesAnother(target: target.path, origin: stopped.origin)
            }
            start = stopped
            resumed = true
        case .holdsMirror:
            throw .targetHoldsMirror(target: target.path)
        }
        let target = target
        let rowsPerBatch = rowsPerBatch
        do {
            var summary = try await source.transfer.reading { reader throws(StoreError) in
                // Where the target stands is read again here: a reader whose connection was lost
                // runs this again, from the last batch that committed.
                var from = start
                if case .copying(let stopped) = try await target.transfer.copyState() { from = stopped }
                return try await Self.copy(
                    from: reader, to: target.transfer, start: from, rowsPerBatch: rowsPerBatch, progress: progress)
            }
            try await target.transfer.finishCopy()
            summary.resumed = resumed
            return summary
        } catch {
            throw .store(error)
        }
    }

    private static func copy(
        from reader: any MirrorReader, to target: any StoreTransfer, start: CopyProgress, rowsPerBatch: Int?,
        progress: @Sendable (Progress) -> Void
    ) async throws(StoreError) -> Summary {
        var summary = Summary(rows: [:], imageBytes: 0, resumed: false)
        var totalRows = 0
        let tables = MirrorTable.allCases.drop { $0 != start.table }
        for table in tables {
            let limit = rowsPerBatch ?? table.batchSize
            var rows = 0
            var after = table == start.table ? start.after : nil
            while true {
                let batch = try await reader.rows(of: table, after: after, limit: limit)
                guard let last = batch.lastKey else { break }
                try await target.write(batch, reaching: CopyProgress(origin: start.origin, table: table, after: last))
                after = last
                rows += batch.count
                totalRows += batch.count
                summary.imageBytes += batch.imageBytes
                progress(
                    Progress(
                        table: table, rows: rows, totalRows: totalRows, imageBytes: summary.imageBytes,
                        tableComplete: false))
            }
            summary.rows[table] = rows
            progress(
                Progress(
                    table: table, rows: rows, totalRows: totalRows, imageBytes: summary.imageBytes, tableComplete: true)
            )
        }
        return summary
    }
}
