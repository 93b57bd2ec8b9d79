import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("What a SQLite listing keeps while the daemon writes")
struct ListingAnchorsTests {
    /// Clocks a test sets: each value made costs `cost` of CPU time, and `now` moves when told.
    final class Clocks: Sendable {
        let cost: Duration
        private let cpu = Mutex(Duration.zero)
        private let wall = ManualClock()

        init(cost: Duration) { self.cost = cost }

        /// Each pair of readings (before and after making a value) is `cost` apart.
        func cpuTime() -> Duration {
            cpu.withLock { time in
                defer { time += cost }
                return time
            }
        }

        func now() -> Duration { .seconds(100) + wall.offset }
        func advance(_ span: Duration) { wall.advance(span) }

        var keeping: ListingAnchors.Keeping {
            var keeping = ListingAnchors.Keeping()
            keeping.cpuTime = { self.cpuTime() }
            keeping.now = { self.now() }
            return keeping
        }
    }

    /// A file with one reader connection (values are kept per connection) and a table of `rows`.
    func withPool(_ body: (DatabasePool) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = Configuration()
        configuration.maximumReaderCount = 1
        let pool = try DatabasePool(path: folder.appending(path: "test.sqlite").path, configuration: configuration)
        try pool.write { try $0.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY)") }
        try body(pool)
        try pool.close()
    }

    func count(_ pool: DatabasePool, _ anchors: ListingAnchors) throws -> Int {
        try pool.read { db in
            try anchors.reading().count(db, signature: "rows") {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM row") ?? 0
            }
        }
    }

    func add(_ pool: DatabasePool) throws {
        try pool.write { try $0.execute(sql: "INSERT INTO row DEFAULT VALUES") }
    }

    @Test("a count that cost a second is kept for ten seconds after a change, then counted again")
    func aCostlyValueOutlivesChangesForTenTimesItsCost() throws {
        let clocks = Clocks(cost: .seconds(1))
        let anchors = ListingAnchors(keeping: clocks.keeping)
        try withPool { pool in
            #expect(try count(pool, anchors) == 0)
            try add(pool)
            #expect(try count(pool, anchors) == 0, "kept: counting again every change would cost a second each")
            clocks.advance(.seconds(9))
            try add(pool)
            #expect(try count(pool, anchors) == 0)
            clocks.advance(.seconds(1))
            #expect(try count(pool, anchors) == 2, "ten times its cost later, counted again")
            clocks.advance(.seconds(60))
            #expect(try count(pool, anchors) == 2, "kept while nothing changes, however long")
        }
    }

    @Test("a server's values lag changes by a second at most, however cheap")
    func aServersValuesLagBySecond() throws {
        let clocks = Clocks(cost: .milliseconds(1))
        var keeping = clocks.keeping
        keeping.rule.lag = .seconds(1)
        let anchors = ListingAnchors(keeping: keeping)
        try withPool { pool in
            #expect(try count(pool, anchors) == 0)
            try add(pool)
            clocks.advance(.milliseconds(900))
            #expect(try count(pool, anchors) == 0)
            clocks.advance(.milliseconds(100))
            #expect(try count(pool, anchors) == 1)
        }
    }

    @Test("a costly count made on one connection serves every other while it is kept")
    func aCostlyValueIsMadeOnceForEveryConnection() throws {
        let clocks = Clocks(cost: .seconds(1))
        let anchors = ListingAnchors(keeping: clocks.keeping)
        try withPool { pool in
            let path = pool.path
            let readers = try (0..<2).map { _ in
                var configuration = Configuration()
                configuration.readonly = true
                return try DatabaseQueue(path: path, configuration: configuration)
            }
            let made = Mutex(0)
            func count(_ reader: DatabaseQueue) throws -> Int {
                try reader.read { db in
                    try anchors.reading().count(db, signature: "rows") {
                        made.withLock { $0 += 1 }
                        return try Int.fetchOne(db, sql: "SELECT count(*) FROM row") ?? 0
                    }
                }
            }
            #expect(try count(readers[0]) == 0)
            #expect(try count(readers[1]) == 0)
            #expect(made.withLock { $0 } == 1, "counted once for both connections")
            clocks.advance(.seconds(10))
            #expect(try count(readers[1]) == 0)
            #expect(made.withLock { $0 } == 2, "ten times its cost later, a connection with none of its own counts")
            #expect(try count(readers[0]) == 0)
            #expect(made.withLock { $0 } == 2, "and one whose data has not changed keeps its own")
            for reader in readers { try reader.close() }
        }
    }

