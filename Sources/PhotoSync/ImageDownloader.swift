import Foundation
import Networking
import PhotoStore
import UnsplashAPI

extension SyncEngine {
    /// Downloads every image that is due (by now, or by `dueBy` when that is later),
    /// ``SyncConfiguration/concurrency`` at a time, then sends the download-tracking requests for
    /// what was stored.
    func processImages(dueBy: Date? = nil) async throws {
        let variant = configuration.variant.rawValue
        while true {
            let due = max(now(), dueBy ?? .distantPast)
            let jobs = try storing { try store.dueImageJobs(variant: variant, now: due, limit: configuration.concurrency * 4) }
            guard !jobs.isEmpty else { break }
            try await withThrowingTaskGroup(of: Void.self) { group in
                var pending = jobs[...]
                for _ in 0..<configuration.concurrency {
                    guard let job = pending.popFirst() else { break }
                    group.addTask { try await self.download(job) }
                }
                while try await group.next() != nil {
                    if let job = pending.popFirst() {
                        group.addTask { try await self.download(job) }
                    }
                }
            }
        }
        if configuration.downloadTracking {
            try await trackDownloads()
        }
    }

    /// Fetches one image into the spool (hashed as it arrives, checked against its
    /// `Content-Length`, its size cap and its format), and stores it in the transaction that
    /// marks it done. A failure is recorded with its reason and a retry time.
    private func download(_ job: ImageJob) async throws {
        let url: URL
        switch hostPolicy.check(job.sourceURL) {
        case .success(let allowed):
            url = allowed
        case .failure(let refusal):
            // Never fetched, and never will be: retrying cannot change the URL's host.
            try await fail(job, "\(refusal)", permanent: true)
            return
        }
        let image: FetchedImage
        do {
            image = try await repository.image(at: url, redirects: hostPolicy.redirects, into: spool)
        } catch let error as UnsplashError {
            try await fail(job, error.errorDescription ?? "\(error)", permanent: Self.isPermanent(error))
            return
        } catch let error as SpoolError {
            throw SyncError.spool(error.errorDescription ?? "\(error)")
        }
        defer { image.body.remove() }
        let body = image.body
        guard body.byteCount > 0 else {
            try await fail(job, "the image is empty", permanent: false)
            return
        }
        let format: ImageFormat
        switch ImageFormat.identify(contentType: image.contentType, prefix: body.prefix) {
        case .success(let identified):
            format = identified
        case .failure(let mismatch):
            try await fail(job, mismatch.description, permanent: false)
            return
        }
        let stored = try storing {
            switch body.storage {
            case .memory(let data):
                try store.storeImage(
                    photoID: job.photoID, variant: job.variant, contentType: format.mediaType,
                    data: data, sha256: body.sha256, fetchedAt: now())
            case .file(let file):
                try store.storeImage(
                    photoID: job.photoID, variant: job.variant, contentType: format.mediaType,
                    fileURL: file, byteCount: body.byteCount, sha256: body.sha256, fetchedAt: now())
            }
        }
        if stored {
            await tracker.update {
                $0.imagesStored += 1
                $0.bytesStored += body.byteCount
            }
            logger.debug("image stored", metadata: ["photo": "\(job.photoID)", "bytes": "\(body.byteCount)", "sha256": "\(body.sha256)"])
        }
    }

    private func fail(_ job: ImageJob, _ reason: String, permanent: Bool) async throws {
        let attempts = job.attempts + 1
        let givesUp = permanent || attempts >= configuration.maxImageAttempts
        let retryAt = givesUp ? nil : now().addingTimeInterval(Self.seconds(configuration.imageRetryDelay(afterAttempts: attempts)))
        try storing { try store.recordImageFailure(photoID: job.photoID, variant: job.variant, error: reason, retryAt: retryAt) }
        if givesUp {
            logger.warning("image failed for good", metadata: ["photo": "\(job.photoID)", "attempts": "\(attempts)", "error": "\(reason)"])
            await tracker.update { $0.imagesFailed += 1 }
        } else {
            logger.notice("image failed; will retry", metadata: ["photo": "\(job.photoID)", "attempts": "\(attempts)", "error": "\(reason)"])
        }
    }

    /// Answers that another try cannot change: gone, not ours to download (Unsplash+), sent
    /// somewhere not allowed, or larger than the cap.
    private static func isPermanent(_ error: UnsplashError) -> Bool {
        switch error {
        case .api(let status, _, _): [401, 403, 404, 410].contains(status)
        case .accessKeyRejected, .foreignURL, .redirectRefused: true
        case .network(.bodyTooLarge): true
        case .rateLimited, .network: false
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
