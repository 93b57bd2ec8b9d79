import PhotoStore
import PostgresNIO
import Synchronization

/// What this process knows of its own writer lease, shared by the lease (which renews it) and by
/// ``PostgresDatabase/write(_:lane:_:)``, which fences every write transaction with it.
///
/// Two checks, for two kinds of harm:
/// - **Rows** are fenced by the database: a write transaction's first statement locks the lease
///   row (`FOR KEY SHARE`) only while its epoch and instance are still this holder's
///   (``fenceStatement(_:)``). A standby that takes the lease locks the row `FOR UPDATE`, so it
///   waits for a fenced transaction under way, and one that starts after it took over finds the
///   new epoch and writes nothing. So a holder that was paused or cut off and comes back cannot
///   write a single row.
/// - **Requests to the world** (download tracking) are not in the database: before each, the
///   holder asks ``isCurrent``, its own clock's judgement that no standby can have taken the
///   lease yet (the last renewal, timed from before it was sent, is younger than the lease's
///   duration).
///
/// Once lost, a fence stays lost: every later write fails with `StoreError.writerLeaseLost`
/// before it reaches the server, and ``lost()`` returns.
final class WriterFence: Sendable {
    /// The holder's identity in the lease row.
    struct Token: Sendable, Equatable {
        let instance: String
        let epoch: Int64
    }

    private enum State {
        case none
        case held(Token, renewedAt: ContinuousClock.Instant)
        case lost
        case givenUp
    }

    /// How long after a renewal was sent the lease certainly holds: the lease's duration less a
    /// second for the server's and this host's clocks running at slightly different rates.
    private let validity = Mutex<Duration>(.seconds(14))
    private let state = Mutex<State>(.none)
    private let lostSignal = AsyncStream<Void>.makeStream()

    /// This process took the lease, as `token`, by a statement sent at `sent`.
    func hold(_ token: Token, sent: ContinuousClock.Instant, duration: Duration) {
        validity.withLock { $0 = max(duration - .seconds(1), duration / 2) }
        state.withLock { $0 = .held(token, renewedAt: sent) }
    }

    /// The server renewed the lease by a statement sent at `sent`.
    func renewed(sent: ContinuousClock.Instant) {
        state.withLock { state in
            if case .held(let token, _) = state { state = .held(token, renewedAt: sent) }
        }
    }

    /// The lease is no longer this process's: another process took it, or it expired. Returns
    /// whether it was held until now (so that only the first to notice says so).
    @discardableResult
    func lose() -> Bool {
        let wasHeld = end(as: .lost)
        if wasHeld {
            lostSignal.continuation.yield()
            lostSignal.continuation.finish()
        }
        return wasHeld
    }

    /// This process gave the lease up: as lost for its writes, but ``lost()`` does not return.
    func giveUp() {
        end(as: .givenUp)
    }

    /// Whether the lease was lost, rather than given up or never held.
    var wasLost: Bool {
        if case .lost = state.withLock({ $0 }) { true } else { false }
    }

    @discardableResult
    private func end(as ending: State) -> Bool {
        state.withLock { state in
            guard case .held = state else { return false }
            state = ending
            return true
        }
    }

    /// What write transactions must show the server; nil when this process holds no lease (a
    /// reader, a copy's source).
    /// - Throws: `StoreError.writerLeaseLost` once the lease is lost.
    func token(database name: String) throws(StoreError) -> Token? {
        switch state.withLock({ $0 }) {
        case .none: nil
        case .held(let token, _): token
        case .lost, .givenUp: throw .writerLeaseLost(path: name)
        }
    }

    /// Whether the lease certainly still holds by this process's clock: it is held, and its last
    /// renewal was sent less than the lease's duration ago. A process that was paused past its
    /// lease learns here, before the server tells it, that a standby may have taken over.
    func isCurrent(now: ContinuousClock.Instant = .now) -> Bool {
        let validity = validity.withLock { $0 }
        return state.withLock { state in
            guard case .held(_, let renewedAt) = state else { return false }
            return now - renewedAt < validity
        }
    }

    /// Whether this process may act as the writer outside the database: while the lease is
    /// ``isCurrent(now:)``, or when it holds none (a store opened without one is fenced by
    /// nothing, as its writes are not).
    func mayAct(now: ContinuousClock.Instant = .now) -> Bool {
        if case .none = state.withLock({ $0 }) { return true }
        return isCurrent(now: now)
    }

    /// When the last renewal was sent; nil unless the lease is held.
    var renewedAt: ContinuousClock.Instant? {
        state.withLock { state in
            guard case .held(_, let renewedAt) = state else { return nil }
            return renewedAt
        }
    }

    /// Returns once the lease is lost (at once if it is). One caller at a time.
    func lost() async {
        for await _ in lostSignal.stream {}
    }

    /// The first statement of every write transaction of a holder: it finds the lease row only
    /// while `token` is the holder's, and keeps a standby from taking the lease until the
    /// transaction ends. It also ends the transaction when it waits for its next statement for
    /// more than ``idleLimit``: a holder stopped in the middle of one (SIGSTOP, a cut network)
    /// would otherwise keep the standby waiting for as long as the server keeps the connection.
    /// A transaction so ended is the holder's to run again, as any on a lost connection. It sets
    /// what every write transaction sets (``PostgresDatabase/transactionSettings``).
    static func statement(_ token: Token) -> PostgresQuery {
        """
        SELECT set_config('idle_in_transaction_session_timeout', \(String(idleLimit.components.seconds * 1000)), true),
            \(unescaped: PostgresDatabase.transactionSettings)
        FROM writer_lease WHERE id = 1 AND instance = \(token.instance) AND epoch = \(token.epoch) FOR KEY SHARE
        """
    }

    /// What a write throws when the server found the lease another's.
    struct Refused: Error {}

    /// How long a holder's write transaction may wait for its next statement. photosync sends
    /// each statement of a transaction as soon as the previous one is answered.
    static let idleLimit: Duration = .seconds(5)
}
