import Foundation
import PhotoStore
import UnsplashAPI

extension SyncEngine {
    /// Sends Unsplash's download-tracking request once for each stored image, recording each so a
    /// restart never sends it twice.
    func trackDownloads() async throws {
        while true {
            let jobs = try storing { try store.pendingDownloadTracking(limit: 50) }
            guard !jobs.isEmpty else { return }
            for job in jobs {
                try Task.checkCancellation()
                try await track(job)
            }
        }
    }

    /// Tracks one download. A location the API refuses for good (4xx, another origin, not a URL)
    /// is recorded as done: asking again could not make it count. An outage is thrown and the
    /// request stays pending.
    private func track(_ job: DownloadTrackingJob) async throws {
        do {
            guard let location = URL(string: job.downloadLocation) else {
                throw UnsplashError.foreignURL(job.downloadLocation, expected: repository.api.baseURL.absoluteString)
            }
            let limit = try await callingAPI { try await repository.trackDownload(location) }
            await recordRateLimit(limit)
            await tracker.update { $0.downloadsTracked += 1 }
        } catch let error as UnsplashError {
            switch error {
            case .api(let status, _, _) where (400..<500).contains(status):
                logger.warning("download tracking refused; not retried", metadata: ["photo": "\(job.photoID)", "error": "\(error.localizedDescription)"])
            case .foreignURL, .redirectRefused:
                logger.warning("download location is not on the API; not tracked", metadata: ["photo": "\(job.photoID)", "error": "\(error.localizedDescription)"])
            default:
                throw SyncError.apiUnavailable(error.errorDescription ?? "\(error)")
            }
        }
        try storing { try store.markDownloadTracked(photoID: job.photoID, at: now()) }
    }
}
