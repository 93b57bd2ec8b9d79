import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Sources and memberships, on every store")
struct SourceStoreContractTests {
    @Test(
        "a photo listed by two sources is stored once, a member of both, with one image job",
        arguments: Backend.allCases)
    func onePhotoManySources(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("b")], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }
            let commit = try await store.ledger.commitPage(
                [Sample.photo("b"), Sample.photo("c")], variant: Sample.variant, source: .user("ann"), now: Instant.t(1)
            ) { _ in .backfill(next: nil) }

            #expect(commit.existingSequences == ["b": 2], "b was stored before")
            #expect(commit.existingMemberships.isEmpty, "but user:ann had not listed it")
            #expect(try await store.catalog.statistics().photos == 3)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: Instant.t(2), limit: 10).map(
                    \.photoID) == ["a", "b", "c"])
            let sources = try Dictionary(
                uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.photos == 2 && sources["user:ann"]?.photos == 2)
            #expect(
                sources["feed"]?.state.backfillNext == Sample.pageURL(2)
                    && sources["feed"]?.state.backfillComplete == false)
            #expect(
                sources["user:ann"]?.state.backfillComplete == true
                    && sources["user:ann"]?.state.lastPageAt == Instant.t(1))
            #expect(
                try await store.catalog.photos(matching: PhotoQuery(source: "user:ann")).map(\.id).sorted() == [
                    "b", "c",
                ])
            #expect(
                try await store.catalog.photos(matching: PhotoQuery()).first { $0.id == "b" }?.sources == [
                    "feed", "user:ann",
                ])

            // The same page again: nothing new, and each membership is reported with its id.
            let again = try await store.ledger.commitPage(
                [Sample.photo("c")], variant: Sample.variant, source: .user("ann"), now: Instant.t(3)
            ) { _ in .backfill(next: nil) }
            #expect(again.existingMemberships.keys.sorted() == ["c"])
            #expect(try await store.catalog.sourceStatistics().first { $0.name == "user:ann" }?.photos == 2)
        }
    }

    @Test(
        "each source has its own cursors; the feed's are what syncState(source: feed) reads",
        arguments: Backend.allCases)
    func cursorsPerSource(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            try await store.ledger.commit([Sample.photo("a")], next: 2)
            try await store.ledger.commitPage(
                [Sample.photo("x")], variant: Sample.variant, source: .topic("wallpapers"), now: Instant.t(1)
            ) { _ in .backfill(next: Sample.pageURL(5)) }
            #expect(try await store.ledger.syncState(source: .feed).backfillNext == Sample.pageURL(2))
            #expect(try await store.ledger.syncState(source: .topic("wallpapers")).backfillNext == Sample.pageURL(5))
            #expect(try await store.ledger.syncState(source: .likes("nobody")) == SyncState())
        }
    }

    @Test(
        "sources no longer configured stay, inactive; a failure is kept until a page is stored",
        arguments: Backend.allCases)
    func activationAndFailures(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            try await store.ledger.commit([Sample.photo("a")], next: nil)
            try await store.ledger.activateSources([.collection("1"), .user("nobody")])
            try await store.ledger.recordSourceFailure(
                .user("nobody"), message: "Unsplash answered 404 (Couldn't find User)", at: Instant.t(1))

            var sources = try Dictionary(
                uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["feed"]?.active == false && sources["feed"]?.photos == 1)
            #expect(sources["collection:1"]?.active == true && sources["collection:1"]?.photos == 0)
            #expect(
                sources["user:nobody"]?.failure
                    == SourceFailure(message: "Unsplash answered 404 (Couldn't find User)", since: Instant.t(1)))

            try await store.ledger.commitPage(
                [Sample.photo("b")], variant: Sample.variant, source: .user("nobody"), now: Instant.t(2)
            ) { _ in .backfill(next: nil) }
            sources = try Dictionary(uniqueKeysWithValues: await store.catalog.sourceStatistics().map { ($0.name, $0) })
            #expect(sources["user:nobody"]?.failure == nil)
        }
    }

    @Test("an Unsplash+ photo keeps its metadata but gets no image job, now or later", arguments: Backend.allCases)
    func plusPhotosHaveNoImage(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            var plus = Sample.photo("plus")
            plus.isPlus = true
            try await store.ledger.commit([plus, Sample.photo("free")], next: nil)

            #expect(try await store.catalog.photo(id: "plus") != nil)
            #expect(
                try await store.imageQueue.dueImageJobs(variants: [Sample.variant], now: Instant.t0, limit: 10).map(
                    \.photoID) == ["free"])
            #expect(
                try await store.imageQueue.enqueueMissingImages(variant: .small) == 1,
                "only the free photo gets a small job"
            )
            let stats = try await store.catalog.statistics()
            #expect(stats.plusPhotos == 1 && stats.imagesPending == 2 && stats.imagesFailed == 0)
        }
    }

    @Test("a new database has no source until one is used", arguments: Backend.allCases)
    func freshDatabaseHasNoSources(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store throws in
            #expect(try await store.catalog.sourceStatistics().isEmpty)
            #expect(try await store.catalog.statistics().backfillComplete == false)
        }
    }
}
