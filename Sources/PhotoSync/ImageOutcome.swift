import Foundation
import Networking
import PhotoStore

/// What a fetcher made of one image job, for the writer to commit.
enum ImageOutcome: Sendable {
    /// Downloaded into the spool and checked: ready to store.
    case fetched(ImageJob, body: SpooledBody, mediaType: String)
    /// Not stored, for `reason`; `permanent` when another try cannot change it.
    case failed(ImageJob, reason: String, permanent: Bool)

    var job: ImageJob {
        switch self {
        case .fetched(let job, _, _), .failed(let job, _, _): job
        }
    }

    /// Bytes waiting in the spool, to size the writer's batches.
    var byteCount: Int64 {
        if case .fetched(_, let body, _) = self { body.byteCount } else { 0 }
    }

    /// Removes the spooled body, if any: after its commit, or when it will never be committed.
    func discard() {
        if case .fetched(_, let body, _) = self { body.remove() }
    }
}
