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
