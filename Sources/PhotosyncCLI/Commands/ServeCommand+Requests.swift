import CoreMetrics
import Foundation
import Gallery
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoSync
import Prometheus

extension ServeCommand {
    /// What `serve` takes beyond the mirror's settings: its database's primary, the lag
    /// `/healthz` allows a standby, and where metrics are served.
    struct ServingSettings {
        var primary: PostgresLocation?
        var maxReplicaLag: Int
        var metricsListen: ListenAddress?
    }

    func servingSettings(environment: [String: String]) throws(ConfigurationError) -> ServingSettings {
        let resolver = SettingsResolver(environment: environment)
        let (given, configPath) = (flags(of: self), database.configPath)
        return ServingSettings(
            primary: try resolver.resolve(\.primaryDatabase, flags: given, configPath: configPath),
            maxReplicaLag: try resolver.resolve(\.maxReplicaLag, flags: given, configPath: configPath),
            metricsListen: try resolver.resolve(\.metricsListen, flags: given, configPath: configPath))
    }

    /// Where `serve` records its clients' download requests (nil when `download_tracking` is off)
    /// and requests for photos' details (nil for `photo_details: none`, read as `run` reads it):
    /// the primary `primary_database` names, else the database itself.
    ///
    /// A database that takes no writes (a standby, a file `serve` may only read) gets writers
    /// that fail, which the mirror answers 503: such a request is never answered as if recorded.
    /// That is said once on stderr.
    /// - Throws: ``CommandFailure`` (78) for a `primary_database` beside a database file, and the
    ///   primary's `StoreError` when it is not the standby's primary or refuses the connection as
    ///   configured; a primary that cannot be reached now is tried again at the first request.
    func requestWriters(
        for store: PhotoStore, primary: PostgresLocation?, tracking: Bool, environment: [String: String]
    ) async throws -> (downloads: (any DownloadRequests)?, details: (any PhotoDetailsRequests)?) {
        let details =
            try SettingsResolver(environment: environment)
            .resolve(\.photoDetails, flags: [:], configPath: database.configPath) != .none
        guard tracking || details else { return (nil, nil) }
        if let primary {
            guard let identity = try await PostgresPrimary.identity(of: store) else {
                throw CommandFailure(
                    code: .config,
                    message: "primary_database is for serve on a PostgreSQL standby; the database is a file")
            }
            let writer = PostgresPrimary(
                primary, password: PostgresPassword.find(for: primary, environment: environment), expected: identity,
                logger: Logger(label: "photosync.primary"))
            if let away = try await writer.check() {
                Self.say(
                    "primary_database cannot be reached now (\(away)): download and photo details requests answer "
                        + "503 until it can")
            }
            return (tracking ? writer.downloadRequests : nil, details ? writer.photoDetailsRequests : nil)
        }
        if let standby = try await store.storage.standby() {
            Self.say(
                "the database is \(standby), which takes no writes: download and photo details requests answer "
                    + "503 until primary_database names its primary")
            let refusal = StoreError.readOnlyStandby(path: store.path, operation: "recording a client's request")
            return (tracking ? Unrecorded(refusal) : nil, details ? Unrecorded(refusal) : nil)
        }
        var downloads: (any DownloadRequests)?
        var requests: (any PhotoDetailsRequests)?
        if tracking {
            do {
                downloads = try store.storage.openDownloadRequests()
            } catch {
                Self.say("download requests will not be recorded (they answer 503): \(error.localizedDescription)")
                downloads = Unrecorded(error)
            }
        }
        if details {
            do {
                requests = try store.storage.openPhotoDetailsRequests()
            } catch {
                Self.say(
                    "photo details requests will not be recorded (they answer 503): \(error.localizedDescription)")
                requests = Unrecorded(error)
            }
        }
        return (downloads, requests)
    }

    private static func say(_ line: String) {
        FileHandle.standardError.write(Data("photosync: \(line)\n".utf8))
    }
}

/// Request writers for a database `serve` cannot write: every record fails with the reason.
private struct Unrecorded: DownloadRequests, PhotoDetailsRequests {
    let reason: StoreError

    init(_ reason: StoreError) { self.reason = reason }

    func record(photoID: String, at date: Date) async throws(StoreError) -> Bool { throw reason }
    func requested() async throws(StoreError) -> [String: Date] { throw reason }
    func close() throws(StoreError) {}
}

/// `serve`'s metrics: whether its database is a standby and how far behind its primary, read at
/// each scrape.
///
/// - `photosync_database_standby`: 1 when the database `serve` reads is a read-only standby;
/// - `photosync_database_standby_lag_seconds`: how far behind its primary (+Inf before it
///   replayed anything);
/// - `photosync_database_standby_receiving`: 1 while it receives its primary's changes.
struct ServeMetrics: Sendable {
    static let descriptions: [String: String] = [
        "photosync_database_standby": "1 when the database serve reads is a read-only standby (a replica).",
        "photosync_database_standby_lag_seconds": "How far behind its primary the standby is, in seconds.",
        "photosync_database_standby_receiving": "1 while the standby receives its primary's changes.",
    ]

    let store: PhotoStore
    let registry = PrometheusCollectorRegistry()

    func server(address: ListenAddress) -> MetricsServer {
        let factory = DescribedMetricsFactory(registry: registry, descriptions: Self.descriptions)
        let standby = Gauge(label: "photosync_database_standby", factory: factory)
        let lag = Gauge(label: "photosync_database_standby_lag_seconds", factory: factory)
        let receiving = Gauge(label: "photosync_database_standby_receiving", factory: factory)
        var logger = Logger(label: "photosync.metrics")
        logger.logLevel = .notice
        return MetricsServer(address: address, registry: registry, logger: logger) { [store] in
            // A scrape the database cannot answer keeps the last values.
            let state: StandbyState?
            do {
                state = try await store.storage.standby()
            } catch {
                return
            }
            standby.record(state == nil ? 0 : 1)
            if let state {
                lag.record(state.lagSeconds ?? .infinity)
                receiving.record(state.receiving ? 1 : 0)
            }
        }
    }
}
