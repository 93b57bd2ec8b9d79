import Foundation
import Synchronization

/// The photos whose request (a download, or a full object asked for) the database has recorded,
/// so that the same request again writes nothing.
///
/// Recording is a write: every `GET /photos/:id` of a photo without its full object made one,
/// and every download request, all of them through one connection, and under a syncing daemon
/// each waited for the database's writer; a popular photo is asked for again and again. The
/// database keeps a photo's first request and ignores the others, so remembering it changes no
/// record. Forgotten all at once after ``memory`` or past ``capacity`` photos, so that a request
/// the database lost since (a restored backup) is recorded again.
final class RecordedRequests: Sendable {
    /// At most this many photos are remembered.
    static let capacity = 100_000
    /// How long the photos are remembered.
    static let memory: TimeInterval = 600

    private struct State {
        var photoIDs: Set<String> = []
        var since: Date
    }

    private let now: @Sendable () -> Date
    private let state: Mutex<State>

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
        state = Mutex(State(since: now()))
    }

    /// Whether photo `id`'s request is known to be recorded.
    func contains(_ id: String) -> Bool {
        let now = now()
        return state.withLock { state in
            if now.timeIntervalSince(state.since) >= Self.memory || now < state.since { state = State(since: now) }
            return state.photoIDs.contains(id)
        }
    }

    /// Photo `id`'s request is recorded.
    func insert(_ id: String) {
        let now = now()
        state.withLock { state in
            if state.photoIDs.count >= Self.capacity { state = State(since: now) }
            state.photoIDs.insert(id)
        }
    }
}
