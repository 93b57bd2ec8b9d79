import PhotoStore

/// Holds the page walker back while too many images wait for their first download: at most
/// ``limit`` queued images when it fetches another page, so it never runs more than a few
/// pages ahead of the fetchers, however slow the image hosts are.
///
/// The count comes from the store (pending jobs never attempted), so images queued by an
/// earlier run count too, and a failed image waiting for its retry does not hold the walk up.
struct ImageBacklog: Sendable {
    let store: PhotoStore
    let variants: [ImageVariant]
    /// Queued images at or above which the walker waits.
    let limit: Int
    /// Signalled after every commit of the image writer.
    let imagesSettled: WakeSignal

    init(store: PhotoStore, variants: [ImageVariant], limit: Int, imagesSettled: WakeSignal) {
        self.store = store
        self.variants = variants
        self.limit = limit
        self.imagesSettled = imagesSettled
    }

    init(store: PhotoStore, variant: ImageVariant, limit: Int, imagesSettled: WakeSignal) {
        self.init(store: store, variants: [variant], limit: limit, imagesSettled: imagesSettled)
    }

    /// Says whether image downloads are paused for want of disk space: then the walk goes on
    /// regardless, since waiting for downloads would stop pages as well.
    var downloadsPaused: @Sendable () -> Bool = { false }

    /// Returns once fewer than ``limit`` images wait for their first download, or at once while
    /// downloads are paused.
    /// Throws ``SyncError/store(_:)``, or `CancellationError` when cancelled.
    func waitForRoom() async throws {
        while !downloadsPaused(),
            try await readingStore({ () async throws(StoreError) in
                try await store.imageQueue.unattemptedImageCount(variants: variants, upTo: limit)
            }) >= limit
        {
            await imagesSettled.wait()
            try Task.checkCancellation()
        }
    }
}
