import Foundation
import UnsplashAPI

/// Why a sync stopped.
public enum SyncError: Error, LocalizedError, Sendable {
    /// Unsplash rejected the access key: retrying cannot help.
    case accessKeyRejected(String)
    /// The API could not be reached or kept failing, even after retries.
    case apiUnavailable(String)
    /// A page contradicted itself (empty but linking a next page, or ending the feed although
    /// `X-Total` says more follow). The walk stays on that page and tries it again later.
    case inconsistentPage(String)
    /// The database failed.
    case store(String)
    /// A download could not be written to its spool file beside the database: a full disk, or a
    /// directory that is not writable.
    case spool(String)

    public var errorDescription: String? {
        switch self {
        case .accessKeyRejected(let message), .apiUnavailable(let message), .inconsistentPage(let message): message
        case .store(let message): "database error: \(message)"
        case .spool(let message): message
        }
    }
}