    @Test("a server's read answers with a costly count past its time, and a read of its own counts again")
    func aServerLeavesACostlyValueToAReadOfItsOwn() async throws {
        let clocks = Clocks(cost: .seconds(1))
        var keeping = clocks.keeping
        keeping.rule.lag = .seconds(1)
        let anchors = ListingAnchors(keeping: keeping)
        try withPool { pool in
            let made = Mutex(0)
            func count(_ reading: ListingAnchors.Reading) throws -> Int {
                try pool.read { db in
                    try reading.count(db, signature: "rows") {
                        made.withLock { $0 += 1 }
                        return try Int.fetchOne(db, sql: "SELECT count(*) FROM row") ?? 0
                    }
                }
            }
            #expect(try count(anchors.reading()) == 0, "none kept: the first read counts")
            try add(pool)
            clocks.advance(.seconds(10))
            let request = anchors.reading()
            #expect(try count(request) == 0)
            #expect(made.withLock { $0 } == 1, "past its time, a request answers with the count kept")
            #expect(request.deferred == ["count rows"])
            let another = anchors.reading()
            #expect(try count(another) == 0 && another.deferred.isEmpty, "and so does every other, meanwhile")

            #expect(try count(anchors.reading(refreshing: request.deferred)) == 1)
            #expect(made.withLock { $0 } == 2, "the read of its own counts")
            #expect(try count(anchors.reading()) == 1 && made.withLock { $0 } == 2)
        }
    }

    @Test("a catalog with a lag makes again what a request deferred, in a read that no request waits for")
    func aLaggingCatalogRefreshesInTheBackground() async throws {
        try await withStore { store, _ in
            try await store.ledger.commit([Sample.photo("a")])
            let clocks = Clocks(cost: .seconds(1))
            var keeping = clocks.keeping
            keeping.rule.lag = .seconds(1)
            let catalog = SQLitePhotoCatalog(database: try #require(store.sqlite), keeping: keeping)
            #expect(try await catalog.count(matching: PhotoQuery()) == 1)
            try await store.ledger.commit([Sample.photo("b")])
            clocks.advance(.seconds(10))
            #expect(try await catalog.count(matching: PhotoQuery()) == 1, "the request answers with the count kept")
            await catalog.anchors.refreshed()
            #expect(try await catalog.count(matching: PhotoQuery()) == 2, "counted again after it, by another read")
        }
    }

    @Test("a cheap count is counted again after every change, and none is kept past 30 seconds")
    func aCheapValueFollowsEveryChange() throws {
        let cheap = Clocks(cost: .milliseconds(5))
        let anchors = ListingAnchors(keeping: cheap.keeping)
        let slow = Clocks(cost: .seconds(20))
        let slowAnchors = ListingAnchors(keeping: slow.keeping)
        try withPool { pool in
            #expect(try count(pool, anchors) == 0)
            #expect(try count(pool, slowAnchors) == 0)
            try add(pool)
            #expect(try count(pool, anchors) == 1)
            slow.advance(.seconds(30))
            #expect(try count(pool, slowAnchors) == 1, "200 s would be ten times its cost; 30 s is the most")
        }
    }
}

@Suite("A server's SQLite listings under a writer")
struct LaggingListingTests {
    @Test("a source that held every photo lists none of another source's that just arrived")
    func aWholeStoreSourceIsNeverTakenOnTrustPastAChange() async throws {
        try await withStore { store, _ in
            try await store.ledger.commitPage(
                [Sample.photo("a"), Sample.photo("b")], variant: Sample.variant, source: .user("ann"), now: Instant.t0
            ) { _ in .backfill(next: nil) }
            // A server's store, whose totals and deep pages may lag a writer by a second.
            let server = try PhotoStore.openExisting(path: store.path, readers: 2, lag: .seconds(1))
            defer { try? server.close() }
            // A search within the source: the one listing that asks whether the source is the store.
            let ann = PhotoQuery(text: "photo", source: "user:ann")
            #expect(try await server.catalog.photos(matching: ann).map(\.id).sorted() == ["a", "b"])

            try await store.ledger.commitPage(
                [Sample.photo("c")], variant: Sample.variant, source: .user("bob"), now: Instant.t(1)
            ) { _ in .backfill(next: nil) }

            #expect(try await server.catalog.photos(matching: ann).map(\.id).sorted() == ["a", "b"])
        }
    }
}
