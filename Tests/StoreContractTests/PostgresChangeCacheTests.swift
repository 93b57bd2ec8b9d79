import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import PostgresNIO
import Synchronization
import TestSupport
import Testing

@testable import PhotoStorePostgres

/// `serve`'s kept values on PostgreSQL (a count, anchors, a ranking) are made by one request at
/// a time: the others use the value kept before, within the lag, or wait for that one.
@Suite("PostgreSQL's kept values", .timeLimit(.minutes(5)))
struct PostgresChangeCacheTests {
    let logger = Logger(label: "photosync.contract")

    /// How many times a value was made.
    final class Makings: Sendable {
        private let count = Mutex(0)
        var made: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// A value whose making waits until it is let go, and says when it has started.
    final class HeldValue: Sendable {
        private struct Gate {
            var open = false
            var waiting: CheckedContinuation<Void, Never>?
        }

        private let started: AsyncStream<Void>.Continuation
        let starts: AsyncStream<Void>
        private let gate = Mutex(Gate())

        init() {
            (starts, started) = AsyncStream.makeStream()
        }

        func make(_ value: Int) async -> Int {
            started.yield()
            await withCheckedContinuation { continuation in
                let open = gate.withLock { gate in
                    if !gate.open { gate.waiting = continuation }
                    return gate.open
                }
                if open { continuation.resume() }
            }
            return value
        }

        func open() {
            gate.withLock { gate in
                gate.open = true
                return gate.waiting.take()
            }?.resume()
        }
    }

    /// A making of `value` that takes `span` by `clock`.
    func making(_ value: Int, taking span: Duration, by clock: ManualClock) -> @Sendable () async -> Int {
        {
            clock.advance(span)
            return value
        }
    }

    /// Requests for one kept value of `cache`, each on a connection of its own, counting the
    /// times they made it.
    struct Requests: Sendable {
        let database: PhotoStorePostgres.PostgresDatabase
        let cache: PostgresChangeCache<Int>
        let made = Makings()
        let logger: Logger

        func value(_ make: @escaping @Sendable () async -> Int) async throws -> Int {
            try await database.read("a request") { [made, cache, logger] connection in
                try await cache.value(for: "count", connection, logger) { _ in
                    made.add()
                    return await make()
                }
            }
        }
    }

    /// Runs `body` with requests to `cache` on a new database.
    func withRequests(to cache: PostgresChangeCache<Int>, _ body: (Requests) async throws -> Void) async throws {
        try await withRequests(to: { _ in cache }, body)
    }

    /// Runs `body` with requests to the cache `cache` makes for the new database.
    func withRequests(
        to cache: (PhotoStorePostgres.PostgresDatabase) -> PostgresChangeCache<Int>,
        _ body: (Requests) async throws -> Void
    ) async throws {
        var location = try PostgresLocation(parsing: try await PostgresTestCluster.shared.makeDatabase())
        // A connection for each of the tests' five requests at once.
        location.connections = 8
        let database = try await PhotoStorePostgres.PostgresDatabase.open(location, password: nil, logger: logger)
        defer { database.close() }
        try await body(Requests(database: database, cache: cache(database), logger: logger))
    }

    /// Commits a transaction, so that the next snapshot is another.
    func change(_ requests: Requests) async throws {
        _ = try await requests.database.read("a change") { [logger] connection in
            try await connection.guardedQuery("SELECT txid_current()", logger: logger)
        }
    }

    @Test("past the lag, a value that took a second to make is kept for ten seconds, then made again")
    func aCostlyValueOutlivesTheLagForTenTimesItsCost() async throws {
        let clock = ManualClock()
        let cache = PostgresChangeCache<Int>(keeping: KeptValueSpan(lag: .seconds(1)), now: { clock.instant })
        try await withRequests(to: cache) { requests in
            // GIVEN a value whose making took a second, and the data changed since
            #expect(try await requests.value(making(1, taking: .seconds(1), by: clock)) == 1)
            try await change(requests)

            // WHEN a request comes 9.9 s after it was made, past the one-second lag
            clock.advance(.milliseconds(9_900))

            // THEN the kept value answers: made again at every change, it would be made all the time
            #expect(try await requests.value { 2 } == 1)
            #expect(requests.made.made == 1)
            clock.advance(.milliseconds(200))
            #expect(try await requests.value { 3 } == 3, "ten times its cost later, made again")
            #expect(requests.made.made == 2)
        }
    }

    @Test("without a lag, a value that took a second to make is made again after a change")
    func withoutALagACostlyValueIsKeptByItsSnapshotAlone() async throws {
        let clock = ManualClock()
        let cache = PostgresChangeCache<Int>(now: { clock.instant })
        try await withRequests(to: cache) { requests in
            // GIVEN a value whose making took a second
            #expect(try await requests.value(making(1, taking: .seconds(1), by: clock)) == 1)

            // WHEN the data changes
            try await change(requests)

            // THEN the next request makes it again, as the commands read what they just wrote
            #expect(try await requests.value { 2 } == 2)
        }
    }

