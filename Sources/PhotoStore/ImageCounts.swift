/// How many images of some variants are in each state.
public struct ImageCounts: Sendable, Equatable {
    public var stored: Int64
    public var pending: Int64
    public var failed: Int64

    public init(stored: Int64, pending: Int64, failed: Int64) {
        self.stored = stored
        self.pending = pending
        self.failed = failed
    }
}
