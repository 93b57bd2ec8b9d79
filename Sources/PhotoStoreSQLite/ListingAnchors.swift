import Foundation
import GRDB
import PhotoStore
import Synchronization

/// The anchors of listings (the keys of every n-th photo in an order) and the facts they rest
/// on, kept per connection until the database changes: SQLite's `PRAGMA data_version` tells a
/// connection whether another one has committed since it last looked.
///
/// Under a daemon that writes without pause the database changes many times a second, and each
/// value would be made again for nearly every request: a count that takes a second, for every
/// one. So a value outlives changes a while (``Keeping``): a server's for a second
/// (``KeptValueSpan/lag``), and one that was costly to make for ten times its cost. Within that time
/// every connection uses it, and once it is over one connection makes it again while the others
/// go on using it. What a page shows of the photos themselves is read anew each time; what may
/// lag is a total, where a deep page starts, and a ranking.
///
/// A server's read does not make a costly value again at all: it answers with the one kept,
/// and the value is made by a read of its own that no request waits for (``Reading``,
/// ``refresh(_:by:)``). Under a writing daemon the one request that made a colour search's
/// count again, every few seconds, waited a second for it while the others went on.
final class ListingAnchors: Sendable {
    private struct Entry: Sendable {
        var dataVersion: Int64
        var value: Value
        /// The CPU time its making took.
        var cost: Duration
        /// Until when any connection uses it, whatever its data version says (`Keeping.now`).
        var keptUntil: Duration
    }

    fileprivate enum Value: Sendable, Equatable {
        case keys([[DatabaseValue]])
        case flag(Bool)
        case count(Int)
        case ranking([Int64]?)
    }

    private struct State: Sendable {
        /// Each connection's values, by connection and name: a connection numbers its data
        /// versions on its own.
        var own: [String: Entry] = [:]
        /// The value of each name made or found current last, on any connection.
        var latest: [String: Entry] = [:]
        /// The names some connection is making a value of, or a read of its own is to make
        /// (``Reading/deferred``).
        var making: Set<String> = []
        /// The reads making values again that a server's request deferred, by number.
        var refreshes: [Int: Task<Void, Never>] = [:]
        var refreshesStarted = 0
    }

    /// One read transaction's use of the kept values: its calls go through it. Used by one read
    /// at a time, and read by its caller after the read (``deferred``).
    final class Reading: @unchecked Sendable {
        let anchors: ListingAnchors
        /// Values this read answered with past their time, that a read of their own is to make
        /// again; no other read makes them until it ends (``ListingAnchors/refresh(_:by:)``).
        fileprivate(set) var deferred: Set<String> = []
        /// The values this read makes again whatever is kept: it is that read.
        fileprivate let refreshing: Set<String>
        /// Whether a costly value past its time may answer this read, and be left to another.
        fileprivate let mayDefer: Bool

        fileprivate init(_ anchors: ListingAnchors, refreshing: Set<String>, mayDefer: Bool) {
            self.anchors = anchors
            self.refreshing = refreshing
            self.mayDefer = mayDefer
        }

        /// The anchors of the listing `signature` (its SQL and arguments), made by `make` when
        /// none are kept (``remembered(_:_:outlivingChanges:make:)``).
        func keys(
            _ db: Database, signature: String, interval: Int, make: () throws -> [[DatabaseValue]]
        ) throws -> [[DatabaseValue]] {
            let value = try anchors.remembered(db, self, "\(interval) \(signature)") { .keys(try make()) }
            guard case .keys(let keys) = value else { return [] }
            return keys
        }

        /// The number of photos in the listing `signature` (its SQL and arguments), counted by
        /// `make` when none is kept.
        func count(_ db: Database, signature: String, make: () throws -> Int) throws -> Int {
            let value = try anchors.remembered(db, self, "count \(signature)") { .count(try make()) }
            guard case .count(let count) = value else { return 0 }
            return count
        }

        /// The row ids of the search `signature` (its SQL and arguments), best first, or nil
        /// when it has too many matches to rank; made by `make` when none is kept.
        func ranking(_ db: Database, signature: String, make: () throws -> [Int64]?) throws -> [Int64]? {
            let value = try anchors.remembered(db, self, "ranking \(signature)") { .ranking(try make()) }
            guard case .ranking(let ranking) = value else { return nil }
            return ranking
        }

        /// Whether every stored photo is in the source `sourceID`. Only "no" outlives a change:
        /// a listing that checks each photo's membership when it need not is right, only
        /// slower; one that skips the check when a photo of another source just arrived is wrong.
        func isWholeStore(_ db: Database, sourceID: Int64) throws -> Bool {
            let value = try anchors.remembered(
                db, self, "whole store \(sourceID)", outlivingChanges: { $0 == .flag(false) },
                make: {
                    let photos = try Int.fetchOne(db, sql: "SELECT count(*) FROM photo") ?? 0
                    let members =
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM photo_source WHERE source_id = ?", arguments: [sourceID])
                        ?? 0
                    return .flag(photos == members)
                })
            guard case .flag(let flag) = value else { return false }
            return flag
        }
    }

