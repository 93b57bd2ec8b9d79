/// One round's stages, wired together (``RoundWiring``), which ``run(maxPages:)`` runs at once
/// until each is done:
///
/// 1. ``PageWalker`` walks the feed and commits each page, which queues its images;
/// 2. ``ImageJobFeed`` hands the due image jobs to ``ImageFetcher``, which downloads
///    ``SyncConfiguration/concurrency`` of them at once into the spool;
/// 3. ``ImageWriter`` group-commits what they fetched, many images per transaction;
/// 4. ``DownloadTracker`` tells Unsplash about each stored image, a few requests at once;
/// 5. after the walk, ``SourceObjectRefresh`` and ``PhotoDetailsRefresh`` fetch the sources'
///    objects and the photos' full objects that are due.
///
/// Stages are connected by bounded queues, and the walker waits while more than
/// ``SyncConfiguration/pagesAhead`` pages of images wait for their first download, so memory and
/// the walker's lead stay bounded. Pages and tracking share one ``RateLimitBudget`` that counts
/// requests in flight.
struct Pipeline: Sendable {
    let walker: PageWalker
    let objects: SourceObjectRefresh
    let feed: ImageJobFeed
    let fetcher: ImageFetcher
    let outcomes: BoundedQueue<ImageOutcome>
    let writer: ImageWriter
    let tracker: DownloadTracker?

    /// Runs the round: the walk (to the end, or `maxPages` backfill pages), and the images and
    /// tracking requests that are due, all at once; it returns when every stage is done. An
    /// outage or a refused page ends the walk but not the downloads: it is thrown once they are
    /// done.
    func run(maxPages: Int?) async throws {
        // Each stage's task returns nil, except a walk that met an outage: it returns that.
        let walkFailure = try await withThrowingTaskGroup(of: SyncError?.self) { group in
            group.addTask {
                let failure = try await walk(maxPages: maxPages)
                // After the walk, so that pages go first; not in an outage, which it would wait out.
                if case .apiUnavailable? = failure {
                } else {
                    try await objects.refresh()
                    try await PhotoDetailsRefresh(objects).refresh()
                }
                return failure
            }
            group.addTask {
                try await feed.run()
                return nil
            }
            group.addTask {
                defer { outcomes.finish() }
                try await fetcher.run(jobs: feed.jobs, outcomes: outcomes)
                return nil
            }
            group.addTask {
                try await writer.run(outcomes)
                tracker?.writerFinished()
                return nil
            }
            if let tracker {
                group.addTask {
                    try await tracker.run()
                    return nil
                }
            }
            var failure: SyncError?
            for try await result in group {
                failure = failure ?? result
            }
            return failure
        }
        try Task.checkCancellation()
        if let walkFailure {
            throw walkFailure
        }
    }

    /// The walk of one round; it returns, rather than throws, an outage or a refused page.
    private func walk(maxPages: Int?) async throws -> SyncError? {
        defer { feed.walkFinished() }
        do {
            let report = try await walker.walkSources(maxPages: maxPages)
            if let contradiction = report.contradiction { return .inconsistentPage(contradiction) }
            return report.notFound.isEmpty ? nil : .sourcesNotFound(report.notFound)
        } catch let error as SyncError {
            switch error {
            case .apiUnavailable, .inconsistentPage: return error
            case .accessKeyRejected, .store, .spool, .sourceNotFound, .sourcesNotFound, .cancelled, .unexpected:
                throw error
            }
        }
    }

    /// How much work waits at each of the round's stages now (the API's figures are the budget's).
    var depths: StageDepths {
        var depths = StageDepths()
        depths.jobsQueued = feed.jobs.depth
        depths.jobsClaimed = feed.claimedCount
        depths.outcomesQueued = outcomes.depth
        depths.trackingInFlight = tracker?.depth ?? 0
        return depths
    }
}
