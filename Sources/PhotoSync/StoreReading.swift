import PhotoStore

/// Awaits a store read, turning its `StoreError` into ``SyncError/store(_:)``.
func readingStore<T>(_ body: () async throws(StoreError) -> T) async throws(SyncError) -> T {
    do {
        return try await body()
    } catch {
        throw .store(error)
    }
}

/// Awaits a store write, turning its `StoreError` into ``SyncError/store(_:)``. The store's
/// writes run off the threads that run every task while the calling task is suspended.
func writingStore<T>(_ body: () async throws(StoreError) -> T) async throws(SyncError) -> T {
    try await readingStore(body)
}
