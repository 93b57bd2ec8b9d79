import Foundation
import Logging
import PhotoStore
import UnsplashAPI

/// Keeps the object each source lists the photos of (a collection, a topic, a user's profile)
/// stored for the mirror to serve: fetched when the source has none, and again once it is older
/// than ``SyncConfiguration/sourceObjectMaxAge``, at most one request per object per round.
///
/// - A `user:` and a `likes:` source of one username share the profile: it is fetched once and
///   stored for both.
/// - Pages go first: a round refreshes objects after its walk, and not at all while the known
///   budget is within twice ``SyncConfiguration/rateLimitReserve`` of its end, so that an
///   object never makes the next poll's pages wait for the rate limit. Each request holds a
///   permit of the same ``RateLimitBudget`` as pages and tracking.
/// - A failure never ends the round: it is logged once, as a warning, and the object is tried
///   again at the next poll, then after waits that double, up to
///   ``SyncConfiguration/sourceRetryDelay`` (``ObjectRetries``). Only cancellation is thrown.
struct SourceObjectRefresh: RoundStage, Sendable {
    let round: RoundContext
    /// Sources that answered 404 and are being left alone.
    let backoff: SourceBackoff
    /// Objects whose last fetch failed, and when each is due again.
    let retries: ObjectRetries

    /// Fetches and stores every object that is due (see the type's contract).
    /// - Throws: `CancellationError` only.
    func refresh() async throws(CancellationError) {
        let due: [DueObject]
        do {
            due = try await dueObjects()
        } catch {
            logger.warning(
                "source objects not refreshed: the database could not be read",
                metadata: ["error": "\(error.localizedDescription)"])
            return
        }
        for object in due {
            guard await budgetLeavesRoom() else {
                logger.debug("source objects left for a later poll: the rate limit is low")
                return
            }
            try await fetch(object.source, segments: object.segments, storingFor: object.sources)
        }
    }

    /// Whether the budget as last known leaves an object room beside the next poll's pages; an
    /// unknown budget does (its first request learns it).
    private func budgetLeavesRoom() async -> Bool {
        guard let last = await budget.last else { return true }
        return last.remaining - (await budget.inFlight) > 2 * configuration.rateLimitReserve
    }

    /// An object's path segments, the configured sources that share it, and the one it is fetched for.
    private typealias DueObject = (segments: [String], sources: [PhotoSource], source: PhotoSource)

    /// The objects due, each once, with every configured source that shares it.
    private func dueObjects() async throws(StoreError) -> [DueObject] {
        var objects: [DueObject] = []
        for source in configuration.sources {
            guard let segments = source.objectSegments,
                backoff.failure(of: source.description, now: now()) == nil, retries.isDue(segments, now: now())
            else { continue }
            if let index = objects.firstIndex(where: { $0.segments == segments }) {
                objects[index].sources.append(source)
            } else {
                objects.append((segments, [source], source))
            }
        }
        let fetched = try await store.ledger.sourceObjectsFetched(sources: objects.flatMap(\.sources))
        let oldest = now().addingTimeInterval(-configuration.sourceObjectMaxAge.timeInterval)
        return objects.filter { object in
            object.sources.contains { source in fetched[source].map { $0 <= oldest } ?? true }
        }
    }

    private func fetch(_ source: PhotoSource, segments: [String], storingFor sources: [PhotoSource])
        async throws(CancellationError)
    {
        let repository = repository
        let progress = progress
        do {
            let answer = try await budget.spend(
                { admitsRetry in try await repository.admitting(admitsRetry).object(of: source) },
                report: { $0?.rateLimit }, onReport: { limit in await progress.update { $0.rateLimit = limit } })
            guard let object = answer?.object else { return }
            try await store.ledger.storeSourceObject(object.json, sources: sources, at: now())
            retries.succeeded(segments)
            logger.info("source object stored", metadata: ["source": "\(source)", "bytes": "\(object.json.count)"])
        } catch is CancellationError {
            throw CancellationError()
        } catch UnsplashError.cancelled {
            throw CancellationError()
        } catch {
            let wait = retries.failed(segments, now: now(), configuration: configuration)
            logger.warning(
                "the object of a source could not be fetched; it is tried again at a later poll",
                metadata: [
                    "source": "\(source)", "error": "\((error as? LocalizedError)?.errorDescription ?? "\(error)")",
                    "wait_s": "\(wait.components.seconds)",
                ])
        }
    }
}
