import PhotoSync

/// Whether `error` is how the engine says it was cancelled: ``SyncError/cancelled``.
func isSyncCancellation(_ error: any Error) -> Bool {
    if case .cancelled = error as? SyncError { return true }
    return false
}
