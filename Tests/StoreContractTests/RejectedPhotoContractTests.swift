import Foundation
import TestSupport
import Testing

@testable import PhotoStore

@Suite("Rejected photos, on every store")
struct RejectedPhotoContractTests {
    private let noID = RejectedPhoto(
        photoID: nil, json: Data(#"{"likes":3,"slug":"no-id"}"#.utf8), reason: "\"id\" is missing")
    private let badWidth = RejectedPhoto(
        photoID: "w1", json: Data(#"{"id":"w1","width":"wide"}"#.utf8), reason: "\"width\" is not Int")

    @Test("a page's rejected elements are kept beside its good photos, and counted", arguments: Backend.allCases)
    func keptBesideGoodPhotos(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            let commit = try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("b")], rejected: [noID, badWidth], variant: Sample.variant,
                source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            #expect(commit.newlyRejected == [noID, badWidth])
            #expect(try await store.catalog.photoIDs() == ["a", "b"])
            #expect(try await store.ledger.rejectedPhotos(limit: 10) == [noID, badWidth])
            #expect(try await store.catalog.statistics().rejectedPhotos == 2)
        }
    }

    @Test("a usable version of a rejected photo clears its rejection", arguments: Backend.allCases)
    func usableVersionClears(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await store.ledger.commitPage(
                [], rejected: [badWidth], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            try await store.ledger.commitPage(
                [Sample.photo("w1")], variant: Sample.variant, source: .feed, now: Instant.t(1)
            ) { _ in .backfill(next: Sample.pageURL(3)) }

            #expect(try await store.catalog.statistics().rejectedPhotos == 0)
        }
    }

    @Test("the same element on a refetched page is recorded once and reported new once", arguments: Backend.allCases)
    func recordedOnce(_ backend: Backend) async throws {
        try await backend.withPhotoStoreBehindItsBack { store, behind in
            try await store.ledger.commitPage(
                [Sample.photo("a")], rejected: [noID], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            let again = try await store.ledger.commitPage(
                [Sample.photo("a")], rejected: [noID], variant: Sample.variant, source: .feed, now: Instant.t(60)
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            #expect(again.newlyRejected.isEmpty)
            #expect(try await store.catalog.statistics().rejectedPhotos == 1)
            #expect(
                try await behind.integer("SELECT count(*) FROM rejected_photo WHERE last_seen_at > first_seen_at") == 1,
                "its last sighting is the second page's")
        }
    }
}
