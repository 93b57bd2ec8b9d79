import Foundation
import PhotoStore
import TestSupport
import Testing

/// The ledger's edges (``SyncLedger``): what repeats, what is empty, what one source's state
/// does to the store's, on every store.
@Suite("The ledger's edges, on every store")
struct LedgerEdgeContractTests {
    @Test("a second stall replaces the reason but keeps the time the stall began", arguments: Backend.allCases)
    func aStallKeepsItsStart(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            try await ledger.commit([Sample.photo("a")], next: 2)
            try await ledger.recordBackfillStall(reason: "the page repeats itself", source: .feed, at: Instant.t(10))
            try await ledger.recordBackfillStall(reason: "the page is shorter", source: .feed, at: Instant.t(20))
            let state = try await ledger.syncState(source: .feed)
            #expect(state.backfillStall == BackfillStall(reason: "the page is shorter", since: Instant.t(10)))
            #expect(state.backfillNext == Sample.pageURL(2), "the cursor does not move")
        }
    }

    @Test(
        "a second failure of a source keeps when it first failed, with the newest message", arguments: Backend.allCases)
    func aFailureKeepsItsStart(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.recordSourceFailure(.user("gone"), message: "404", at: Instant.t(10))
            try await store.ledger.recordSourceFailure(.user("gone"), message: "404 again", at: Instant.t(20))
            let source = try #require(try await store.catalog.sourceStatistics().first { $0.name == "user:gone" })
            #expect(source.failure == SourceFailure(message: "404 again", since: Instant.t(10)))
            #expect(source.photos == 0 && source.state == SyncState())
        }
    }

    @Test("a catch-up page clears its source's failure but leaves the backfill's stall", arguments: Backend.allCases)
    func aCatchUpClearsTheFailureNotTheStall(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")], next: 2)
            try await store.ledger.recordBackfillStall(reason: "repeats", source: .feed, at: Instant.t(10))
            try await store.ledger.recordSourceFailure(.feed, message: "503", at: Instant.t(10))
            let baseline = try await store.ledger.maxMembership()
            try await store.ledger.commitPage(
                [Sample.photo("new")], variant: Sample.variant, source: .feed, now: Instant.t(20)
            ) { _ in .catchUp(next: nil, baseline: baseline) }
            let feed = try #require(try await store.catalog.sourceStatistics().first { $0.name == "feed" })
            #expect(feed.failure == nil, "a stored page means the source exists")
            #expect(feed.state.backfillStall == BackfillStall(reason: "repeats", since: Instant.t(10)))
            #expect(feed.state.backfillNext == Sample.pageURL(2) && feed.state.lastPageAt == Instant.t(20))
        }
    }

    @Test("an empty page moves its source's cursor and stores nothing", arguments: Backend.allCases)
    func anEmptyPageMovesTheCursor(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let commit = try await store.ledger.commit([], next: nil, source: .collection("7"), now: Instant.t(5))
            #expect(commit == PageCommit(existingSequences: [:], existingMemberships: [:], newlyRejected: []))
            let state = try await store.ledger.syncState(source: .collection("7"))
            #expect(state == SyncState(backfillNext: nil, backfillComplete: true, lastPageAt: Instant.t(5)))
            #expect(try await store.catalog.hasSource(.collection("7")))
            #expect(try await store.ledger.maxSequence() == 0)
            #expect(try await store.ledger.maxMembership() == 0)
            #expect(try await store.catalog.statistics().photos == 0)
        }
    }

    @Test("rejected elements are listed oldest first, at most as many as asked", arguments: Backend.allCases)
    func rejectedOldestFirst(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            let elements = (0..<4).map { index in
                RejectedPhoto(
                    photoID: index == 2 ? nil : "r\(index)", json: Data(#"{"n": \#(index)}"#.utf8),
                    reason: "bad \(index)")
            }
            for (index, element) in elements.enumerated() {
                try await ledger.commitPage(
                    [], rejected: [element], variant: Sample.variant, source: .feed, now: Instant.t(Double(index))
                ) { _ in .backfill(next: Sample.pageURL(index + 2)) }
            }
            #expect(try await ledger.rejectedPhotos(limit: 3) == Array(elements.prefix(3)))
            #expect(try await ledger.rejectedPhotos(limit: 0).isEmpty)
            // A usable photo clears only the rejections of its own id.
            try await ledger.commit([Sample.photo("r1")], next: 9)
            #expect(try await ledger.rejectedPhotos(limit: 10) == [elements[0], elements[2], elements[3]])
        }
    }

    @Test(
        "each source's listing of a photo is a membership of its own; a known one adds none",
        arguments: Backend.allCases)
    func membershipsPerSource(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            #expect(try await ledger.maxSequence() == 0)
            #expect(try await ledger.maxMembership() == 0)
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            let feedOnly = try await ledger.maxMembership()
            let second = try await ledger.commit([Sample.photo("b")], source: .user("ann"))
            #expect(second.existingMemberships.isEmpty && second.existingSequences == ["b": 2])
            #expect(try await ledger.maxMembership() > feedOnly, "user:ann's membership of b is new")
            let both = try await ledger.maxMembership()
            let again = try await ledger.commit([Sample.photo("b"), Sample.photo("a")], source: .user("ann"))
            #expect(Set(again.existingMemberships.keys) == ["b"])
            #expect(try await ledger.maxMembership() > both, "a joins user:ann")
            let all = try await ledger.maxMembership()
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")], source: .user("ann"))
            #expect(try await ledger.maxMembership() == all)
            #expect(try await ledger.maxSequence() == 2)
        }
    }

    @Test(
        "status's backfill is the feed's cursor, complete when every active source is, last paged by any",
        arguments: Backend.allCases)
    func storeStatusFromSources(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.activateSources([.feed, .user("ann")])
            try await store.ledger.commit([Sample.photo("a")], next: nil, now: Instant.t(10))
            try await store.ledger.commit([Sample.photo("b")], next: 3, source: .user("ann"), now: Instant.t(20))
            var statistics = try await store.catalog.statistics()
            #expect(statistics.backfillNext == nil, "the feed's, not user:ann's")
            #expect(!statistics.backfillComplete && statistics.lastPageAt == Instant.t(20))

            try await store.ledger.activateSources([.feed])
            #expect(try await store.catalog.statistics().backfillComplete, "user:ann is no longer configured")
            try await store.ledger.activateSources([])
            #expect(try await !store.catalog.statistics().backfillComplete, "no source is active")

            // A stall is the feed's, or else the first active source's.
            try await store.ledger.activateSources([.feed, .user("ann")])
            try await store.ledger.recordBackfillStall(reason: "ann's page", source: .user("ann"), at: Instant.t(30))
            statistics = try await store.catalog.statistics()
            #expect(statistics.backfillStall == BackfillStall(reason: "ann's page", since: Instant.t(30)))
            try await store.ledger.recordBackfillStall(reason: "the feed's page", source: .feed, at: Instant.t(40))
            #expect(
                try await store.catalog.statistics().backfillStall
                    == BackfillStall(reason: "the feed's page", since: Instant.t(40)))
        }
    }

    @Test("a source's object stored again replaces the first and its time", arguments: Backend.allCases)
    func aSourceObjectIsReplaced(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let old = Data(#"{"id": "9", "title": "Old"}"#.utf8)
            let new = Data(#"{"id": "9",   "title": "Neu ✓"}"#.utf8)
            try await store.ledger.storeSourceObject(old, sources: [.collection("9")], at: Instant.t(5))
            try await store.ledger.storeSourceObject(new, sources: [.collection("9")], at: Instant.t(50))
            #expect(
                try await store.ledger.sourceObjectsFetched(sources: [.collection("9")]) == [
                    .collection("9"): Instant.t(50)
                ])
            #expect(try await store.catalog.sourceObject(ofAny: [.collection("9")]) == new, "byte for byte")
            #expect(try await store.ledger.sourceObjectsFetched(sources: []).isEmpty)
            #expect(try await store.catalog.sourceObject(ofAny: []) == nil)
            #expect(try await store.catalog.hasSource(.collection("9")), "a source with an object is known")
        }
    }

    @Test("a source only configured, or only failed, is known and listed with no photos", arguments: Backend.allCases)
    func configuredSourcesAreKnown(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await !store.catalog.hasSource(.likes("ann")))
            #expect(try await store.catalog.sourceNames().isEmpty)
            try await store.ledger.activateSources([.likes("ann")])
            try await store.ledger.recordSourceFailure(.search("red fox"), message: "400", at: Instant.t0)
            #expect(try await store.catalog.hasSource(.likes("ann")))
            #expect(try await store.catalog.hasSource(.search("red fox")))
            #expect(try await store.catalog.sourceNames() == ["likes:ann", "search:red fox"])
            #expect(try await store.catalog.count(matching: PhotoQuery(source: "likes:ann")) == 0)
            #expect(try await store.catalog.photos(matching: PhotoQuery(source: "likes:ann")).isEmpty)
        }
    }
}
