import CoreMetrics
import PhotoStore
import Synchronization

/// The role of a `run` on a shared (PostgreSQL) database, as metrics: whether it is the active
/// writer or the standby, the lease's epoch and holder, and how long ago it was renewed. Set
/// when metrics are scraped, from the lease this process holds or the holder the standby last
/// saw. A `run` on a database file has none of them.
///
/// - `photosync_writer_active`: 1 while this run holds the writer lease, 0 while it stands by;
/// - `photosync_writer_lease_epoch`: the lease's epoch, which grows with every new holder;
/// - `photosync_writer_lease_renewed_age_seconds`: since the holder last renewed it;
/// - `photosync_writer_lease_holder{host=...,pid=...}`: 1, for the holder.
final class WriterRoleMetrics: Sendable {
    static let descriptions: [String: String] = [
        "photosync_writer_active": "1 while this run holds the writer lease of its PostgreSQL database, 0 while it "
            + "stands by.",
        "photosync_writer_lease_epoch": "The writer lease's epoch: it grows by one with every new holder.",
        "photosync_writer_lease_renewed_age_seconds": "Seconds since the holder of the writer lease last renewed it.",
        "photosync_writer_lease_holder": "1 for the process (host, PID) that holds the writer lease.",
    ]

    private let factory: any MetricsFactory
    private let active: Gauge
    private let epoch: Gauge
    private let renewedAge: Gauge
    private let holder = Mutex<(host: String, pid: Int32, gauge: Gauge)?>(nil)

    init(factory: any MetricsFactory) {
        self.factory = factory
        active = Gauge(label: "photosync_writer_active", factory: factory)
        epoch = Gauge(label: "photosync_writer_lease_epoch", factory: factory)
        renewedAge = Gauge(label: "photosync_writer_lease_renewed_age_seconds", factory: factory)
    }

    /// The lease as this process sees it now: held by itself (`isActive`) or by `holder`.
    func record(isActive: Bool, holder: WriterLeaseHolder) {
        active.record(isActive ? 1 : 0)
        epoch.record(holder.epoch)
        renewedAge.record(Double(holder.renewedAgo.components.seconds))
        let previous = self.holder.withLock { current -> Gauge? in
            if let current, current.host == holder.host, current.pid == holder.pid { return nil }
            let gauge = Gauge(
                label: "photosync_writer_lease_holder",
                dimensions: [("host", holder.host), ("pid", String(holder.pid))], factory: factory)
            gauge.record(1)
            defer { current = (holder.host, holder.pid, gauge) }
            return current?.gauge
        }
        previous?.destroy()
    }
}
