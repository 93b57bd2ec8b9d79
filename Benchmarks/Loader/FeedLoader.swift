import Basics
import Crypto
import Foundation
import Networking
import PhotoStore
import PhotoSync
import UnsplashAPI
import struct UnsplashStub.FeedPages

/// Stores the stub's feed as `photosync run --once --variant thumb` stores a sync of it, with
/// the sync's own pieces: each page's body decoded by ``PhotoList`` (as the API client decodes
/// it), its photos made `PhotoRecord`s as the page walker makes them, committed by
/// `SyncLedger.commitPage` with the cursor the walker records (the page's `rel="next"` as
/// `UnsplashAPI.cursor(for:)` keeps it), then page 1 again as the head catch-up that ends the
/// run; each thumbnail identified by the fetcher's `ImageFormat`, hashed, and stored in the
/// image writer's batches (`ImageArchive.storeImages`).
///
/// Pages are made (painted swatches, JSON, decoding, thumbnails) on every core at once, a few
/// pages ahead of the store's one writer, which takes them in the feed's order.
struct FeedLoader: Sendable {
    let feed: FeedPages
    let store: PhotoStore
    let api: UnsplashAPI
    /// How many distinct pictures thumbnails are painted with (``FeedPages/thumbnail(of:pool:)``).
    let pictures: Int
    let variant = ImageVariant.thumb
    /// The image writer's batch limits (`ImageWriter`).
    var maxBatchCount = 256
    var maxBatchBytes: Int64 = 8 << 20

    /// A page ready for the store.
    struct ReadyPage: Sendable {
        let photos: [Photo]
        let records: [PhotoRecord]
        /// The cursor its commit records: its `rel="next"`, or nil on the last page.
        let next: URL?
        let images: [ImageToStore]
        var byteCount: Int64 { images.reduce(0) { $0 + $1.byteCount } }
    }

    struct Summary: CustomStringConvertible {
        var pages = 0
        var photos = 0
        var images = 0
        var bytes: Int64 = 0
        /// The time spent in the store's writes, and in all.
        var writing = Duration.zero
        var elapsed = Duration.zero

        var description: String {
            func rate(_ duration: Duration) -> String {
                let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                return String(format: "%.1f s, %.0f photos/s", seconds, Double(photos) / max(seconds, 1e-9))
            }
            return "\(photos) photos, \(pages) pages, \(images) thumbnails of \(bytes) bytes in \(rate(elapsed)) "
                + "(the store's writes \(rate(writing)))"
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case notEmpty
        case unexpected(String)

        var description: String {
            switch self {
            case .notEmpty: "the database holds photos already: scale-load fills an empty one"
            case .unexpected(let what): what
            }
        }
    }

    /// Makes and stores every page, then catches up with the head as the sync's run ends.
    func load() async throws -> Summary {
        guard try await store.ledger.maxMembership() == 0 else { throw Failure.notEmpty }
        let start = ContinuousClock.now
        // What `run` writes before its first page (`RoundLoop`): its sources, the walk that
        // queues a new variant's images for photos stored before; the configuration's load.
        try await store.ledger.activateSources([.feed])
        try await store.imageQueue.enqueueMissingImages(variant: variant)
        try await store.ledger.recordConfigurationLoaded(at: Date(), reload: false)
        var summary = Summary()
        var batch: [ImageToStore] = []
        var progress = Progress(total: feed.configuration.photoCount)
        try await inOrder(pages: feed.pageCount) { page in
            let clock = ContinuousClock.now
            let next = page.next
            let commit = try await store.ledger.commitPage(
                page.records, variant: variant, source: .feed, now: Date()
            ) { _ in .backfill(next: next) }
            guard commit.existingSequences.isEmpty else {
                throw Failure.unexpected("a page lists photos stored before: \(commit.existingSequences.keys.sorted())")
            }
            batch += page.images
            if batch.count >= maxBatchCount || batch.reduce(0, { $0 + $1.byteCount }) >= maxBatchBytes {
                try await storeImages(&batch)
            }
            summary.writing += ContinuousClock.now - clock
            summary.pages += 1
            summary.photos += page.records.count
            summary.images += page.images.count
            summary.bytes += page.byteCount
            progress.report(summary.photos)
        }
        let clock = ContinuousClock.now
        try await storeImages(&batch)
        try await catchUp()
        summary.writing += ContinuousClock.now - clock
        summary.elapsed = ContinuousClock.now - start
        return summary
    }

    /// Page `number` made and decoded, its thumbnails ready to store.
    func prepare(_ number: Int) throws -> ReadyPage {
        let page = try feed.page(number)
        let list = try PhotoList(body: page.body, decoder: JSONDecoder())
        guard list.rejected.isEmpty, list.photos.map(\.id) == page.photos.map(\.id) else {
            throw Failure.unexpected("page \(number) did not decode as the stub made it: \(list.rejected)")
        }
        let next = try page.link.flatMap { LinkHeader($0).next }.map { url in URL(string: try api.cursor(for: url)) }
        let images = try page.photos.map { photo in
            let bytes = feed.thumbnail(of: photo, pool: pictures)
            let format = try ImageFormat.identify(
                contentType: "image/jpeg", prefix: bytes.prefix(SpooledBody.prefixLength),
                suffix: bytes.suffix(SpooledBody.suffixLength), byteCount: Int64(bytes.count)
            ).get()
            return ImageToStore(
                photoID: photo.id, variant: variant, contentType: format.mediaType, bytes: .data(bytes),
                sha256: Hex.string(SHA256.hash(data: bytes)), fetchedAt: Date())
        }
        return ReadyPage(
            photos: list.photos, records: list.photos.map { PhotoRecord($0, variant: variant) }, next: next ?? nil,
            images: images)
    }

    /// Stores `batch` in one transaction, as the image writer stores what arrived, and empties it.
    private func storeImages(_ batch: inout [ImageToStore]) async throws {
        guard !batch.isEmpty else { return }
        let fetchedAt = Date()
        let images = batch.map { image in
            var image = image
            image.fetchedAt = fetchedAt
            return image
        }
        let stored = try await store.archive.storeImages(images, failures: [], storageLimit: nil).stored
        guard stored.allSatisfy({ $0 }) else { throw Failure.unexpected("an image was stored already") }
        batch.removeAll()
    }

    /// The head catch-up that follows a finished backfill in the same run: page 1 again, every
    /// photo known, so the catch-up ends on it (`PageWalker`'s rule).
    private func catchUp() async throws {
        let baseline = try await store.ledger.maxMembership()
        let page = try prepare(1)
        let photos = page.photos
        let knownRunToStop = SyncConfiguration().knownRunToStop
        try await store.ledger.commitPage(page.records, variant: variant, source: .feed, now: Date()) { commit in
            let reachedKnown =
                PageWalker.knownRun(in: photos, existing: commit.existingMemberships, baseline: baseline)
                >= min(knownRunToStop, max(1, photos.filter { !$0.isSponsored }.count))
            // The sync would walk on to page 2: not what a finished backfill meets.
            guard reachedKnown else { throw Failure.unexpected("the catch-up did not find page 1 known") }
            return .catchUp(next: nil, baseline: baseline)
        }
    }
}
