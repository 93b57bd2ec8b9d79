import ArgumentParser
import Configuration

/// The command-line flags for every setting, for `@OptionGroup` in `run`, `query` and `status`.
///
/// Every flag is optional, so an unset flag lets the environment variable, the configuration
/// file or the default through (see ``SettingsResolver``). `validate()` checks the flags given,
/// so a bad flag value is a usage error (exit 64) reported by argument-parser.
public struct SettingsOptions: ParsableArguments, Sendable {
    /// Shared with `query` and `status`, which read the database `run` writes.
    static let configHelp = ArgumentHelp(
        "YAML configuration file. Env: PHOTOSYNC_CONFIG. Default: /etc/photosync/photosync.yaml if it exists.",
        valueName: "path")
    static let databaseHelp = ArgumentHelp(
        "SQLite database file. Env: PHOTOSYNC_DATABASE. Default: $STATE_DIRECTORY/photosync.sqlite, or ./photosync.sqlite.",
        valueName: "path")

    @Option(
        name: .customLong("config"),
        help: SettingsOptions.configHelp,
        completion: .file(extensions: ["yaml", "yml"])
    )
    public var configPath: String?

    @Option(
        name: .customLong("database"),
        help: SettingsOptions.databaseHelp,
        completion: .file()
    )
    public var databasePath: String?

    @Option(
        name: .customLong("api-base"),
        help: ArgumentHelp("Unsplash API base URL. Env: PHOTOSYNC_API_BASE. Default: https://api.unsplash.com.", valueName: "url")
    )
    public var apiBase: String?

    @Option(
        name: .customLong("per-page"),
        help: ArgumentHelp("Photos per page of the feed, 1-30. Env: PHOTOSYNC_PER_PAGE. Default: 30.", valueName: "n")
    )
    public var perPage: Int?

    @Option(
        name: .customLong("variant"),
        help: ArgumentHelp(
            "Image size to download: raw, full, regular, small or thumb. Env: PHOTOSYNC_VARIANT. Default: regular.",
            valueName: "size"
        ),
        completion: .list(Settings.variants)
    )
    public var variant: String?

    @Option(
        name: .customLong("concurrency"),
        help: ArgumentHelp("Image downloads at once, 1-16. Env: PHOTOSYNC_CONCURRENCY. Default: 4.", valueName: "n")
    )
    public var concurrency: Int?

    @Option(
        name: .customLong("poll-interval"),
        help: ArgumentHelp("Seconds between polls of the feed, at least 10. Env: PHOTOSYNC_POLL_INTERVAL. Default: 300.", valueName: "seconds")
    )
    public var pollInterval: Int?

    @Option(
        name: .customLong("allowed-image-host"),
        help: ArgumentHelp(
            "Host images may be downloaded from; repeat for several. Env: PHOTOSYNC_ALLOWED_IMAGE_HOSTS (comma-separated). Default: images.unsplash.com.",
            valueName: "host"
        )
    )
    public var allowedImageHosts: [String] = []

    @Flag(
        name: .customLong("download-tracking"),
        inversion: .prefixedNo,
        help: "Report each download to Unsplash's download_location, as its API guidelines require. Env: PHOTOSYNC_DOWNLOAD_TRACKING (true/false). Default: on."
    )
    public var downloadTracking: Bool?

    @Option(
        name: .customLong("rate-limit-reserve"),
        help: ArgumentHelp(
            "API requests to keep in reserve (the sync waits rather than spend them), 0-1000. Env: PHOTOSYNC_RATE_LIMIT_RESERVE. Default: 10.",
            valueName: "n"
        )
    )
    public var rateLimitReserve: Int?

    @Option(
        name: .customLong("max-image-mib"),
        help: ArgumentHelp(
            "The largest image to accept, in MiB, 1-2047; a larger one is recorded as failed. Env: PHOTOSYNC_MAX_IMAGE_MIB. Default: 256.",
            valueName: "n"
        )
    )
    public var maxImageMiB: Int?

    @Option(
        name: .customLong("metrics-listen"),
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics while running (no authentication: keep it on loopback). Env: PHOTOSYNC_METRICS_LISTEN. Default: off.",
            valueName: "host:port"
        )
    )
    public var metricsListen: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Lowest level logged: trace, debug, info, notice, warning, error or critical. Env: PHOTOSYNC_LOG_LEVEL. Default: info.",
            valueName: "level"
        ),
        completion: .list(["trace", "debug", "info", "notice", "warning", "error", "critical"])
    )
    public var logLevel: String?

    public init() {}

    /// Rejects flag values that could never be valid (`--per-page 50`), before anything else runs.
    public mutating func validate() throws {
        let flagsOnly = SettingsResolver(environment: [:], defaultConfigurationPath: "")
        var options = self
        options.configPath = nil
        do {
            _ = try flagsOnly.resolve(options)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The settings these flags, `environment` and the configuration file give.
    ///
    /// - Parameters:
    ///   - environment: usually `ProcessInfo.processInfo.environment`.
    ///   - defaultConfigurationPath: the file read when neither `--config` nor
    ///     `PHOTOSYNC_CONFIG` names one, if it exists.
    /// - Throws: ``ConfigurationError``; see ``SettingsResolver/resolve(_:)``.
    public func resolve(
        environment: [String: String],
        defaultConfigurationPath: String = SettingsResolver.systemConfigurationPath
    ) throws(ConfigurationError) -> Settings {
        try SettingsResolver(environment: environment, defaultConfigurationPath: defaultConfigurationPath).resolve(self)
    }

    /// The flags that were given, keyed like the configuration file.
    var configValues: [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: SettingKey, _ content: ConfigContent?) {
            if let content { values[key.absoluteKey] = ConfigValue(content, isSecret: false) }
        }
        set(.database, databasePath.map { .string($0) })
        set(.apiBase, apiBase.map { .string($0) })
        set(.perPage, perPage.map { .int($0) })
        set(.variant, variant.map { .string($0) })
        set(.concurrency, concurrency.map { .int($0) })
        set(.pollInterval, pollInterval.map { .int($0) })
        set(.allowedImageHosts, allowedImageHosts.isEmpty ? nil : .stringArray(allowedImageHosts))
        set(.downloadTracking, downloadTracking.map { .bool($0) })
        set(.rateLimitReserve, rateLimitReserve.map { .int($0) })
        set(.maxImageMiB, maxImageMiB.map { .int($0) })
        set(.metricsListen, metricsListen.map { .string($0) })
        set(.logLevel, logLevel.map { .string($0) })
        return values
    }
}
