import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Rejected photos on SQLite: the row's last sighting")
struct RejectedPhotoTests {
    private let noID = RejectedPhoto(
        photoID: nil, json: Data(#"{"likes":3,"slug":"no-id"}"#.utf8), reason: "\"id\" is missing")
    private let badWidth = RejectedPhoto(
        photoID: "w1", json: Data(#"{"id":"w1","width":"wide"}"#.utf8), reason: "\"width\" is not Int")

    @Test("the same element on a refetched page is recorded once and reported new once")
    func recordedOnce() async throws {
        try await withStore { store, _ in
            try await store.ledger.commitPage(
                [Sample.photo("a")], rejected: [noID], variant: Sample.variant, source: .feed, now: Instant.t0
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            let again = try await store.ledger.commitPage(
                [Sample.photo("a")], rejected: [noID], variant: Sample.variant, source: .feed, now: Instant.t(60)
            ) { _ in .backfill(next: Sample.pageURL(2)) }

            #expect(again.newlyRejected.isEmpty)
            #expect(try await store.catalog.statistics().rejectedPhotos == 1)
            let lastSeen = try await store.pool.read { db in
                try Date.fetchOne(db, sql: "SELECT last_seen_at FROM rejected_photo")
            }
            #expect(lastSeen == Instant.t(60))
        }
    }
}
