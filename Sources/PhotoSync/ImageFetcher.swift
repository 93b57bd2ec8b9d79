import Foundation
import Logging
import Networking
import PhotoStore
import UnsplashAPI

/// The second stage: ``SyncConfiguration/concurrency`` downloads at once, each job from the
/// ``ImageJobFeed`` fetched into the ``BodySpool`` (hashed as it arrives, checked against its
/// `Content-Length` and size cap) and identified by its format, then handed to the writer.
///
/// It never writes to the database: a failure is an ``ImageOutcome/failed(_:reason:permanent:)``
/// that the writer records with the rest of its batch. Image hosts are not the API, so fetches
/// spend nothing of the rate limit.
///
/// Each download's head must come within the transport's connect and read timeouts, and its
/// body at ``minimumRate`` at least: a host that trickles is cut off, its slot freed at once,
/// and the image tried again later as after any transient failure.
struct ImageFetcher: Sendable {
    let repository: PhotoRepository
    let hostPolicy: ImageHostPolicy
    let spool: BodySpool
    let concurrency: Int
    var minimumRate: MinimumRate = .standard
    var logger = Logger(label: "photosync.images")

    /// Fetches jobs until `jobs` is finished and drained, sending each outcome to `outcomes`.
    /// Throws ``SyncError/spool(_:)`` when a body cannot be spooled, or `CancellationError`.
    func run(jobs: BoundedQueue<ImageJob>, outcomes: BoundedQueue<ImageOutcome>) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    while let job = await jobs.next() {
                        let outcome = try await fetch(job)
                        do {
                            try await outcomes.send(outcome)
                        } catch {
                            outcome.discard()
                            throw error
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Downloads and checks one image.
    func fetch(_ job: ImageJob) async throws -> ImageOutcome {
        let url: URL
        switch hostPolicy.check(job.sourceURL) {
        case .success(let allowed):
            url = allowed
        case .failure(let refusal):
            // Never fetched, and never will be: retrying cannot change the URL's host.
            return .failed(job, reason: "\(refusal)", permanent: true)
        }
        let image: FetchedImage
        do throws(UnsplashError) {
            image = try await repository.image(
                at: url, redirects: hostPolicy.redirects, minimumRate: minimumRate, into: spool)
        } catch .cancelled {
            throw CancellationError()
        } catch .spool(let error) {
            throw SyncError.spool(error)
        } catch {
            logIfTooSlow(error, job: job, url: url)
            return .failed(job, reason: error.errorDescription ?? "\(error)", permanent: Self.isPermanent(error))
        }
        let body = image.body
        guard body.byteCount > 0 else {
            body.remove()
            return .failed(job, reason: "the image is empty", permanent: false)
        }
        switch ImageFormat.identify(
            contentType: image.contentType, prefix: body.prefix, suffix: body.suffix, byteCount: body.byteCount)
        {
        case .success(let format):
            return .fetched(job, body: body, mediaType: format.mediaType)
        case .failure(let mismatch):
            body.remove()
            // An error page served as the image, or a format photosync does not store: asking
            // the same URL again gets the same answer.
            return .failed(job, reason: mismatch.description, permanent: true)
        }
    }

    /// Says which host was too slow, and how slow, when `error` is a missed deadline or rate.
    private func logIfTooSlow(_ error: UnsplashError, job: ImageJob, url: URL) {
        guard case .network(.transport(let failure, _)) = error, let shortfall = failure.shortfall else { return }
        var metadata: Logger.Metadata = [
            "photo": "\(job.photoID)", "host": "\(url.host ?? "?")", "bytes": "\(shortfall.bytes)",
            "seconds": "\((shortfall.seconds * 10).rounded() / 10)",
            "bytes_per_second": "\(Int(shortfall.bytesPerSecond.rounded()))",
        ]
        if let required = shortfall.required { metadata["minimum"] = "\(required)" }
        logger.notice("image host too slow; the image will be tried again", metadata: metadata)
    }

    /// Answers that another try cannot change: gone (404, 410), not ours to download (401, 403:
    /// Unsplash+), sent somewhere not allowed, or larger than the cap. Every other failure is
    /// transient, retried with a backoff forever.
    static func isPermanent(_ error: UnsplashError) -> Bool {
        switch error {
        case .api(let status, _, _): [401, 403, 404, 410].contains(status)
        case .accessKeyRejected, .foreignURL, .redirectRefused: true
        case .network(.bodyTooLarge): true
        case .rateLimited, .network, .spool, .cancelled: false
        }
    }
}
