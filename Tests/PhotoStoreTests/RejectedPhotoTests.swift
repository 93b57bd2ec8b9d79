import Foundation
import GRDB
import Testing
@testable import PhotoStore

@Suite("Rejected photos")
struct RejectedPhotoTests {
    private let noID = RejectedPhoto(photoID: nil, json: Data(#"{"likes":3,"slug":"no-id"}"#.utf8), reason: "\"id\" is missing")
    private let badWidth = RejectedPhoto(photoID: "w1", json: Data(#"{"id":"w1","width":"wide"}"#.utf8), reason: "\"width\" is not Int")

    @Test("a page's rejected elements are kept beside its good photos, and counted")
    func keptBesideGoodPhotos() throws {
        try withStore { store, _ in
            let commit = try store.commitPage(
                [Sample.photo("a"), Sample.photo("b")], rejected: [noID, badWidth], variant: Sample.variant,
                cursor: .backfill(next: Sample.pageURL(2)), now: Instant.t0)

            #expect(commit.newlyRejected == [noID, badWidth])
            #expect(try store.photoIDs() == ["a", "b"])
            #expect(try store.rejectedPhotos(limit: 10) == [noID, badWidth])
            #expect(try store.statistics().rejectedPhotos == 2)
        }
    }

    @Test("the same element on a refetched page is recorded once and reported new once")
    func recordedOnce() throws {
        try withStore { store, _ in
            try store.commitPage([Sample.photo("a")], rejected: [noID], variant: Sample.variant,
                                 cursor: .backfill(next: Sample.pageURL(2)), now: Instant.t0)

            let again = try store.commitPage([Sample.photo("a")], rejected: [noID], variant: Sample.variant,
                                             cursor: .backfill(next: Sample.pageURL(2)), now: Instant.t(60))

            #expect(again.newlyRejected.isEmpty)
            #expect(try store.statistics().rejectedPhotos == 1)
            let lastSeen = try store.pool.read { db in try Date.fetchOne(db, sql: "SELECT last_seen_at FROM rejected_photo") }
            #expect(lastSeen == Instant.t(60))
        }
    }

    @Test("a usable version of a rejected photo clears its rejection")
    func usableVersionClears() throws {
        try withStore { store, _ in
            try store.commitPage([], rejected: [badWidth], variant: Sample.variant,
                                 cursor: .backfill(next: Sample.pageURL(2)), now: Instant.t0)

            try store.commitPage([Sample.photo("w1")], variant: Sample.variant,
                                 cursor: .backfill(next: Sample.pageURL(3)), now: Instant.t(1))

            #expect(try store.statistics().rejectedPhotos == 0)
        }
    }
}
