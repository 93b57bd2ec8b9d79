import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Committing pages, on every store")
struct PageCommitContractTests {
    @Test(
        "a new photo is stored with every field, its JSON verbatim, and the next sequence", arguments: Backend.allCases)
    func storesNewPhotos(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            var photo = Sample.photo("a")
            photo.isSponsored = true
            // Odd spacing and non-ASCII text must come back byte for byte.
            photo.json = Data(#"{ "id":"a",  "description":"Fjällräven \u00e9 🏔", "urls":{} }"#.utf8)

            let commit = try await store.ledger.commit([photo, Sample.photo("b")], now: Instant.t0)

            #expect(commit.existingSequences.isEmpty)
            let stored = try #require(try await store.catalog.photo(id: "a"))
            #expect(stored.sequence == 1)
            #expect(stored.createdAt == photo.createdAt)
            #expect(stored.updatedAt == photo.updatedAt)
            #expect(stored.width == photo.width && stored.height == photo.height)
            #expect(stored.color == photo.color && stored.blurHash == photo.blurHash)
            #expect(stored.description == photo.description && stored.altDescription == photo.altDescription)
            #expect(stored.userUsername == photo.userUsername && stored.userName == photo.userName)
            #expect(stored.likes == photo.likes)
            #expect(stored.isSponsored)
            #expect(stored.downloadLocation == photo.downloadLocation)
            #expect(stored.downloadTrackedAt == nil)
            #expect(stored.json == photo.json)
            #expect(stored.firstSeenAt == Instant.t0 && stored.lastSeenAt == Instant.t0)
            #expect(stored.image == nil)
            #expect(try await store.catalog.photo(id: "b")?.sequence == 2)
            #expect(try await store.catalog.photo(id: "c") == nil)
            #expect(try await store.ledger.maxSequence() == 2)
        }
    }

    @Test(
        "a known photo is updated, keeps its sequence and first sighting, and is reported", arguments: Backend.allCases)
    func upsertsKnownPhotos(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")], now: Instant.t0)
            let updatedB = Sample.photo("b", likes: 42, revision: 1)

            let commit = try await store.ledger.commit([updatedB, Sample.photo("c")], next: 3, now: Instant.t(60))

            #expect(commit.existingSequences == ["b": 2])
            let b = try #require(try await store.catalog.photo(id: "b"))
            #expect(b.likes == 42)
            #expect(b.json == updatedB.json)
            #expect(b.sequence == 2)
            #expect(b.firstSeenAt == Instant.t0)
            #expect(b.lastSeenAt == Instant.t(60))
            #expect(try await store.catalog.photo(id: "c")?.sequence == 3)
            #expect(try await store.catalog.statistics().photos == 3)
        }
    }

    @Test("a photo listed twice in one page is inserted once and not reported as existing", arguments: Backend.allCases)
    func duplicateWithinPage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let commit = try await store.ledger.commit([Sample.photo("a"), Sample.photo("a", likes: 5)])

            #expect(commit.existingSequences.isEmpty)
            #expect(try await store.ledger.maxSequence() == 1)
            #expect(try await store.catalog.photo(id: "a")?.likes == 5)
        }
    }

    @Test(
        "a commit that fails midway changes neither photos, nor image jobs, nor the cursor", arguments: Backend.allCases
    )
    func failedCommitIsAtomic(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a", likes: 1)], next: 2, now: Instant.t0)
            let stateBefore = try await store.ledger.syncState(source: .feed)

            // "bad" violates CHECK (width >= 0) after "a" was updated and "b" inserted.
            await #expect(throws: StoreError.self) {
                try await store.ledger.commit(
                    [Sample.photo("a", likes: 50), Sample.photo("b"), Sample.photo("bad", width: -1)],
                    next: 3, now: Instant.t(60))
            }

            #expect(try await store.ledger.syncState(source: .feed) == stateBefore)
            #expect(try await store.catalog.photo(id: "a")?.likes == 1)
            #expect(try await store.catalog.photo(id: "a")?.lastSeenAt == Instant.t0)
            #expect(try await store.catalog.photo(id: "b") == nil)
            #expect(try await store.ledger.maxSequence() == 1)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: .distantFuture, limit: 10).map(
                    \.photoID) == ["a"])
        }
    }

    @Test("backfill pages move the cursor; a last page marks the backfill complete", arguments: Backend.allCases)
    func backfillCursor(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            #expect(try await store.ledger.syncState(source: .feed) == SyncState())

            try await store.ledger.commit([Sample.photo("a")], next: 2, now: Instant.t0)
            #expect(
                try await store.ledger.syncState(source: .feed)
                    == SyncState(backfillNext: Sample.pageURL(2), lastPageAt: Instant.t0))
            #expect(try await store.catalog.statistics().backfillComplete == false)

            try await store.ledger.commit([Sample.photo("b")], next: nil, now: Instant.t(5))
            let state = try await store.ledger.syncState(source: .feed)
            #expect(state == SyncState(backfillNext: nil, backfillComplete: true, lastPageAt: Instant.t(5)))
            let statistics = try await store.catalog.statistics()
            #expect(statistics.backfillComplete && statistics.backfillNext == nil)
            #expect(statistics.lastPageAt == Instant.t(5))
        }
    }

    @Test("a catch-up records its next page and baseline, and clears both when finished", arguments: Backend.allCases)
    func catchUpCursor(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")], next: 2, now: Instant.t0)
            let head = URL(string: "https://api.example.com/photos?page=2&catch-up")!

            try await store.ledger.commitPage(
                [Sample.photo("new")], variant: Sample.variant, source: .feed, now: Instant.t(1)
            ) { _ in .catchUp(next: head, baseline: 1) }
            var state = try await store.ledger.syncState(source: .feed)
            #expect(state.catchUpNext == head && state.catchUpBaseline == 1)
            #expect(state.backfillNext == Sample.pageURL(2) && !state.backfillComplete)

            try await store.ledger.commitPage(
                [Sample.photo("a")], variant: Sample.variant, source: .feed, now: Instant.t(2)
            ) { _ in .catchUp(next: nil, baseline: 1) }
            state = try await store.ledger.syncState(source: .feed)
            #expect(state.catchUpNext == nil && state.catchUpBaseline == nil)
            #expect(state.backfillNext == Sample.pageURL(2))
            #expect(state.lastPageAt == Instant.t(2))
        }
    }

    @Test(
        "a cursor decided from the page sees what existed before it, and commits with it", arguments: Backend.allCases)
    func decidedCursor(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commit([Sample.photo("a")], next: 2, now: Instant.t0)
            struct Refused: Error {}

            // A decision that throws leaves neither the page nor the cursor behind.
            await #expect(throws: StoreError.self) {
                try await store.ledger.commitPage(
                    [Sample.photo("b")], variant: Sample.variant, source: .feed, now: Instant.t(1)
                ) { _ in throw Refused() }
            }
            #expect(try await store.catalog.photo(id: "b") == nil)

            let seen = Mutex<[String: Int64]>([:])
            try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("c")], variant: Sample.variant, source: .feed, now: Instant.t(2)
            ) { commit in
                seen.withLock { $0 = commit.existingSequences }
                return .backfill(next: nil)
            }
            #expect(seen.withLock { $0 } == ["a": 1])
            #expect(try await store.ledger.syncState(source: .feed).backfillComplete)
            #expect(try await store.catalog.photo(id: "c") != nil)
        }
    }
}
