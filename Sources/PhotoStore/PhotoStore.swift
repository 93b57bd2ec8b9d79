/// The photosync store: the parts that each own one concern of it, over one connection.
///
/// - ``ledger``: what the sync engine records of its walk: pages, cursors, sources, rejected
///   photos, download tracking.
/// - ``imageQueue``: the images waiting to be downloaded, and those given up on.
/// - ``archive``: image bytes in and out: stored in batches, streamed, verified.
/// - ``catalog``: what a person looks up: listing, search, one photo, statistics.
/// - ``photoDetails``: photos' full objects.
/// - ``storage``: the storage under them: side connections, the writer role, standbys, closing.
/// - ``files``: the upkeep of a database in a file of its own (SQLite's), when it is one.
/// - ``transfer``: the whole mirror out and in, for `photosync copy`.
///
/// Each part is a protocol whose arguments and results are photosync's own types, and every
/// method is `async` and throws only `StoreError`: the callers (the sync engine, the gallery,
/// the command line) know nothing of the database behind it. A driver (`PhotoStoreSQLite`,
/// `PhotoStorePostgres`) opens one and gives its conforming parts to
/// ``init(path:ledger:imageQueue:archive:catalog:photoDetails:storage:files:transfer:holdsWriterRole:)``;
/// only the command line picks the driver.
///
/// Every method runs in one transaction. Whatever one call changes commits together or not at
/// all: a page's photos with the cursor that records them, an image's bytes with its job's
/// status. Nothing runs on the calling thread: a task waiting for the store holds none of the
/// threads every task needs.
public final class PhotoStore: Sendable {
    /// What names the store in messages: the database file's path. Every `StoreError` names it.
    public let path: String
    /// Pages, cursors, sources, rejected photos and download tracking.
    public let ledger: any SyncLedger
    /// The image download queue.
    public let imageQueue: any ImageQueue
    /// Image bytes: storing, streaming, verifying.
    public let archive: any ImageArchive
    /// Listing, search, photo lookup and statistics.
    public let catalog: any PhotoCatalog
    /// Photos' full objects.
    public let photoDetails: any PhotoDetailsStore
    /// Side connections, the writer role, standbys, and the connection itself.
    public let storage: any StoreStorage
    /// The upkeep of a database kept in a file of photosync's own: SQLite's driver offers it,
    /// PostgreSQL's does not (its server keeps its own files).
    public let files: (any FileStorage)?
    /// The whole mirror, table by table, out of this store and into another.
    public let transfer: any StoreTransfer
    /// Whether this process may still act as the database's one writer outside the database
    /// (send Unsplash a download-tracking request that the database will record), by its own
    /// clock: always, with SQLite's lock file, which only the process's end lets go of; while
    /// the writer lease has certainly not expired, on PostgreSQL, where a standby may take it
    /// (a paused holder that comes back learns here that it must not send what the new holder
    /// will send).
    public let holdsWriterRole: @Sendable () -> Bool
    /// A store made of these parts, over one connection that `storage` closes.
    public init(
        path: String, ledger: any SyncLedger, imageQueue: any ImageQueue, archive: any ImageArchive,
        catalog: any PhotoCatalog, photoDetails: any PhotoDetailsStore, storage: any StoreStorage,
        files: (any FileStorage)?, transfer: any StoreTransfer,
        holdsWriterRole: @escaping @Sendable () -> Bool = { true }
    ) {
        self.holdsWriterRole = holdsWriterRole
        self.path = path
        self.ledger = ledger
        self.imageQueue = imageQueue
        self.archive = archive
        self.catalog = catalog
        self.photoDetails = photoDetails
        self.storage = storage
        self.files = files
        self.transfer = transfer
    }

    /// Closes the connection; every later call throws. `run` closes a database it created
    /// before deleting it, so that no open connection is left writing to removed files.
    public func close() throws(StoreError) {
        try storage.close()
    }
}
