import PhotoStore

/// Awaits a store read, turning its `StoreError` into ``SyncError/store(_:)``: the async
/// counterpart of `storing`, for the store's readers, which run on GRDB's reader queues.
func readingStore<T>(_ body: () async throws(StoreError) -> T) async throws(SyncError) -> T {
    do {
        return try await body()
    } catch {
        throw .store(error)
    }
}

/// Awaits a store write, turning its `StoreError` into ``SyncError/store(_:)``. The store's
/// async writes run on GRDB's writer queue while the task is suspended, so a write never holds
/// one of the threads that run every task (`storing` is for the threads of ``BlockingWork``).
func writingStore<T>(_ body: () async throws(StoreError) -> T) async throws(SyncError) -> T {
    try await readingStore(body)
}
