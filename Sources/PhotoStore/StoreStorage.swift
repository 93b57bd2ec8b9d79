/// The storage under a store's parts as every database has it: the side connections `serve`
/// writes its few rows through, who holds the writer role, whether it is a standby, and closing.
///
/// What only a database kept in a file of photosync's own has (its size on disk, a write-ahead
/// log to fold back, freed pages to give back, a backup file) is ``FileStorage``, a capability
/// that SQLite's driver offers (``PhotoStore/files``) and a server's store does not claim.
public protocol StoreStorage: Sendable {
    /// Opens the connection `serve` records its clients' download requests through.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    func openDownloadRequests() throws(StoreError) -> any DownloadRequests

    /// Opens the connection `serve` records its clients' requests for photos' details through.
    /// - Throws: `StoreError.cannotOpen` when it cannot be opened for writing.
    func openPhotoDetailsRequests() throws(StoreError) -> any PhotoDetailsRequests

    /// Who holds the writer lease of a database that several hosts share (PostgreSQL), as the
    /// database says now; nil for a database file, whose writer is whoever holds its lock file,
    /// and for a database no `run` has written yet.
    func writerLease() async throws(StoreError) -> WriterLeaseHolder?

    /// Whether the database is a read-only standby of another (a PostgreSQL hot standby, a
    /// replica), and how far behind it is; nil for one that takes writes (a primary, a file).
    func standby() async throws(StoreError) -> StandbyState?

    /// Closes the connection; every later call throws.
    func close() throws(StoreError)
}

/// The upkeep of a database that lives in a file of photosync's own (SQLite's): its size on
/// disk, the write-ahead log, the pages pruning frees, and a copy of it. A server keeps its own
/// files (autovacuum, its log, `pg_dump`), so its driver does not offer this: the callers ask
/// ``PhotoStore/files`` and do this upkeep only when there is a file.
public protocol FileStorage: Sendable {
    /// The sizes of the database's files now, from the file system; a missing file counts 0.
    var fileSizes: DatabaseFileSizes { get }

    /// Whether freed pages can be given back to the file system (`auto_vacuum = INCREMENTAL`).
    /// Databases created by this version are; older ones until
    /// ``enableIncrementalVacuum(freeDisk:largest:starting:)``.
    func hasIncrementalVacuum() async throws(StoreError) -> Bool

    /// Converts a database from before incremental vacuum, once: sets `auto_vacuum =
    /// INCREMENTAL` and rewrites the file with `VACUUM`, which holds the writer until it is done
    /// (about a second per 100 MB here) and needs room for a copy of the file. So it is meant
    /// for the start of `run`, before any writer stage starts, and it is skipped when `freeDisk`
    /// (the bytes free beside the file) is less than twice the file, or the file (with its log)
    /// is larger than `largest`.
    ///
    /// - Parameter starting: called with the file's size (with its log) just before the `VACUUM`,
    ///   only when there is one: for a person waiting on it.
    func enableIncrementalVacuum(
        freeDisk: Int64, largest: Int64, starting: (Int64) -> Void
    ) async throws(StoreError) -> IncrementalVacuumConversion

    /// Gives pages on the free list (left by pruned images) back to the file system, at most
    /// `maxPages` per transaction so that the writer is held for a few milliseconds at a time.
    /// Does nothing on a database without incremental vacuum.
    ///
    /// - Returns: the pages freed.
    @discardableResult
    func incrementalVacuum(maxPages: Int) async throws(StoreError) -> Int

    /// Copies the write-ahead log into the database and truncates it, so that the log does not
    /// sit at its high-water mark between polls. For idle moments: it waits for readers to finish.
    func checkpoint() async throws(StoreError)

    /// Copies what readers allow of the write-ahead log into the database without waiting for
    /// anyone (`PASSIVE`), so that the log stops growing as soon as a long reader lets go.
    func checkpointPassively() async throws(StoreError)

