import Foundation
import Logging
import PhotoStore

/// The third stage and the only one that writes images: it group-commits the fetchers'
/// outcomes, many per transaction, with `ImageArchive.storeImages(_:failures:storageLimit:)`
/// (``PhotoStore/archive``).
///
/// Each batch is what arrived while the previous one was being written, capped at
/// ``maxBatchBytes`` and ``maxBatchCount``: under load batches grow by themselves, and an image
/// never waits for more than the transaction in progress, far less than the 250 ms a timer would
/// allow. Crash safety is that of one image per transaction: each image's bytes commit with its
/// status, so a kill -9 loses only the batch being written, which is still pending and fetched
/// again, and nothing is stored twice. Spool files are removed once their batch has committed
/// (or when it never will).
struct ImageWriter: RoundStage, Sendable {
    let round: RoundContext
    /// Decides which transient failures the round retries itself.
    let retries: RetriesWithinRun
    /// A number in 0..<1 for each backoff's jitter.
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// A batch holds at most this many bytes of images, besides its first image.
    var maxBatchBytes: Int64 = 8 << 20
    /// A batch holds at most this many outcomes.
    var maxBatchCount = 256
    /// Called after each commit with the photos whose outcomes it settled.
    let committed: @Sendable (_ settled: [String], _ stored: Int) -> Void

    /// Commits outcomes until `outcomes` is finished and drained.
    /// Throws ``SyncError/store(_:)`` (the batch is not stored), or `CancellationError`.
    func run(_ outcomes: BoundedQueue<ImageOutcome>) async throws {
        defer {
            // Whatever a stopped writer leaves will never be committed: its jobs stay pending.
            outcomes.finish()
            while let left = outcomes.poll() { left.discard() }
        }
        while let first = await outcomes.next() {
            var batch = [first]
            var bytes = first.byteCount
            while bytes < maxBatchBytes, batch.count < maxBatchCount, let more = outcomes.poll() {
                batch.append(more)
                bytes += more.byteCount
            }
            try await commit(batch)
        }
        try Task.checkCancellation()
    }

    /// Stores one batch in one transaction, then reports it.
    func commit(_ batch: [ImageOutcome]) async throws {
        defer { for image in batch { image.discard() } }
        let fetchedAt = now()
        let (images, failures) = sort(batch, fetchedAt: fetchedAt)
        let store = store
        let toStore = images.map(\.image)
        let failed = failures.map(\.failure)
        let storageLimit = configuration.storageLimit
        let result = try await writingStore { () async throws(StoreError) in
            try await store.archive.storeImages(toStore, failures: failed, storageLimit: storageLimit)
        }
        let prunedBytes = result.pruned.reduce(Int64(0)) { $0 + $1.byteCount }
        if !result.pruned.isEmpty {
            logger.info(
                "images pruned to stay within storage_limit",
                metadata: ["count": "\(result.pruned.count)", "bytes": "\(prunedBytes)"])
        }
        var storedCount = 0
        var storedBytes: Int64 = 0
        for ((_, image), wasStored) in zip(images, result.stored) where wasStored {
            storedCount += 1
            storedBytes += image.byteCount
            logger.debug(
                "image stored",
                metadata: ["photo": "\(image.photoID)", "bytes": "\(image.byteCount)", "sha256": "\(image.sha256)"])
        }
        log(failures)
        let failedForGood = failures.filter { $0.permanent }.count
        await progress.update {
            $0.imagesStored += storedCount
            $0.bytesStored += storedBytes
            $0.imagesFailed += failedForGood
            $0.imageRetries += failures.count - failedForGood
            $0.imageBatches += 1
            $0.imagesPruned += result.pruned.count
            $0.bytesPruned += prunedBytes
        }
        committed(batch.map { $0.job.photoID }, storedCount)
    }

    /// A failed attempt, with the attempts so far and whether it is final.
    private typealias Failure = (failure: ImageAttemptFailure, attempts: Int, permanent: Bool)

    /// The batch's images to store, and its failures with when each is tried again.
    private func sort(_ batch: [ImageOutcome], fetchedAt: Date) -> ([(job: ImageJob, image: ImageToStore)], [Failure]) {
        var images: [(job: ImageJob, image: ImageToStore)] = []
        var failures: [Failure] = []
        for outcome in batch {
            switch outcome {
            case .fetched(let job, let body, let mediaType):
                let bytes: ImageToStore.Bytes =
                    switch body.storage {
                    case .memory(let data): .data(data)
                    case .file(let file): .file(file, byteCount: body.byteCount)
                    }
                images.append(
                    (
                        job,
                        ImageToStore(
                            photoID: job.photoID, variant: job.variant, contentType: mediaType, bytes: bytes,
                            sha256: body.sha256, fetchedAt: fetchedAt)
                    ))
            case .failed(let job, let reason, let permanent):
                let attempts = job.attempts + 1
                // A transient failure is never final: retried within the round, or after a backoff.
                let retryAt =
                    permanent
                    ? nil
                    : retries.failed(job, at: fetchedAt)
                        ?? fetchedAt.addingTimeInterval(
                            configuration.imageBackoff(afterAttempts: attempts, random: random()).timeInterval)
                failures.append(
                    (
                        ImageAttemptFailure(
                            photoID: job.photoID, variant: job.variant, error: reason, retryAt: retryAt), attempts,
                        permanent
                    ))
            }
        }
        return (images, failures)
    }

    private func log(_ failures: [Failure]) {
        for (failure, attempts, permanent) in failures {
            if let retryAt = failure.retryAt {
                logger.notice(
                    "image failed; will retry",
                    metadata: [
                        "photo": "\(failure.photoID)", "attempts": "\(attempts)", "error": "\(failure.error)",
                        "retry_at": "\(retryAt.iso8601Text)",
                    ])
            } else if permanent {
                logger.warning(
                    "image failed for good",
                    metadata: ["photo": "\(failure.photoID)", "attempts": "\(attempts)", "error": "\(failure.error)"])
            }
        }
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
