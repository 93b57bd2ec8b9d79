import Configuration

/// One setting's name in each place it can be given.
///
/// The configuration file uses ``name`` as a top-level key; the environment variable is
/// `PHOTOSYNC_` + the name in capitals, which is also what swift-configuration's
/// `EnvironmentVariablesProvider` derives for the key `photosync.<name>`.
struct SettingKey: Sendable, Hashable {
    /// The key in the configuration file, and in messages: `per_page`.
    let name: String
    /// The command-line flag: `--per-page`.
    let flag: String

    var environmentVariable: String { "PHOTOSYNC_" + name.uppercased() }
    var configKey: ConfigKey { ConfigKey([name]) }
    var absoluteKey: AbsoluteConfigKey { AbsoluteConfigKey([name]) }

    static let database = SettingKey(name: "database", flag: "--database")
    static let apiBase = SettingKey(name: "api_base", flag: "--api-base")
    static let perPage = SettingKey(name: "per_page", flag: "--per-page")
    static let variant = SettingKey(name: "variant", flag: "--variant")
    static let concurrency = SettingKey(name: "concurrency", flag: "--concurrency")
    static let pollInterval = SettingKey(name: "poll_interval", flag: "--poll-interval")
    static let allowedImageHosts = SettingKey(name: "allowed_image_hosts", flag: "--allowed-image-host")
    static let downloadTracking = SettingKey(name: "download_tracking", flag: "--download-tracking")
    static let rateLimitReserve = SettingKey(name: "rate_limit_reserve", flag: "--rate-limit-reserve")
    static let maxImageMiB = SettingKey(name: "max_image_mib", flag: "--max-image-mib")
    static let metricsListen = SettingKey(name: "metrics_listen", flag: "--metrics-listen")
    static let logLevel = SettingKey(name: "log_level", flag: "--log-level")

    static let all: [SettingKey] = [
        database, apiBase, perPage, variant, concurrency, pollInterval,
        allowedImageHosts, downloadTracking, rateLimitReserve, maxImageMiB, metricsListen, logLevel,
    ]
}
