import Foundation

/// The image download queue. A job is one photo in one variant, and moves pending -> stored
/// (``ImageArchive/storeImages(_:failures:storageLimit:)``), or pending -> failed when an
/// attempt failed for good. A pending job is due when its next attempt time has come; a job
/// never attempted has none and is due at once. Jobs are created by page commits and
/// ``enqueueMissingImages(variant:photosPerStep:)``.
///
/// Each failure is classified (``ImageFailureClass``): transient (the job stays pending, with a
/// next attempt time: retried forever) or permanent (the job is failed: never due again until
/// ``requeue(_:)`` asks). Written once for both stores as ``SQLImageQueue``, with each driver's
/// walk of missing images and due jobs.
public protocol ImageQueue: Sendable {
    /// One step of ``enqueueMissingImages(variant:photosPerStep:)``, in one transaction: a
    /// pending job for `variant` for each of the first `limit` photos stored after the one of
    /// sequence `sequence` (0: from the first) that has none, taking the URL from the photo's
    /// stored JSON (`urls.<variant>`). Photos whose JSON lacks that URL, and Unsplash+ photos,
    /// are skipped. The same transaction records the step's last photo (the last stored, when it
    /// took the rest) as ``queuedThrough(variant:)``, unless that is further on already; a step
    /// that began past it, leaving photos between them unwalked, records nothing.
    ///
    /// - Returns: how many jobs were created, and where the next step starts: nil when fewer
    ///   than `limit` photos were left, so that this step took the last of them.
    func enqueueMissingImages(variant: ImageVariant, after sequence: Int64, photos limit: Int)
        async throws(StoreError) -> MissingImagesStep

    /// The sequence through which every stored photo has a job of `variant`, or can have none
    /// (no URL of that variant in its JSON, or an Unsplash+ photo): where the next walk of
    /// ``enqueueMissingImages(variant:photosPerStep:)`` starts. 0 when no walk has run.
    ///
    /// Each step of the walk records the last photo it took, in its own transaction. A page
    /// commit lowers it below the oldest photo it lists again for every variant that page does
    /// not queue, since that photo's JSON or licence may have changed. New photos come after it.
    func queuedThrough(variant: ImageVariant) async throws(StoreError) -> Int64

    /// Pending jobs of any of `variants` whose next attempt time is at or before `now`, in the
    /// order their photos were first stored (lowest sequence first; a photo's variants one after
    /// another), at most `limit`.
    func dueImageJobs(variants: [ImageVariant], now: Date, limit: Int) async throws(StoreError) -> [ImageJob]

    /// The earliest next attempt time among pending jobs of `variants`, to know how long to
    /// wait; `Date.distantPast` when a job was never attempted (it is due at once); nil when
    /// nothing is pending.
    func nextImageRetry(variants: [ImageVariant]) async throws(StoreError) -> Date?

    /// Pending jobs of `variants` never attempted yet: the downloads the page walker has queued
    /// ahead of the fetchers. Jobs waiting for a retry do not count. Counted up to `limit`: the
    /// walker asks only whether its backlog is full, after every commit of the image writer,
    /// and counting a whole backlog each time (a variant added to a mirror of 100,000 photos)
    /// made a daemon's first minutes quadratic: eight of them without a page.
    func unattemptedImageCount(variants: [ImageVariant], upTo limit: Int) async throws(StoreError) -> Int

    /// Records a failed download attempt: `attempts` grows by one and `error` is kept. With a
    /// `retryAt`, the failure is transient: the job stays pending and is not due before that
    /// time. With nil, it is permanent: the job becomes `failed`, never due again (until
    /// ``requeue(_:)``), counted in statistics and listed by `failedImages`. A job already stored,
    /// or pruned, is left as it is.
    ///
    /// - Throws: `StoreError.unknownImageJob` when there is no such job.
    func recordImageFailure(photoID: String, variant: ImageVariant, error: String, retryAt: Date?)
        async throws(StoreError)

    /// Jobs that failed for good (a permanent failure), in the order their photos were first
    /// stored, at most `limit`.
    func failedImages(limit: Int) async throws(StoreError) -> [ImageFailure]

    /// Jobs waiting for a retry after a transient failure, those due soonest first, at most `limit`.
    func retryingImages(limit: Int) async throws(StoreError) -> [ImageFailure]

    /// Makes every job waiting for a retry after a transient failure due at `now`, keeping its
    /// attempts (so the daemon's backoff keeps growing): `run --once` does this as it starts,
    /// since a run a person starts is the moment they want the retries.
    ///
    /// - Returns: how many jobs it made due.
    @discardableResult
    func retryTransientFailures(now: Date) async throws(StoreError) -> Int

    /// Requeues failed jobs as new ones (no attempts, due at once), in one transaction: all of
    /// `request` or, when it throws, nothing.
    ///
    /// - Throws: `StoreError.unknownPhoto` when a photo of ``RetryRequest/photos(_:)`` is not in
    ///   the database.
    func requeue(_ request: RetryRequest) async throws(StoreError) -> RetryOutcome

    /// The images of all of `variants` together, by state, from the queue's columns only.
    func imageCounts(variants: [ImageVariant]) async throws(StoreError) -> ImageCounts
}

/// What one step of ``ImageQueue/enqueueMissingImages(variant:after:photos:)`` did.
public struct MissingImagesStep: Sendable, Equatable {
    /// How many jobs the step created.
    public var queued: Int
    /// The sequence of the step's last photo, for the next step to start after; nil when the
    /// step took fewer photos than its limit: none is left.
    public var next: Int64?

    public init(queued: Int, next: Int64?) {
        self.queued = queued
        self.next = next
    }
}

extension ImageQueue {
    /// Every pending job of `variants` never attempted yet (``unattemptedImageCount(variants:upTo:)``).
    public func unattemptedImageCount(variants: [ImageVariant]) async throws(StoreError) -> Int {
        try await unattemptedImageCount(variants: variants, upTo: Int.max)
    }

    /// Creates a pending job for `variant` for every photo that has none, taking the URL from
    /// the photo's stored JSON (`urls.<variant>`): so a user who switches variant gets the new
    /// one for photos stored before. Photos whose JSON lacks that URL, and Unsplash+ photos,
    /// are skipped.
    ///
    /// The photos are walked in their order, `photosPerStep` at a time, each step a transaction
    /// of its own (``enqueueMissingImages(variant:after:photos:)``): a process stopped in the
    /// walk (a million photos take minutes) keeps what its steps queued, and the next walk
    /// starts after the last photo they took (``queuedThrough(variant:)``), so that a daemon's
    /// start walks only the photos stored since. A cancelled task stops between steps, with
    /// what it queued so far.
    ///
    /// - Returns: how many jobs were created.
    @discardableResult
    public func enqueueMissingImages(variant: ImageVariant, photosPerStep: Int = 10_000) async throws(StoreError)
        -> Int
    {
        guard !Task.isCancelled else { return 0 }
        var (queued, after): (Int, Int64?) = (0, try await queuedThrough(variant: variant))
        while let sequence = after, !Task.isCancelled {
            let step = try await enqueueMissingImages(variant: variant, after: sequence, photos: photosPerStep)
            (queued, after) = (queued + step.queued, step.next)
        }
        return queued
    }
}