    /// Copies the database, as it stands when the copy starts, into the file at `destination`,
    /// without blocking a writer.
    ///
    /// - Parameters:
    ///   - destination: an empty or existing database file, whose content is replaced.
    ///   - progress: called after each step.
    /// - Throws: `StoreError.databaseFailure` naming the destination when it cannot be written,
    ///   or this database when it cannot be read.
    func backup(to destination: String, progress: @escaping @Sendable (BackupProgress) -> Void) async throws(StoreError)
}

/// A read-only standby of another database, as it says of itself: what `status`, `/metrics` and
/// `/healthz` show of a replica that `serve` reads.
public struct StandbyState: Sendable, Equatable, CustomStringConvertible {
    /// How far behind its primary the standby is: nothing when it has replayed everything it
    /// received while receiving; otherwise the age of the last transaction it replayed (which
    /// grows while the primary is idle too, when nothing arrives); nil before the standby
    /// replayed any.
    public var lag: Duration?
    /// Whether it is receiving the primary's changes now (its WAL receiver runs). A standby cut
    /// off from its primary, or fed from an archive, is not.
    public var receiving: Bool

    public init(lag: Duration?, receiving: Bool) {
        self.lag = lag
        self.receiving = receiving
    }

    /// Whether it lags more than `bound`, or by an unknown amount.
    public func lags(beyond bound: Duration) -> Bool {
        lag.map { $0 > bound } ?? true
    }

    /// The lag in seconds, to a tenth.
    public var lagSeconds: Double? {
        lag.map { Double($0.components.seconds) + Double($0.components.attoseconds / 100_000_000_000_000_000) / 10 }
    }

    /// "a standby 0.0 s behind its primary, receiving its changes", as `status` and `/healthz` say it.
    public var description: String {
        guard let seconds = lagSeconds else {
            return "a standby that has replayed nothing of its primary yet"
                + (receiving ? ", receiving its changes" : ", not receiving its changes")
        }
        let behind = String(format: "%.1f", seconds)
        return receiving
            ? "a standby \(behind) s behind its primary, receiving its changes"
            : "a standby not receiving its primary's changes, the last it replayed \(behind) s old"
    }
}

/// The holder of a shared database's writer lease: what a standby `run` and `status` show.
public struct WriterLeaseHolder: Sendable, Equatable {
    public var host: String
    public var pid: Int32
    /// Grows by one with every new holder.
    public var epoch: Int64
    /// How long ago the holder last renewed the lease, by the database's clock.
    public var renewedAgo: Duration
    /// Whether the lease expired, or was given up, with no new holder yet.
    public var expired: Bool

    public init(host: String, pid: Int32, epoch: Int64, renewedAgo: Duration, expired: Bool) {
        self.host = host
        self.pid = pid
        self.epoch = epoch
        self.renewedAgo = renewedAgo
        self.expired = expired
    }
}

extension FileStorage {
    /// Gives back the free list's pages, 1024 per transaction: see ``incrementalVacuum(maxPages:)``.
    @discardableResult
    public func incrementalVacuum() async throws(StoreError) -> Int {
        try await incrementalVacuum(maxPages: 1024)
    }
}

/// What ``FileStorage/enableIncrementalVacuum(freeDisk:largest:starting:)`` did.
public enum IncrementalVacuumConversion: Sendable, Equatable {
    /// The database already had it: nothing to do.
    case alreadyIncremental
    /// Converted, in this long.
    case converted(Duration)
    /// Not converted: the free disk does not hold twice the file, which a `VACUUM` needs.
    case tooLittleFreeDisk
    /// Not converted: the file is larger than `largest`, and its `VACUUM` would hold the
    /// writer for longer than a start may take.
    case tooLarge
}

/// How large the database's files are on disk.
public struct DatabaseFileSizes: Sendable, Equatable {
    /// The main file.
    public var database: Int64
    /// The write-ahead log (`-wal`).
    public var wal: Int64

    public init(database: Int64, wal: Int64) {
        self.database = database
        self.wal = wal
    }
}

/// How far a backup has come, in database pages.
public struct BackupProgress: Sendable, Equatable {
    public var pagesCopied: Int
    public var pagesTotal: Int

    public init(pagesCopied: Int, pagesTotal: Int) {
        self.pagesCopied = pagesCopied
        self.pagesTotal = pagesTotal
    }
}