    /// How long a value outlives changes to the data it was made from, and the clocks that say
    /// what its making cost and when it is.
    struct Keeping: Sendable {
        /// The rule both stores keep values by (``KeptValueSpan``).
        var rule = KeptValueSpan()
        /// The CPU time of the calling thread: what making a value costs, whatever else runs.
        var cpuTime: @Sendable () -> Duration = { Keeping.threadCPUTime() }
        /// A monotonic clock.
        var now: @Sendable () -> Duration = { Keeping.uptime() }

        static func threadCPUTime() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }

        static func uptime() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
    }

    /// At most this many listings are remembered; all are forgotten when that is reached.
    private static let capacity = 256
    private let state = Mutex(State())
    private let keeping: Keeping

    init(keeping: Keeping = Keeping()) {
        self.keeping = keeping
    }

    /// A read's use of the kept values. A server's (a ``KeptValueSpan/lag`` over zero) may answer
    /// with a costly value past its time and leave it to be made again (``Reading/deferred``,
    /// ``refresh(_:by:)``); the writer's and the commands' make it themselves.
    func reading() -> Reading {
        Reading(self, refreshing: [], mayDefer: keeping.rule.lag > .zero)
    }

    /// The use of a read that makes the values `names` again, which a server's read deferred.
    func reading(refreshing names: Set<String>) -> Reading {
        Reading(self, refreshing: names, mayDefer: false)
    }

    /// Makes the values `names` again, which a server's read deferred, by `read`: a read of
    /// their own (``reading(refreshing:)``) that calls what the deferring read called. Until
    /// it ends every other read answers with the values kept; whatever it does not make, it
    /// leaves to be made by the next read that asks.
    func refresh(_ names: Set<String>, by read: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let number = state.refreshesStarted
            state.refreshesStarted += 1
            // Made while the lock is held, so that its end, which takes the lock, comes after.
            state.refreshes[number] = Task {
                await read()
                self.state.withLock { state in
                    state.making.subtract(names)
                    state.refreshes[number] = nil
                }
            }
        }
    }

    /// Waits for the reads of ``refresh(_:by:)`` started so far: for tests.
    func refreshed() async {
        while let (_, task) = state.withLock({ $0.refreshes.first }) {
            await task.value
        }
    }

    /// The value of `name` kept for this connection's data, or kept within its time by any
    /// connection (when `outlivingChanges` allows it), or past its time when `reading` may
    /// defer its making, or else `make`'s, kept.
    fileprivate func remembered(
        _ db: Database, _ reading: Reading, _ name: String, outlivingChanges: (Value) -> Bool = { _ in true },
        make: () throws -> Value
    ) throws -> Value {
        let key = "\(ObjectIdentifier(db).hashValue) \(name)"
        let dataVersion = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
        let now = keeping.now()
        let kept = state.withLock { state -> Value? in
            if var entry = state.own[key], entry.dataVersion == dataVersion {
                // Current as of now: every connection may use it for as long again.
                entry.keptUntil = max(entry.keptUntil, now + keeping.rule.span(costing: entry.cost))
                state.latest[name] = entry
                return entry.value
            }
            if !reading.refreshing.contains(name), let entry = state.latest[name], outlivingChanges(entry.value) {
                if now < entry.keptUntil { return entry.value }
                // One connection makes it again; the others use the one kept meanwhile.
                if state.making.contains(name) && keeping.rule.span(costing: entry.cost) > .zero { return entry.value }
                if reading.mayDefer && entry.cost >= keeping.rule.worthKeeping {
                    // A server's: a read of its own makes it again, not this one.
                    state.making.insert(name)
                    reading.deferred.insert(name)
                    return entry.value
                }
            }
            state.making.insert(name)
            return nil
        }
        if let kept { return kept }
        defer { _ = state.withLock { $0.making.remove(name) } }
        let started = keeping.cpuTime()
        let value = try make()
        let cost = keeping.cpuTime() - started
        let keptUntil = keeping.now() + keeping.rule.span(costing: cost)
        let entry = Entry(dataVersion: dataVersion, value: value, cost: cost, keptUntil: keptUntil)
        state.withLock { state in
            if state.own.count >= Self.capacity { state.own.removeAll() }
            if state.latest.count >= Self.capacity { state.latest.removeAll() }
            state.own[key] = entry
            state.latest[name] = entry
        }
        return value
    }
}
