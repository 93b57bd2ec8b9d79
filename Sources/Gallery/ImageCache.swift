import NIOCore
import PhotoStore
import Synchronization

/// The images `/images` served last, kept in memory as the buffers they were sent in, so that a
/// hot image is answered as nginx answers a file in the page cache: one write of bytes already
/// in memory, no read of the store's bytes and no copy.
///
/// Measured before this existed (Benchmarks/images.sh, `perf`): of `serve`'s time on a 200 KB
/// image from SQLite, about a third went to reading it (two pool reads: its row, then its blob
/// into a `Data`), copying it into a `ByteBuffer`, and the page faults of allocating both anew
/// for every request; PostgreSQL added two round trips and its chunk rows read twice.
///
/// What a request may take from here is only ever what the store says is current, within
/// ``recheck``: an entry is the image's row (``StoredImage``, its SHA-256 naming the bytes) and,
/// when it fits, its bytes. For ``recheck`` after the store last confirmed it (a second, the lag
/// `serve`'s listings keep too) the row answers without a read; then the next request reads the
/// row again: gone (pruned, its photo removed) ends the entry; another SHA-256 (stored again)
/// drops the bytes. Bytes are kept only whole and complete, as a full answer streamed them.
///
/// At most ``budget`` bytes are kept, and no image over ``largest``; past the budget the least
/// recently used images go first. Rows without bytes are small, and as many as ``maxRows``.
final class ImageCache: Sendable {
    /// How long after the store confirmed an image's row it is used without asking again.
    let recheck: Duration
    /// The most bytes kept, all images together.
    let budget: Int
    /// The largest image kept: a larger one is always streamed from the store.
    let largest: Int
    /// The most rows kept, with or without their bytes.
    let maxRows = 4_096
    /// A monotonic clock.
    private let now: @Sendable () -> ContinuousClock.Instant

    fileprivate struct Key: Hashable {
        var photoID: String
        /// Nil: the most recently fetched variant.
        var variant: ImageVariant?
    }

    fileprivate struct Entry {
        var image: StoredImage
        var bytes: ByteBuffer?
        var confirmed: ContinuousClock.Instant
        var lastUse: UInt64
    }

    fileprivate struct State {
        var entries: [Key: Entry] = [:]
        var bytesKept = 0
        var uses: UInt64 = 0
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - budget: the most bytes kept (64 MiB by default; 0 keeps no bytes, only rows).
    ///   - largest: the largest image kept (8 MiB by default).
    init(
        recheck: Duration = .seconds(1), budget: Int = 64 << 20, largest: Int = 8 << 20,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.recheck = recheck
        self.budget = max(0, budget)
        self.largest = max(0, min(largest, budget))
        self.now = now
    }

    /// What is kept of an image: its row, and its bytes when they are kept.
    struct Kept: Sendable {
        var image: StoredImage
        var bytes: ByteBuffer?
    }

    /// The image of `variant` (nil: the latest) of `photoID`, from here when the store confirmed
    /// it within ``recheck``, else from `read` (the store's row), kept; nil when there is none.
    func image(
        photoID: String, variant: ImageVariant?, read: () async throws(StoreError) -> StoredImage?
    ) async throws(StoreError) -> Kept? {
        let key = Key(photoID: photoID, variant: variant)
        let now = now()
        let recheck = recheck
        if let kept = state.withLock({ state -> Kept? in
            guard let entry = state.entries[key], now - entry.confirmed < recheck else { return nil }
            state.uses += 1
            state.entries[key]?.lastUse = state.uses
            return Kept(image: entry.image, bytes: entry.bytes)
        }) {
            return kept
        }
        let image = try await read()
        return state.withLock { state -> Kept? in
            guard let image else {
                state.remove(key)
                return nil
            }
            state.uses += 1
            var entry = Entry(image: image, bytes: nil, confirmed: now, lastUse: state.uses)
            if let old = state.entries[key], old.image == image { entry.bytes = old.bytes }
            state.remove(key)
            if state.entries.count >= maxRows { state.removeLeastRecentlyUsed() }
            state.entries[key] = entry
            state.bytesKept += entry.bytes?.readableBytes ?? 0
            return Kept(image: image, bytes: entry.bytes)
        }
    }

    /// Whether bytes of `image` would be kept: it is small enough.
    func keeps(_ image: StoredImage) -> Bool {
        image.byteCount <= Int64(largest)
    }

    /// Keeps `bytes`, all of `image`, for the requests that ask for it as `photoID` and
    /// `variant` while its row is current. Nothing when the row kept is another image's now.
    func keep(_ bytes: ByteBuffer, of image: StoredImage, photoID: String, variant: ImageVariant?) {
        guard bytes.readableBytes == image.byteCount, keeps(image) else { return }
        let key = Key(photoID: photoID, variant: variant)
        let budget = budget
        state.withLock { state in
            guard let entry = state.entries[key], entry.image == image, entry.bytes == nil else { return }
            while state.bytesKept + bytes.readableBytes > budget, state.removeLeastRecentlyUsed(makingRoomFor: key) {}
            guard state.bytesKept + bytes.readableBytes <= budget else { return }
            state.entries[key]?.bytes = bytes
            state.bytesKept += bytes.readableBytes
        }
    }

    /// The bytes kept, all images together: for tests and metrics.
    var bytesKept: Int { state.withLock { $0.bytesKept } }
}

extension ImageCache.State {
    fileprivate mutating func remove(_ key: ImageCache.Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        bytesKept -= entry.bytes?.readableBytes ?? 0
    }

    /// Removes the entry used longest ago: of all, or, to make room for `key`'s bytes, of those
    /// with bytes but `key`'s. False when there is none to remove.
    @discardableResult
    fileprivate mutating func removeLeastRecentlyUsed(makingRoomFor key: ImageCache.Key? = nil) -> Bool {
        let oldest = entries.lazy
            .filter { key == nil || ($0.key != key && $0.value.bytes != nil) }
            .min { $0.value.lastUse < $1.value.lastUse }
        guard let oldest else { return false }
        remove(oldest.key)
        return true
    }
}
