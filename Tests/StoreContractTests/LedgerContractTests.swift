import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

/// The ledger's contract (``SyncLedger``), held to on every store.
@Suite("The ledger, on every store")
struct LedgerContractTests {
    struct Refused: Error {}

    @Test(
        "a page commits with its cursor, new photos numbered in order, known ones keeping theirs",
        arguments: Backend.allCases)
    func aPageCommitsWithItsCursor(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            // GIVEN a first page of two photos
            let first = try await ledger.commit([Sample.photo("a"), Sample.photo("b")], next: 2)
            #expect(first.existingSequences.isEmpty && first.existingMemberships.isEmpty)
            #expect(try await ledger.syncState(source: .feed).backfillNext == Sample.pageURL(2))
            #expect(try await ledger.maxSequence() == 2)

            // WHEN a second page lists b again and a new c, and ends the backfill
            let second = try await ledger.commit([Sample.photo("b", likes: 9), Sample.photo("c")], next: nil)

            // THEN b keeps its sequence and membership, c is numbered next, and the cursor says done
            #expect(second.existingSequences == ["b": 2])
            #expect(Set(second.existingMemberships.keys) == ["b"])
            #expect(try await ledger.maxSequence() == 3)
            let state = try await ledger.syncState(source: .feed)
            #expect(state.backfillComplete && state.backfillNext == nil && state.lastPageAt == Instant.t0)
            #expect(try await ledger.maxMembership() >= 3)
        }
    }

    @Test("a cursor that throws leaves nothing of its page", arguments: Backend.allCases)
    func aCursorThatThrowsLeavesNothing(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            try await ledger.commit([Sample.photo("a")], next: 2)
            await #expect(throws: StoreError.self) {
                try await ledger.commitPage(
                    [Sample.photo("b"), Sample.photo("c")], variant: Sample.variant, source: .feed, now: Instant.t(60)
                ) { _ in throw Refused() }
            }
            #expect(try await ledger.maxSequence() == 1)
            #expect(try await ledger.syncState(source: .feed).backfillNext == Sample.pageURL(2))
        }
    }

    @Test("a write and a read from a cancelled task run to their end", arguments: Backend.allCases)
    func cancelledTasksStillWriteAndRead(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            // A stopping daemon's stages: cancelled, their store calls still finish (and say so).
            let stage = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await ledger.commit([Sample.photo("a")])
                return try await ledger.maxSequence()
            }
            let sequence = try await stage.value
            #expect(sequence == 1)
        }
    }

    @Test("a rejected element is kept once, and is new only the first time", arguments: Backend.allCases)
    func rejectedElementsAreKeptOnce(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            let element = RejectedPhoto(photoID: "x", json: Data(#"{"id": "x"}"#.utf8), reason: "no urls")
            let first = try await ledger.commitPage(
                [], rejected: [element], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }
            let again = try await ledger.commitPage(
                [], rejected: [element], variant: Sample.variant, source: .feed, now: Instant.t(60)
            ) { _ in .backfill(next: Sample.pageURL(3)) }
            #expect(first.newlyRejected == [element] && again.newlyRejected.isEmpty)
            #expect(try await ledger.rejectedPhotos(limit: 10) == [element])

            // AND storing a usable photo of that id clears its rejection
            try await ledger.commit([Sample.photo("x")], next: 4)
            #expect(try await ledger.rejectedPhotos(limit: 10).isEmpty)
        }
    }

    @Test("a catch-up walk keeps its baseline until it ends, and then leaves none", arguments: Backend.allCases)
    func aCatchUpKeepsItsBaselineUntilItEnds(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            try await ledger.commit([Sample.photo("a")], next: nil)
            let baseline = try await ledger.maxMembership()
            try await ledger.commitPage([Sample.photo("b")], variant: Sample.variant, source: .feed, now: Instant.t(60))
            {
                _ in .catchUp(next: Sample.pageURL(2), baseline: baseline)
            }
            var state = try await ledger.syncState(source: .feed)
            #expect(state.catchUpNext == Sample.pageURL(2) && state.catchUpBaseline == baseline)

            try await ledger.commitPage([Sample.photo("c")], variant: Sample.variant, source: .feed, now: Instant.t(90))
            {
                _ in .catchUp(next: nil, baseline: baseline)
            }
            state = try await ledger.syncState(source: .feed)
            #expect(state.catchUpNext == nil && state.catchUpBaseline == nil && state.backfillComplete)
        }
    }

    @Test("a stall and a failure are recorded, and the next backfill page clears both", arguments: Backend.allCases)
    func aStallAndAFailureClearOnTheNextPage(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            let source = PhotoSource.user("ann")
            try await ledger.activateSources([source, .feed])
            try await ledger.recordBackfillStall(reason: "the page repeats itself", source: source, at: Instant.t(10))
            try await ledger.recordSourceFailure(source, message: "404", at: Instant.t(20))
            #expect(
                try await ledger.syncState(source: source).backfillStall
                    == BackfillStall(reason: "the page repeats itself", since: Instant.t(10)))

            try await ledger.commit([Sample.photo("a")], next: 2, source: source, now: Instant.t(30))
            #expect(try await ledger.syncState(source: source).backfillStall == nil)
        }
    }

    @Test("downloads are tracked once each, and an unknown photo marks none", arguments: Backend.allCases)
    func downloadsAreTrackedOnce(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            try await ledger.commit([Sample.photo("a"), Sample.photo("b")])
            await #expect(throws: StoreError.self) {
                try await ledger.markDownloadsTracked(photoIDs: ["a", "zz"], at: Instant.t(10))
            }
            try await ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(20))
            try await ledger.markDownloadsTracked(photoIDs: ["a", "b"], at: Instant.t(30))
            // Nothing is pending: no image is stored and no client asked for a download.
            #expect(try await ledger.pendingDownloadTracking(limit: 10).isEmpty)
        }
    }

    @Test("a source's object is stored for every source that shares it", arguments: Backend.allCases)
    func sourceObjectsAreSharedBySources(_ backend: Backend) async throws {
        try await backend.withLedger { ledger in
            let profile = Data(#"{"id": "u1", "username": "ann"}"#.utf8)
            try await ledger.storeSourceObject(profile, sources: [.user("ann"), .likes("ann")], at: Instant.t(5))
            let fetched = try await ledger.sourceObjectsFetched(sources: [.user("ann"), .likes("ann"), .feed])
            #expect(fetched == [.user("ann"): Instant.t(5), .likes("ann"): Instant.t(5)])
            await #expect(throws: StoreError.self) {
                try await ledger.storeSourceObject(Data("not json".utf8), sources: [.collection("1")], at: Instant.t(6))
            }
            #expect(try await ledger.sourceObjectsFetched(sources: [.collection("1")]).isEmpty)
        }
    }

    @Test("status learns when run last loaded its configuration, and whether on SIGHUP", arguments: Backend.allCases)
    func aLoadedConfigurationIsRecorded(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await store.catalog.statistics().configurationLoaded == nil)
            try await store.ledger.recordConfigurationLoaded(at: Instant.t(10), reload: false)
            #expect(
                try await store.catalog.statistics().configurationLoaded
                    == ConfigurationLoad(at: Instant.t(10), reload: false))
            try await store.ledger.recordConfigurationLoaded(at: Instant.t(20), reload: true)
            #expect(
                try await store.catalog.statistics().configurationLoaded
                    == ConfigurationLoad(at: Instant.t(20), reload: true))
        }
    }
}
