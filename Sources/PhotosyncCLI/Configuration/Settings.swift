import Foundation
import Logging

/// Everything `photosync` can be configured with, after resolution and validation.
///
/// Build one with ``SettingsResolver`` (or ``SettingsOptions/resolve(environment:defaultConfigurationPath:)``),
/// which layers flags over environment variables over the configuration file over the defaults
/// below. A value held here has passed validation.
public struct Settings: Sendable, Equatable {
    /// Path of the SQLite database. Default: ``defaultDatabasePath(environment:)``.
    public var databasePath: String
    /// Base URL of the Unsplash API, absolute http(s). Default `https://api.unsplash.com`.
    public var apiBase: URL
    /// Photos requested per page of the feed, 1...30. Default 30 (Unsplash's maximum).
    public var perPage: Int
    /// Which image size to download: one of ``variants``. Default `regular`.
    public var variant: String
    /// Image downloads in flight at once, 1...16. Default 4.
    public var concurrency: Int
    /// Time between two polls of the feed, at least 10 s. Default 300 s.
    public var pollInterval: Duration
    /// Host names (optionally `host:port`, lowercased) images may be downloaded from.
    /// Never empty. Default `["images.unsplash.com"]`.
    public var allowedImageHosts: [String]
    /// Whether to call each photo's `download_location`, as Unsplash's guidelines require. Default true.
    public var downloadTracking: Bool
    /// API requests kept in reserve: the sync waits for the next rate-limit window rather than
    /// spend them. 0...1000, default 10.
    public var rateLimitReserve: Int
    /// The largest image accepted, in MiB (1 MiB = 1,048,576 bytes), 1...2047. Default 256. A
    /// larger one is not downloaded, and is recorded as failed with its size.
    public var maxImageMiB: Int
    /// Where `run` serves Prometheus metrics (`/metrics`); nil, the default, serves none.
    var metricsListen: ListenAddress?
    /// The lowest level logged. Default `info`.
    public var logLevel: Logger.Level

    public init(
        databasePath: String,
        apiBase: URL = Settings.defaultAPIBase,
        perPage: Int = 30,
        variant: String = "regular",
        concurrency: Int = 4,
        pollInterval: Duration = .seconds(300),
        allowedImageHosts: [String] = ["images.unsplash.com"],
        downloadTracking: Bool = true,
        rateLimitReserve: Int = 10,
        maxImageMiB: Int = 256,
        metricsListen: String? = nil,
        logLevel: Logger.Level = .info
    ) {
        self.databasePath = databasePath
        self.apiBase = apiBase
        self.perPage = perPage
        self.variant = variant
        self.concurrency = concurrency
        self.pollInterval = pollInterval
        self.allowedImageHosts = allowedImageHosts
        self.downloadTracking = downloadTracking
        self.rateLimitReserve = rateLimitReserve
        self.maxImageMiB = maxImageMiB
        self.metricsListen = metricsListen.flatMap(ListenAddress.init)
        self.logLevel = logLevel
    }

    public static let defaultAPIBase = URL(string: "https://api.unsplash.com")!

    /// The image sizes Unsplash offers, smallest last.
    public static let variants = ["raw", "full", "regular", "small", "thumb"]

    public static let perPageRange = 1...30
    public static let concurrencyRange = 1...16
    public static let rateLimitReserveRange = 0...1000
    /// SQLite keeps a value in at most 2 GiB - 1 bytes.
    public static let maxImageMiBRange = 1...2047
    /// The shortest poll interval, in seconds: anything faster only burns the rate limit.
    public static let minimumPollIntervalSeconds = 10

    /// The file name used when no database path is configured.
    public static let defaultDatabaseFileName = "photosync.sqlite"

    /// `$STATE_DIRECTORY/photosync.sqlite` under systemd's `StateDirectory=` (the first path when
    /// it lists several, separated by colons); otherwise `photosync.sqlite`, relative to the
    /// working directory.
    public static func defaultDatabasePath(environment: [String: String]) -> String {
        guard let first = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !first.isEmpty else {
            return defaultDatabaseFileName
        }
        return first.hasSuffix("/") ? first + defaultDatabaseFileName : first + "/" + defaultDatabaseFileName
    }
}
