import Foundation
import Logging
import UnsplashAPI

/// Everything `photosync` can be configured with, after resolution and validation.
///
/// Build one with ``SettingsResolver`` (or ``SettingsOptions/resolve(environment:defaultConfigurationPath:)``),
/// which layers flags over environment variables over the configuration file over the defaults.
/// A value held here has passed validation. Each field's flag, variable, file key, default,
/// limits and rule are declared once, in ``AllSettings``.
public struct Settings: Sendable, Equatable {
    /// Path of the SQLite database. Default: ``defaultDatabasePath(environment:)``.
    public var databasePath: String
    /// Base URL of the Unsplash API, absolute http(s).
    public var apiBase: URL
    /// What to mirror, each once, in the order given.
    public var sources: [PhotoSource]
    /// Photos requested per page of each source, within `UnsplashAPI.perPageRange`.
    public var perPage: Int
    /// The image sizes to download, each once; empty mirrors metadata only.
    public var variants: [ImageVariant]
    /// ``variants`` as the setting is written: `regular,thumb`, or `none`.
    public var variant: String {
        variants.isEmpty ? SettingRules.noVariant : variants.map(\.rawValue).joined(separator: ",")
    }
    /// Image downloads in flight at once, within ``concurrencyRange``.
    public var concurrency: Int
    /// Time between two polls of each source's head, at least ``minimumPollIntervalSeconds``.
    public var pollInterval: Duration
    /// Host names (optionally `host:port`, lowercased) images may be downloaded from. Never empty.
    public var allowedImageHosts: [String]
    /// Whether to call each photo's `download_location`, as Unsplash's guidelines require.
    public var downloadTracking: Bool
    /// API requests kept in reserve: the sync waits for the next rate-limit window rather than
    /// spend them. Within ``rateLimitReserveRange``.
    public var rateLimitReserve: Int
    /// The largest image accepted, in MiB (1 MiB = 1,048,576 bytes), within ``maxImageMiBRange``.
    /// A larger one is not downloaded, and is recorded as failed with its size.
    public var maxImageMiB: Int
    /// Where `run` serves Prometheus metrics (`/metrics`); nil serves none.
    var metricsListen: ListenAddress?
    /// The lowest level logged.
    public var logLevel: Logger.Level

    /// The given values, and the declared default of every value not given.
    public init(
        databasePath: String,
        apiBase: URL? = nil,
        sources: [PhotoSource]? = nil,
        perPage: Int? = nil,
        variants: [ImageVariant]? = nil,
        concurrency: Int? = nil,
        pollInterval: Duration? = nil,
        allowedImageHosts: [String]? = nil,
        downloadTracking: Bool? = nil,
        rateLimitReserve: Int? = nil,
        maxImageMiB: Int? = nil,
        metricsListen: String? = nil,
        logLevel: Logger.Level? = nil
    ) {
        self.databasePath = databasePath
        self.apiBase = apiBase ?? AllSettings.apiBase.standard
        self.sources = sources ?? AllSettings.sources.standard
        self.perPage = perPage ?? AllSettings.perPage.standard
        self.variants = variants ?? AllSettings.variants.standard
        self.concurrency = concurrency ?? AllSettings.concurrency.standard
        self.pollInterval = pollInterval ?? AllSettings.pollInterval.standard
        self.allowedImageHosts = allowedImageHosts ?? AllSettings.allowedImageHosts.standard
        self.downloadTracking = downloadTracking ?? AllSettings.downloadTracking.standard
        self.rateLimitReserve = rateLimitReserve ?? AllSettings.rateLimitReserve.standard
        self.maxImageMiB = maxImageMiB ?? AllSettings.maxImageMiB.standard
        self.metricsListen = metricsListen.flatMap(ListenAddress.init) ?? AllSettings.metricsListen.standard
        self.logLevel = logLevel ?? AllSettings.logLevel.standard
    }

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
