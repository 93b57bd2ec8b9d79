import Foundation
import TestSupport
import Testing

@testable import PhotoStore

/// A source's own order (``PhotoQuery/inSourceOrder``) is the one Unsplash lists it in: the
/// photos a head catch-up finds come before the backfill's, the newest walk's first.
@Suite("A source's own order, on every store")
struct SourceOrderContractTests {
    static let source = PhotoSource.user("ann")

    /// Commits `ids` as one backfill page of ``source``.
    static func backfill(_ ids: [String], _ store: PhotoStore, next: Int? = nil) async throws {
        try await store.ledger.commitPage(
            ids.map { Sample.photo($0) }, variant: Sample.variant, source: source, now: Instant.t0
        ) { _ in .backfill(next: next.map(Sample.pageURL)) }
    }

    /// Commits `ids` as a page of the catch-up walk that began at `baseline`, followed by `next`.
    static func catchUp(_ ids: [String], _ store: PhotoStore, baseline: Int64, next: Int?) async throws {
        try await store.ledger.commitPage(
            ids.map { Sample.photo($0) }, variant: Sample.variant, source: source, now: Instant.t0
        ) { _ in .catchUp(next: next.map(Sample.pageURL), baseline: baseline) }
    }

    static func inSourceOrder(
        _ catalog: PhotoCatalog, limit: Int? = nil, offset: Int = 0, after: String? = nil, before: String? = nil
    ) async throws -> [String] {
        var query = PhotoQuery(source: source.description, limit: limit, offset: offset)
        query.inSourceOrder = true
        query.after = after
        query.before = before
        return try await catalog.photos(matching: query).map(\.id)
    }

    @Test(
        "catch-up walks list before the backfill, the newest walk first, each in its page order",
        arguments: Backend.allCases)
    func catchUpsComeFirst(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            // GIVEN a backfill of two pages, the newest photos first as the API lists them
            try await Self.backfill(["b1", "b2", "b3"], store, next: 2)
            try await Self.backfill(["b4", "b5"], store)
            // WHEN a catch-up walk finds two pages of new photos and ends on known ones
            let first = try await store.ledger.maxMembership()
            try await Self.catchUp(["c1", "c2"], store, baseline: first, next: 2)
            try await Self.catchUp(["c3", "b1", "b2"], store, baseline: first, next: nil)
            // AND a later walk finds more, listing one of the first walk's again
            let second = try await store.ledger.maxMembership()
            try await Self.catchUp(["d1", "d2", "c1"], store, baseline: second, next: nil)

            // THEN the source lists as the API does: the newest walk, the older one, the backfill
            let expected = ["d1", "d2", "c1", "c2", "c3", "b1", "b2", "b3", "b4", "b5"]
            let catalog = PagingContractTests.catalog(store)
            #expect(try await Self.inSourceOrder(catalog) == expected)
            // AND pages by number (from anchors, deep ones) and by cursor agree with it
            for offset in 0..<expected.count {
                #expect(
                    try await Self.inSourceOrder(catalog, limit: 3, offset: offset)
                        == Array(expected.dropFirst(offset).prefix(3)), "offset \(offset)")
            }
            #expect(try await Self.inSourceOrder(catalog, limit: 3, after: "c3") == ["b1", "b2", "b3"])
            #expect(try await Self.inSourceOrder(catalog, limit: 3, before: "b1") == ["c1", "c2", "c3"])
            // AND the source counts each photo once
            #expect(
                try await store.catalog.count(matching: PhotoQuery(source: Self.source.description)) == expected.count)
        }
    }

    @Test("a source first listed by a catch-up, then backfilled, keeps the two apart", arguments: Backend.allCases)
    func backfillAfterACatchUpOnlySource(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await Self.catchUp(["c1", "c2"], store, baseline: 0, next: nil)
            try await Self.backfill(["c2", "b1"], store)
            #expect(try await Self.inSourceOrder(store.catalog) == ["c1", "c2", "b1"])
        }
    }

    @Test(
        "a catch-up resumed from its stored cursor goes on in its own place, and a backfill re-walk keeps every place",
        arguments: Backend.allCases)
    func resumedCatchUpKeepsItsOrder(_ backend: Backend) async throws {
        try await backend.withPhotoStore { store in
            try await Self.backfill(["b1", "b2"], store)
            let baseline = try await store.ledger.maxMembership()
            // The walk stores its first page; the process dies before the second.
            try await Self.catchUp(["c1", "c2"], store, baseline: baseline, next: 2)
            // The next process resumes the walk from the cursor and baseline it finds stored.
            let state = try await store.ledger.syncState(source: Self.source)
            #expect(state.catchUpNext == Sample.pageURL(2) && state.catchUpBaseline == baseline)
            try await Self.catchUp(["c3", "b1"], store, baseline: try #require(state.catchUpBaseline), next: nil)
            // A backfill walked again from page 1 finds a photo it had missed: it goes last.
            try await Self.backfill(["c2", "b1", "b0", "b2"], store)

            #expect(try await Self.inSourceOrder(store.catalog) == ["c1", "c2", "c3", "b1", "b2", "b0"])
        }
    }
}
