import Crypto
import Foundation
import PhotoStore
import UnsplashAPI

extension SyncEngine {
    /// Downloads every image that is due, ``SyncConfiguration/concurrency`` at a time, then sends
    /// the download-tracking requests for what was stored.
    func processImages() async throws {
        let variant = configuration.variant.rawValue
        while true {
            let jobs = try storing { try store.dueImageJobs(variant: variant, now: now(), limit: configuration.concurrency * 4) }
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

    /// Fetches one image to a temporary file, checks it, and stores it with its SHA-256 in the
    /// transaction that marks it done. A failure is recorded with its error and a retry time.
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
            image = try await repository.image(at: url)
        } catch let error as UnsplashError {
            try await fail(job, error.errorDescription ?? "\(error)", permanent: Self.isPermanent(error))
            return
        }
        defer { try? FileManager.default.removeItem(at: image.file) }
        if let declared = image.declaredLength, declared != image.byteCount {
            try await fail(job, "received \(image.byteCount) bytes but Content-Length said \(declared)", permanent: false)
            return
        }
        guard image.byteCount > 0 else {
            try await fail(job, "the image is empty", permanent: false)
            return
        }
        let digest = try Self.sha256(of: image.file)
        let stored = try storing {
            try store.storeImage(
                photoID: job.photoID, variant: job.variant, contentType: image.contentType ?? "application/octet-stream",
                fileURL: image.file, byteCount: image.byteCount, sha256: digest, fetchedAt: now())
        }
        if stored {
            await tracker.update {
                $0.imagesStored += 1
                $0.bytesStored += image.byteCount
            }
            logger.debug("image stored", metadata: ["photo": "\(job.photoID)", "bytes": "\(image.byteCount)", "sha256": "\(digest)"])
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

    /// Answers that another try cannot change: gone, or not ours to download (Unsplash+).
    private static func isPermanent(_ error: UnsplashError) -> Bool {
        switch error {
        case .api(let status, _, _): [401, 403, 404, 410].contains(status)
        case .accessKeyRejected, .foreignURL: true
        case .rateLimited, .network: false
        }
    }

    static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
