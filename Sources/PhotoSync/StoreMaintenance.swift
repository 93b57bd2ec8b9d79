import Foundation
import Logging
import Networking
import PhotoStore

/// The store's upkeep beside the pipeline: the spool emptied at a start, the storage budget
/// (converting to incremental vacuum once, pruning to a lowered budget), and the idle vacuum and
/// checkpoint. ``RoundLoop`` runs the first two as its rounds are prepared; the idle work runs
/// in ``SyncEngine/maintainWhileIdle()``, a service of its own beside the daemon's loop.
///
/// Every write here is awaited on GRDB's writer queue, and the spool's files are removed on a
/// thread of their own: none of it blocks a thread of the cooperative pool.
struct StoreMaintenance: Sendable {
    let store: PhotoStore
    let disk: DiskReserveWatch
    let logger: Logger
    let progress: ProgressTracker
    private let files = BlockingWork(label: "photosync.spool")

    init(store: PhotoStore, disk: DiskReserveWatch, logger: Logger, progress: ProgressTracker) {
        self.store = store
        self.disk = disk
        self.logger = logger
        self.progress = progress
    }

    /// Empties the spool of what a killed run left (its directory must be the engine's alone).
    /// - Throws: ``SyncError/spool(_:)``.
    func emptySpool(_ spool: BodySpool) async throws {
        let leftovers: Int
        do {
            leftovers = try await files.run { try spool.prepare() }
        } catch let error as SpoolError {
            throw SyncError.spool(error)
        }
        if leftovers > 0 {
            logger.info("removed download files left by an earlier run", metadata: ["count": "\(leftovers)"])
        }
    }

    /// Brings the stored images within `storageLimit` now (a budget lowered since the last run
    /// takes effect at once, not at the next image), after converting the database to
    /// incremental vacuum if it is not yet, so that what is pruned can be given back.
    func fit(storageLimit: Int64) async throws {
        try await convertForIncrementalVacuum()
        let pruned = try await writingStore { () async throws(StoreError) in
            try await store.archive.prune(toFit: storageLimit)
        }
        guard !pruned.isEmpty else { return }
        let bytes = pruned.reduce(Int64(0)) { $0 + $1.byteCount }
        logger.notice(
            "images pruned to fit a lower storage_limit", metadata: ["count": "\(pruned.count)", "bytes": "\(bytes)"])
        await progress.update {
            $0.imagesPruned += pruned.count
            $0.bytesPruned += bytes
        }
    }

    /// A database from before incremental vacuum never gives pruned pages back to the file
    /// system: it is converted once, here, before any stage writes (``PhotoStore``'s
    /// `enableIncrementalVacuum(freeDisk:largest:)` says what it costs), when that takes seconds.
    private func convertForIncrementalVacuum() async throws {
        guard let file = store.files else { return }
        let free = disk.probe()?.available ?? 0
        let sizes = file.fileSizes
        let logger = logger
        let conversion = try await writingStore { () async throws(StoreError) in
            try await file.enableIncrementalVacuum(freeDisk: free, largest: Self.largestConversion) { bytes in
                logger.notice(
                    "converting the database to incremental vacuum (once), so that pruned images free disk space",
                    metadata: ["bytes": "\(bytes)"])
            }
        }
        // Either way pruned images' pages are still reused: the file stops growing, but does not shrink.
        switch conversion {
        case .alreadyIncremental:
            break
        case .converted(let duration):
            logger.notice("converted to incremental vacuum", metadata: ["ms": "\(Int(duration / .milliseconds(1)))"])
        case .tooLittleFreeDisk:
            logger.warning(
                "not converted to incremental vacuum: too little free disk for a copy of the database",
                metadata: ["free_bytes": "\(free)", "database_bytes": "\(sizes.database)"])
        case .tooLarge:
            let offline = "stop photosync, then: sqlite3 \(store.path) 'PRAGMA auto_vacuum = INCREMENTAL; VACUUM'"
            logger.warning(
                "not converted to incremental vacuum: the database is too large to rewrite at a start",
                metadata: ["database_bytes": "\(sizes.database)", "to_convert": "\(offline)"])
        }
    }

    /// The largest database converted at a start: 2 GiB, about 20 s of `VACUUM` on this
    /// project's machine. A larger one would hold the writer, and the daemon's start, for minutes.
    static let largestConversion: Int64 = 2 << 30

    /// Gives the pages of pruned images back to the file system, a few at a time, so that the
    /// file shrinks toward the budget.
    func vacuum() async {
        do {
            guard let file = store.files else { return }
            let pages = try await file.incrementalVacuum()
            if pages > 0 { logger.debug("free pages returned to the file system", metadata: ["pages": "\(pages)"]) }
        } catch {
            logger.debug("incremental vacuum failed", metadata: ["error": "\(error.localizedDescription)"])
        }
    }

    /// Folds the write-ahead log back into the database before a long idle wait. A reader
    /// holding an old snapshot can make it fail; the next idle moment tries again.
    func checkpoint() async {
        do {
            try await store.files?.checkpoint()
        } catch {
            logger.debug("write-ahead log not checkpointed", metadata: ["error": "\(error.localizedDescription)"])
        }
    }
}

extension SyncEngine {
    /// The daemon's idle upkeep, run beside ``run()`` (a service of its own): after each round
    /// that leaves the daemon idle, gives pruned pages back to the file system and checkpoints
    /// the write-ahead log. Returns when cancelled, or after `times` upkeeps (for a test).
    public func maintainWhileIdle(times: Int = .max) async {
        var done = 0
        while done < times, !Task.isCancelled {
            await becameIdle.wait()
            guard !Task.isCancelled else { return }
            await maintenance.vacuum()
            await maintenance.checkpoint()
            done += 1
        }
    }
}
