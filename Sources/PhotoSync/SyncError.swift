import Foundation
import Networking
import PhotoStore
import UnsplashAPI

/// Why a sync stopped, carrying the error of the layer that caused it, so a caller can tell
/// the causes apart (the command line maps each to its exit code, in one exhaustive `switch`)
/// without parsing messages. Everything ``SyncEngine/run()`` and ``SyncEngine/runOnce(maxPages:)``
/// throw is one of these.
public enum SyncError: Error, LocalizedError, Sendable {
    /// Unsplash rejected the access key: retrying cannot help. The cause is
    /// ``UnsplashError/accessKeyRejected(detail:)``.
    case accessKeyRejected(UnsplashError)
    /// The API could not be reached or kept failing, even after retries.
    case apiUnavailable(UnsplashError)
    /// A page contradicted itself (empty but linking a next page, or ending the feed although
    /// `X-Total` says more follow). The walk stays on that page and tries it again later.
    case inconsistentPage(PageContradiction)
    /// The API answered 404 for a source: no such user, collection or topic. The other sources
    /// go on; this one is left out of the walk.
    case sourceNotFound(SourceNotFound)
    /// At the end of a `runOnce`, the sources that answered 404, once the others are done.
    case sourcesNotFound([SourceNotFound])
    /// The database failed.
    case store(StoreError)
    /// A download could not be written to its spool file beside the database: a full disk, or a
    /// directory that is not writable.
    case spool(SpoolError)
    /// The sync was cancelled (SIGTERM): it stopped between transactions, and everything
    /// committed stays. Not a failure.
    case cancelled
    /// A failure the engine has no case for: a bug. The text says what was thrown.
    case unexpected(String)

    public var errorDescription: String? {
        switch self {
        case .accessKeyRejected(let cause), .apiUnavailable(let cause): cause.errorDescription
        case .inconsistentPage(let contradiction): contradiction.description
        case .sourceNotFound(let failure): failure.description
        case .sourcesNotFound(let failures): failures.map(\.description).joined(separator: "; ")
        case .store(let cause): "database error: \(cause.errorDescription ?? "\(cause)")"
        case .spool(let cause): cause.errorDescription
        case .cancelled: "the sync was cancelled"
        case .unexpected(let description): description
        }
    }

    /// What an error thrown inside the engine means at its boundary: its stages speak
    /// `SyncError`, and `CancellationError` as Swift's task groups and clocks do.
    init(_ error: any Error) {
        switch error {
        case let error as SyncError: self = error
        case is CancellationError: self = .cancelled
        case let error as StoreError: self = .store(error)
        case let error as SpoolError: self = .spool(error)
        case let error as UnsplashError: self = SyncError(unsplash: error)
        default: self = .unexpected(String(describing: error))
        }
    }

    /// What an API failure means to a sync that cannot wait it out here.
    init(unsplash error: UnsplashError) {
        switch error {
        case .cancelled: self = .cancelled
        case .spool(let cause): self = .spool(cause)
        case .accessKeyRejected: self = .accessKeyRejected(error)
        case .rateLimited, .api, .network, .foreignURL, .redirectRefused: self = .apiUnavailable(error)
        }
    }
}

/// A page that cannot be trusted where it would end a walk, and where the walk stays.
public struct PageContradiction: Sendable, Equatable, CustomStringConvertible {
    /// Which walk met it: `backfill` or `the head catch-up`.
    public var walk: String
    /// The source walked: `feed`, `user:ann`.
    public var source: String = "feed"
    /// The page's cursor (path and query), or nil for page 1.
    public var cursor: String?
    /// What is wrong with the page.
    public var reason: String

    public init(walk: String, source: String = "feed", cursor: String?, reason: String) {
        self.walk = walk
        self.source = source
        self.cursor = cursor
        self.reason = reason
    }

    public var description: String {
        let walk = source == "feed" ? walk : "\(walk) of \(source)"
        return "\(walk) stays at \(cursor ?? "page 1") and tries it again later: \(reason)"
    }
}

/// A source the API will not list: it does not know it (404: no such user, collection or
/// topic), or no longer serves it (410: a search Unsplash flagged).
public struct SourceNotFound: Sendable, Equatable, CustomStringConvertible {
    /// As configured: `user:nobody`.
    public var source: String
    /// What the API said: `Unsplash answered 404 (Couldn't find User)`.
    public var detail: String
    /// The answer's status: 404 or 410.
    public var status: Int

    public init(source: String, detail: String, status: Int = 404) {
        self.source = source
        self.detail = detail
        self.status = status
    }

    public var description: String {
        "source \(source) \(status == 404 ? "does not exist" : "is refused"): \(detail)"
    }
}
