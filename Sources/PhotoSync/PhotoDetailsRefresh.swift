import Foundation
import Logging
import PhotoStore
import UnsplashAPI

/// Fetches photos' full objects (`GET /photos/:id`) for the mirror, `query` and search, as
/// ``SyncConfiguration/photoDetails`` says: with `on-demand` those a client of the mirror asked
/// for, with `all` those first and then every photo without them, newest first; with `none`,
/// nothing.
///
/// It follows ``SourceObjectRefresh``'s rules, whose parts it shares:
/// - Pages go first: a round fetches details after its walk and its source objects, at most
///   ``batch`` of them, and none while the known budget is within twice
///   ``SyncConfiguration/rateLimitReserve`` of its end. Each request holds a permit of the same
///   ``RateLimitBudget`` as pages and tracking.
/// - A failure never ends the round: it is logged as a warning, and the photo is tried again at
///   a later poll, after waits that double up to ``SyncConfiguration/sourceRetryDelay``
///   (``ObjectRetries``, keyed `["photos", id]`). Only cancellation is thrown.
/// - Each photo's details commit in a small transaction of their own, which also re-indexes the
///   photo for search.
struct PhotoDetailsRefresh: RoundStage, Sendable {
    let round: RoundContext
    let retries: ObjectRetries

    /// The most photos one round fetches the details of, so that a round of `all` over a large
    /// mirror still ends, and the next poll's pages come first again.
    static let batch = 500

    /// The stage of the same round as `objects`, with its repository, store, budget and retries.
    init(_ objects: SourceObjectRefresh) {
        round = objects.round
        retries = objects.retries
    }

    /// Fetches and stores the details that are due (see the type's contract).
    /// - Throws: `CancellationError` only.
    func refresh() async throws(CancellationError) {
        let wanted: PhotoDetailsWanted
        switch configuration.photoDetails {
        case .none: return
        case .onDemand: wanted = .requested
        case .all: wanted = .all
        }
        let due: [String]
        do {
            due = try await store.photoDetails.pending(wanted, limit: Self.batch)
        } catch {
            logger.warning(
                "photo details not fetched: the database could not be read",
                metadata: ["error": "\(error.localizedDescription)"])
            return
        }
        var stored = 0
        defer {
            if stored > 0 { logger.info("photo details stored", metadata: ["count": "\(stored)"]) }
        }
        for id in due where retries.isDue(Self.key(id), now: now()) {
            if Task.isCancelled { throw CancellationError() }
            guard await budgetLeavesRoom() else {
                logger.debug("photo details left for a later poll: the rate limit is low")
                return
            }
            if try await fetch(id) { stored += 1 }
        }
    }

    /// The key of a photo's details in ``ObjectRetries``.
    static func key(_ id: String) -> [String] { ["photos", id] }

    /// Whether the budget as last known leaves a request room beside the next poll's pages; an
    /// unknown budget does (its first request learns it).
    private func budgetLeavesRoom() async -> Bool {
        guard let last = await budget.last else { return true }
        return last.remaining - (await budget.inFlight) > 2 * configuration.rateLimitReserve
    }

    /// Fetches and stores one photo's details; whether they were stored.
    private func fetch(_ id: String) async throws(CancellationError) -> Bool {
        let repository = repository
        let progress = progress
        do {
            let answer = try await budget.spend(
                { admitsRetry in try await repository.admitting(admitsRetry).photo(id: id) },
                report: { $0.rateLimit }, onReport: { limit in await progress.update { $0.rateLimit = limit } })
            guard answer.photo.id == id else {
                throw OtherPhoto(id: answer.photo.id)
            }
            try await store.photoDetails.store(answer.photo.json, photoID: id, at: now())
            retries.succeeded(Self.key(id))
            logger.debug("photo details stored", metadata: ["photo": "\(id)", "bytes": "\(answer.photo.json.count)"])
            return true
        } catch is CancellationError {
            throw CancellationError()
        } catch UnsplashError.cancelled {
            throw CancellationError()
        } catch {
            let wait = retries.failed(Self.key(id), now: now(), configuration: configuration)
            logger.warning(
                "the details of a photo could not be fetched; they are tried again at a later poll",
                metadata: [
                    "photo": "\(id)", "error": "\((error as? LocalizedError)?.errorDescription ?? "\(error)")",
                    "wait_s": "\(wait.components.seconds)",
                ])
            return false
        }
    }
}

/// The API answered `GET /photos/:id` with another photo: never stored as this one's details.
private struct OtherPhoto: LocalizedError {
    let id: String
    var errorDescription: String? { "the API answered with photo \(id)" }
}
