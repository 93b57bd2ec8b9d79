import Foundation
import Logging
import PhotoSync
import UnsplashAPI

/// Every setting of `photosync`, each declared once (see ``Setting``).
///
/// Adding a setting: declare it here and list it in ``declarations``, give ``Settings`` a field
/// for its value and ``SettingsOptions`` a flag built from the declaration; the tests then
/// check its precedence, its errors, the README's row and the example file's entry. Limits
/// that are the API's (page size, image sizes, base URL, image host) come from `UnsplashAPI`,
/// and the engine's defaults from ``SyncConfiguration/standard``.
enum AllSettings {
    static let database = Setting<String>.string(
        SettingKey("database", flag: "--database"), \.databasePath,
        summary: "SQLite database file.", valueName: "path",
        default: { Settings.defaultDatabasePath(environment: $0) },
        defaultText: "$STATE_DIRECTORY/photosync.sqlite, or ./photosync.sqlite",
        completion: .file(),
        flag: { $0.databasePath },
        rule: SettingRules.databasePath)

    static let apiBase = Setting<URL>.string(
        SettingKey("api_base", flag: "--api-base"), \.apiBase,
        summary: "Unsplash API base URL.", valueName: "url",
        default: { _ in UnsplashAPI.defaultBaseURL.absoluteString },
        defaultText: UnsplashAPI.defaultBaseURL.absoluteString,
        flag: { $0.apiBase },
        rule: SettingRules.apiBase)

    static let sources = Setting<[PhotoSource]>.stringList(
        SettingKey("sources", flag: "--source"), \.sources,
        summary: "What to mirror: \(PhotoSource.validForms); repeat for several.", valueName: "source",
        what: "a list of sources",
        default: [PhotoSource.feed.description], defaultText: PhotoSource.feed.description,
        flag: { $0.sources },
        rule: SettingRules.sources)

    static let perPage = Setting<Int>.int(
        SettingKey("per_page", flag: "--per-page"), \.perPage,
        summary: "Photos per page of each source, \(UnsplashAPI.perPageRange.lowerBound)-\(UnsplashAPI.perPageRange.upperBound).",
        valueName: "n",
        default: SyncConfiguration.standard.perPage,
        flag: { $0.perPage },
        rule: { value throws(SettingProblem) in try SettingRules.number(value, in: UnsplashAPI.perPageRange) })

    static let variants = Setting<[ImageVariant]>.names(
        SettingKey("variant", flag: "--variant"), \.variants,
        summary: "Image sizes to download: \(SettingRules.sentence(ImageVariant.allCases.map(\.rawValue), or: "or")), "
            + "several as a list, or none for metadata only.",
        valueName: "size",
        default: SyncConfiguration.standard.variants.map(\.rawValue),
        defaultText: SyncConfiguration.standard.variants.map(\.rawValue).joined(separator: ","),
        completion: .list(ImageVariant.allCases.map(\.rawValue) + [SettingRules.noVariant]),
        flag: { $0.variants },
        rule: SettingRules.variants)

    static let concurrency = Setting<Int>.int(
        SettingKey("concurrency", flag: "--concurrency"), \.concurrency,
        summary: "Image downloads at once, \(Settings.concurrencyRange.lowerBound)-\(Settings.concurrencyRange.upperBound).",
        valueName: "n",
        default: SyncConfiguration.standard.concurrency,
        flag: { $0.concurrency },
        rule: { value throws(SettingProblem) in try SettingRules.number(value, in: Settings.concurrencyRange) })

    static let pollInterval = Setting<Duration>.int(
        SettingKey("poll_interval", flag: "--poll-interval"), \.pollInterval,
        summary: "Seconds between polls of each source's head, at least \(Settings.minimumPollIntervalSeconds).",
        valueName: "seconds",
        default: Int(SyncConfiguration.standard.pollInterval.components.seconds),
        flag: { $0.pollInterval },
        rule: SettingRules.pollInterval(seconds:))

    static let allowedImageHosts = Setting<[String]>.stringList(
        SettingKey("allowed_image_hosts", flag: "--allowed-image-host"), \.allowedImageHosts,
        summary: "Host images may be downloaded from; repeat for several.", valueName: "host",
        what: "a list of host names",
        default: SyncConfiguration.standard.allowedImageHosts.sorted(),
        defaultText: SyncConfiguration.standard.allowedImageHosts.sorted().joined(separator: ", "),
        flag: { $0.allowedImageHosts },
        rule: SettingRules.imageHosts)

    static let downloadTracking = Setting<Bool>.bool(
        SettingKey("download_tracking", flag: "--download-tracking"), \.downloadTracking,
        summary: "Report each download to Unsplash's download_location, as its API guidelines require.",
        default: SyncConfiguration.standard.downloadTracking,
        defaultText: SyncConfiguration.standard.downloadTracking ? "on" : "off",
        flag: { $0.downloadTracking })

    static let rateLimitReserve = Setting<Int>.int(
        SettingKey("rate_limit_reserve", flag: "--rate-limit-reserve"), \.rateLimitReserve,
        summary: "API requests to keep in reserve (the sync waits rather than spend them), "
            + "\(Settings.rateLimitReserveRange.lowerBound)-\(Settings.rateLimitReserveRange.upperBound).",
        valueName: "n",
        default: SyncConfiguration.standard.rateLimitReserve,
        flag: { $0.rateLimitReserve },
        rule: { value throws(SettingProblem) in try SettingRules.number(value, in: Settings.rateLimitReserveRange) })

    static let maxImageMiB = Setting<Int>.int(
        SettingKey("max_image_mib", flag: "--max-image-mib"), \.maxImageMiB,
        summary: "The largest image to accept, in MiB, "
            + "\(Settings.maxImageMiBRange.lowerBound)-\(Settings.maxImageMiBRange.upperBound); a larger one is recorded as failed.",
        valueName: "n",
        default: 256,
        flag: { $0.maxImageMiB },
        rule: { value throws(SettingProblem) in try SettingRules.number(value, in: Settings.maxImageMiBRange) })

    static let metricsListen = Setting<ListenAddress?>.string(
        SettingKey("metrics_listen", flag: "--metrics-listen"), \.metricsListen,
        summary: "Serve Prometheus metrics at http://HOST:PORT/metrics while running (no authentication: keep it on loopback).",
        valueName: "host:port",
        // Empty: off.
        default: { _ in "" }, defaultText: "off",
        flag: { $0.metricsListen },
        rule: SettingRules.listenAddress)

    static let logLevel = Setting<Logger.Level>.string(
        SettingKey("log_level", flag: "--log-level"), \.logLevel,
        summary: "Lowest level logged: \(SettingRules.sentence(Logger.Level.allCases.map(\.rawValue), or: "or")).",
        valueName: "level",
        default: { _ in Logger.Level.info.rawValue }, defaultText: Logger.Level.info.rawValue,
        completion: .list(Logger.Level.allCases.map(\.rawValue)),
        flag: { $0.logLevel },
        rule: SettingRules.logLevel)

    /// In the order of `--help`, the README and the example file.
    static let declarations: [any SettingDeclaration] = [
        database, apiBase, sources, perPage, variants, concurrency, pollInterval,
        allowedImageHosts, downloadTracking, rateLimitReserve, maxImageMiB, metricsListen, logLevel,
    ]
}
