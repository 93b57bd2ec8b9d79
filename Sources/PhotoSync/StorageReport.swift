import PhotoStore

extension SyncEngine {
    /// What the storage budget, the disk reserve and the WAL look like now: for metrics.
    public var storage: StorageReport {
        get async {
            let store = environment.store
            let sizes = store.files?.fileSizes
            let (space, pause) = disk.last
            let used = try? await store.archive.storedBytes()
            return StorageReport(
                storedBytes: used, storageLimit: configuration.storageLimit, databaseBytes: sizes?.database,
                walBytes: sizes?.wal, freeDisk: space?.available,
                diskReserve: space.map { configuration.minFreeDisk.bytes(ofDiskOf: $0.total) },
                downloadsPaused: pause != nil, pagesPaused: disk.pagesPaused != nil)
        }
    }
}

/// The storage facts an operator alerts on: see ``SyncEngine/storage``.
public struct StorageReport: Sendable, Equatable {
    /// The bytes of every stored image; nil when the database could not be read.
    public var storedBytes: Int64?
    /// `storage_limit`, when set.
    public var storageLimit: Int64?
    /// The database file and its write-ahead log; nil on a store with no file of its own.
    public var databaseBytes: Int64?
    public var walBytes: Int64?
    /// The free disk the last look saw, and the reserve; nil before the first look.
    public var freeDisk: Int64?
    public var diskReserve: Int64?
    public var downloadsPaused: Bool
    /// Whether pages, too, wait for free disk (below half the reserve).
    public var pagesPaused: Bool

    public init(
        storedBytes: Int64?, storageLimit: Int64?, databaseBytes: Int64?, walBytes: Int64?, freeDisk: Int64?,
        diskReserve: Int64?, downloadsPaused: Bool, pagesPaused: Bool = false
    ) {
        self.storedBytes = storedBytes
        self.storageLimit = storageLimit
        self.databaseBytes = databaseBytes
        self.walBytes = walBytes
        self.freeDisk = freeDisk
        self.diskReserve = diskReserve
        self.downloadsPaused = downloadsPaused
        self.pagesPaused = pagesPaused
    }
}
