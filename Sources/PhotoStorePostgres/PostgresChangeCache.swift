import Logging
import PhotoStore
import PostgresNIO
import Synchronization

/// Values computed from the data (a listing's count), kept until the data may have changed: what
/// SQLite's `PRAGMA data_version` tells a connection. Each value is kept with the snapshot it was
/// computed in (`pg_current_snapshot()`: the newest transaction id, and those in progress); a
/// later snapshot that is the same text sees the same committed data, so the value still holds.
/// Nothing is written to know it: no counter row for every writer to wait on. A value outlives
/// changes for the store's ``KeptValueSpan``, as SQLite's listings' values do: for a lag (a
/// server's, under a daemon that commits many times a second), and, when it was costly to make,
/// for ten times what it took. A colour's count that took 1.3 s was otherwise made again as soon
/// as it was made, past a one-second lag: one connection and one server process busy for as
/// long as a writer wrote. What a making took is the time it was waited for, not CPU time as
/// SQLite's: a short count held up on a busy machine would seem costly, so without a lag (the
/// commands', which read what they just wrote) a value is kept by its snapshot alone.
///
/// A value is made by one request at a time. Others that need it in the same snapshot, or any
/// snapshot within a `lag`, wait for that one's result instead of making it again, and within a
/// `lag` they use the value kept before, if any, meanwhile. A count that reads a million photos
/// (a colour's, 1.3 s) was made by all sixteen of a client's connections at once otherwise,
/// when it was new and again at each change under a writer: `serve` answered 25 requests a
/// second instead of 1,500. The making is not cancelled with the request that started it: the
/// others wait for it.
///
/// With a lag and an `aside` (a server's), no request waits for a value made again: the one
/// that finds it past its lag answers with the value kept, as the others do, and the value is
/// made on a connection of its own (`aside`), as SQLite's listings' values are
/// (`ListingAnchors`). Only a value not kept yet is waited for.
final class PostgresChangeCache<Value: Sendable>: Sendable {
    /// Runs a value's making on a connection of its own.
    typealias Aside =
        @Sendable (_ make: @escaping @Sendable (PostgresConnection) async throws -> Value)
        async throws -> Value

    private struct Entry: Sendable {
        var snapshot: String
        var value: Value
        /// How long its making took: the server's work, waited for.
        var cost: Duration
        /// Until when it answers whatever the snapshot.
        var keptUntil: ContinuousClock.Instant
    }

    /// A value being made, for the snapshot it is made in.
    private struct Making: Sendable {
        var id: Int
        var snapshot: String
        var task: Task<Value, any Error>
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var making: [String: Making] = [:]
        var next = 0
    }

    private let keeping: KeptValueSpan
    private let aside: Aside?
    /// Called when a request starts waiting for another's value (a test's probe).
    private let waiting: @Sendable () -> Void
    /// A monotonic clock: when a value is made and used, and what its making took.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        keeping: KeptValueSpan = KeptValueSpan(), aside: Aside? = nil,
        waiting: @escaping @Sendable () -> Void = {}, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.keeping = keeping
        self.aside = keeping.lag > .zero ? aside : nil
        self.waiting = waiting
        self.now = now
    }

    /// At most this many values are remembered; all are forgotten when that is reached.
    private static var capacity: Int { 256 }
    private let state = Mutex(State())

    private enum Next {
        case kept(Value)
        case wait(Task<Value, any Error>)
        case make(Task<Value, any Error>)
    }

    /// The value kept for `key` if the data has not changed since, or `make`'s, kept.
    ///
    /// A value made or found current within its span (``KeptValueSpan``) is used without asking
    /// the server for its snapshot at all: a round trip less for each of a server's requests.
    /// One found current later is renewed for another span.
    /// - Parameters:
    ///   - connection: in the transaction whose snapshot `make` reads. `make` runs in a task of
    ///     its own that this call awaits, so the connection is this call's until it ends.
    ///   - make: makes the value on the connection given: `connection`, or the aside's.
    func value(
        for key: String, _ connection: PostgresConnection, _ logger: Logger,
        make: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        if let entry = state.withLock({ $0.entries[key] }), now() < entry.keptUntil {
            return entry.value
        }
        let snapshot =
            try await connection.guardedQuery("SELECT pg_current_snapshot()::text", logger: logger)
            .collect().first?.decode(String.self) ?? ""
        let now = now()
        let (keeping, clock) = (keeping, self.now)
        let next = state.withLock { state -> Next in
            if let entry = state.entries[key], entry.snapshot == snapshot {
                state.entries[key]?.keptUntil = max(entry.keptUntil, now + Self.span(keeping, costing: entry.cost))
                return .kept(entry.value)
            }
            let lagging = keeping.lag > .zero
            if let making = state.making[key], making.snapshot == snapshot || lagging {
                if lagging, let entry = state.entries[key] { return .kept(entry.value) }
                return .wait(making.task)
            }
            state.next += 1
            let id = state.next
            // Past its lag, a kept value answers this request too while it is made aside.
            let kept = aside == nil ? nil : state.entries[key]?.value
            let aside = kept == nil ? nil : aside
            // Made while the lock is held, so that its end, which takes the lock, comes after.
            let task = Task { () async throws -> Value in
                let started = clock()
                let result: Result<Value, any Error>
                do {
                    if let aside {
                        result = .success(try await aside(make))
                    } else {
                        result = .success(try await make(connection))
                    }
                } catch {
                    result = .failure(error)
                }
                self.keep(result, for: key, making: id, snapshot: snapshot, cost: clock() - started)
                return try result.get()
            }
            state.making[key] = Making(id: id, snapshot: snapshot, task: task)
            return kept.map(Next.kept) ?? .make(task)
        }
        switch next {
        case .kept(let value):
            return value
        case .wait(let task):
            waiting()
            return try await task.value
        case .make(let task):
            return try await task.value
        }
    }

    /// Keeps what the making `id` of `key` made in `snapshot`, which took `cost`, and ends it.
    private func keep(
        _ result: Result<Value, any Error>, for key: String, making id: Int, snapshot: String, cost: Duration
    ) {
        let keptUntil = now() + Self.span(keeping, costing: cost)
        state.withLock { state in
            if state.making[key]?.id == id { state.making[key] = nil }
            guard case .success(let value) = result else { return }
            if state.entries.count >= Self.capacity { state.entries.removeAll() }
            state.entries[key] = Entry(snapshot: snapshot, value: value, cost: cost, keptUntil: keptUntil)
        }
    }

    /// How long past a change a value whose making took `cost` is used: nothing without a lag.
    private static func span(_ keeping: KeptValueSpan, costing cost: Duration) -> Duration {
        keeping.lag > .zero ? keeping.span(costing: cost) : .zero
    }

    /// Waits for the values being made now, and those started meanwhile: for tests.
    func settled() async {
        var awaited = Set<Int>()
        while let making = state.withLock({ $0.making.values.first { !awaited.contains($0.id) } }) {
            _ = await making.task.result
            awaited.insert(making.id)
        }
    }
}