    @Test("kept for the lag alone, a value that took a second to make is made again past the lag")
    func keptForTheLagAloneACostlyValueIsMadeAgainPastIt() async throws {
        let clock = ManualClock()
        let cache = PostgresChangeCache<Int>(keeping: .lagAlone(.seconds(1)), now: { clock.instant })
        try await withRequests(to: cache) { requests in
            // GIVEN a value whose making took a second, and the data changed since
            #expect(try await requests.value(making(1, taking: .seconds(1), by: clock)) == 1)
            try await change(requests)

            // WHEN requests come within the lag and past it
            clock.advance(.milliseconds(900))
            #expect(try await requests.value { 2 } == 1, "within the lag, the kept value answers")
            clock.advance(.milliseconds(200))

            // THEN past it the value is made again, whatever it cost (a source's "holds every photo")
            #expect(try await requests.value { 3 } == 3)
        }
    }

    @Test("a server's request past the lag answers with the kept value, and it is made again aside")
    func aServersRequestLeavesTheMakingAside() async throws {
        let asides = Makings()
        let makeCache = { (database: PhotoStorePostgres.PostgresDatabase) in
            PostgresChangeCache<Int>(keeping: KeptValueSpan(lag: .milliseconds(1))) { make in
                asides.add()
                return try await database.read("aside") { connection in try await make(connection) }
            }
        }
        try await withRequests(to: makeCache) { requests in
            // GIVEN a value kept (the first is made by its request: there is none to answer with)
            #expect(try await requests.value({ 1 }) == 1)
            #expect(asides.made == 0)
            _ = try await requests.database.read("a change") { [logger] connection in
                try await connection.guardedQuery("SELECT txid_current()", logger: logger)
            }
            try await Task.sleep(for: .milliseconds(5))

            // WHEN a request finds it past the lag, its making held until let go
            let held = HeldValue()
            let request = try await requests.value { await held.make(2) }

            // THEN that request has the kept value without waiting, the making runs aside
            #expect(request == 1)
            var starts = held.starts.makeAsyncIterator()
            await starts.next()
            #expect(asides.made == 1)
            held.open()
            await requests.cache.settled()
            #expect(try await requests.value({ 3 }) == 2, "the value made aside is kept")
            await requests.cache.settled()
        }
    }

    @Test("while one request makes a value again, the others use the one kept before and make none")
    func oneRequestMakesAValueAgainWhileTheOthersUseTheKeptOne() async throws {
        try await withRequests(to: PostgresChangeCache(keeping: KeptValueSpan(lag: .milliseconds(1)))) { requests in
            // GIVEN a value kept, and the data changed since
            #expect(try await requests.value({ 1 }) == 1)
            try await change(requests)
            try await Task.sleep(for: .milliseconds(5))

            // WHEN one request makes it again, held until let go
            let held = HeldValue()
            let maker = Task { try await requests.value { await held.make(2) } }
            var starts = held.starts.makeAsyncIterator()
            await starts.next()

            // THEN the others meanwhile use the kept one, and make none
            for _ in 0..<4 { #expect(try await requests.value({ 3 }) == 1) }
            #expect(requests.made.made == 2)
            held.open()
            #expect(try await maker.value == 2)
        }
    }

    @Test("a value not kept yet is made once for every request that needs it meanwhile")
    func aNewValueIsMadeOnceForAllThatNeedIt() async throws {
        let (waits, waiting) = AsyncStream<Void>.makeStream()
        // A server's lag: the snapshot moves with every other test's writes to the cluster.
        let cache = PostgresChangeCache<Int>(keeping: KeptValueSpan(lag: .seconds(3600)), waiting: { waiting.yield() })
        try await withRequests(to: cache) { (requests: Requests) async throws in
            // GIVEN one request making a value, held until let go
            let held = HeldValue()
            let maker = Task { try await requests.value { await held.make(1) } }
            var starts = held.starts.makeAsyncIterator()
            await starts.next()

            // WHEN others need it before it is made
            let others = (0..<4).map { index in Task { try await requests.value { 10 + index } } }
            // Each waits for the one being made (were it wrong, it would make its own at once,
            // and never wait); the maker is let go once they all do.
            var waited = 0
            for await _ in waits {
                waited += 1
                if waited == others.count { break }
            }
            held.open()

            // THEN every one of them has the one value, made once
            #expect(try await maker.value == 1)
            for other in others { #expect(try await other.value == 1) }
            #expect(requests.made.made == 1)
        }
    }
}
