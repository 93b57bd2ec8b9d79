import Foundation
import Gallery
import Logging
import Networking
import PhotoStorePostgres
import PhotoSync
import UnsplashAPI

/// The engine's defaults, which the settings default to.
private let engine = SyncConfiguration.standard

/// `$STATE_DIRECTORY/photosync.sqlite` under systemd's `StateDirectory=` (the first path when it
/// lists several, separated by colons); otherwise `photosync.sqlite` in the working directory.
private func defaultDatabasePath(environment: [String: String]) -> String {
    guard let first = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !first.isEmpty else {
        return "photosync.sqlite"
    }
    return first.hasSuffix("/") ? first + "photosync.sqlite" : first + "/photosync.sqlite"
}

/// Every setting of `photosync`, each declared once.
///
/// Adding a setting is one declaration here (its place among the properties is its place in
/// `--help`, the README and the example file), a one-line flag in ``SettingsOptions`` named as
/// the property, and its tests.
/// ``Settings`` then has a field of the same name. Limits that are the API's (page size, image
/// sizes, base URL, image host) come from `UnsplashAPI`, and the engine's defaults from
/// ``SyncConfiguration/standard``.
struct AllSettings: Sendable {
    static let declared = AllSettings()
    /// Every declaration with the name of its property (`perPage`), in the order of the properties.
    static let properties: [(property: String, declaration: SettingDeclaration)] =
        Mirror(reflecting: declared).children.compactMap { child in
            (child.value as? SettingDeclaration).map { (child.label ?? "", $0) }
        }
    static let list = properties.map(\.declaration)

    /// `32KiB/s over 30s`, as ``SettingRules/imageMinimumRate(_:)`` reads it.
    private static func rateText(_ rate: MinimumRate) -> String {
        let bytes = rate.bytesPerSecond
        let amount = bytes % 1024 == 0 ? "\(bytes / 1024)KiB" : "\(bytes)B"
        return "\(amount)/s over \(rate.window.components.seconds)s"
    }

    let database = Setting(
        "database", flag: "--database", .text,
        summary: "SQLite database file, or a PostgreSQL database as postgres://USER@HOST[:PORT]/DB.",
        valueName: "path|url", default: defaultDatabasePath(environment:),
        defaultText: "$STATE_DIRECTORY/photosync.sqlite, or ./photosync.sqlite", completion: .file(),
        reload: .restartNeeded, rule: DatabaseLocation.init(parsing:environment:))

    let writerLease = Setting(
        "writer_lease", flag: "--writer-lease", .integer,
        summary: "On PostgreSQL, seconds the writer lease holds unrenewed, \(SettingRules.span(3...300)): "
            + "a standby run takes over about this long after the active one dies.",
        valueName: "seconds", default: { _ in Int(PostgresWriterLease.Timing.standard.duration.components.seconds) },
        reload: .restartNeeded, rule: SettingRules.number(in: 3...300))

    let apiBase = Setting(
        "api_base", flag: "--api-base", .text, summary: "Unsplash API base URL.", valueName: "url",
        default: { _ in UnsplashAPI.defaultBaseURL.absoluteString }, reload: .restartNeeded,
        rule: SettingRules.apiBase)

    let sources = Setting(
        "sources", flag: "--source", .list(of: "a list of sources"),
        summary: "What to mirror: \(PhotoSource.validForms); repeat for several.", valueName: "source",
        default: { _ in engine.sources.map(\.description) }, rule: SettingRules.sources)

    let perPage = Setting(
        "per_page", flag: "--per-page", .integer,
        summary: "Photos per page of each source, \(SettingRules.span(UnsplashAPI.perPageRange)).", valueName: "n",
        default: { _ in engine.perPage }, rule: SettingRules.number(in: UnsplashAPI.perPageRange))

    let variants = Setting(
        "variant", flag: "--variant", .names,
        summary: "Image sizes to download: \(SettingRules.sentence(ImageVariant.allCases.map(\.rawValue))), "
            + "several as a list, or none for metadata only.",
        valueName: "size", default: { _ in engine.variants.map(\.rawValue) },
        completion: .list(ImageVariant.allCases.map(\.rawValue) + [SettingRules.noVariant]),
        rule: SettingRules.variants)

    let concurrency = Setting(
        "concurrency", flag: "--concurrency", .integer,
        summary: "Image downloads at once, \(SettingRules.span(1...16)).", valueName: "n",
        default: { _ in engine.concurrency }, rule: SettingRules.number(in: 1...16))

    let pollInterval = Setting(
        "poll_interval", flag: "--poll-interval", .integer,
        summary: "Seconds between polls of each source's head, 10-86400 (a day).", valueName: "seconds",
        default: { _ in Int(engine.pollInterval.components.seconds) }, rule: SettingRules.pollInterval)

    let allowedImageHosts = Setting(
        "allowed_image_hosts", flag: "--allowed-image-host", .list(of: "a list of host names"),
        summary: "Host images may be downloaded from; repeat for several.", valueName: "host",
        default: { _ in engine.allowedImageHosts.sorted() }, reload: .restartNeeded, rule: SettingRules.imageHosts)

    let imageMinRate = Setting(
        "image_min_rate", flag: "--image-min-rate", .text,
        summary: "The slowest an image may arrive once its headers are in, as RATE/s over SECONDS; "
            + "a slower host is cut off and the image tried again later.",
        valueName: "rate", default: { _ in Self.rateText(engine.imageMinimumRate) },
        rule: SettingRules.imageMinimumRate)

    let downloadTracking = Setting(
        "download_tracking", flag: "--download-tracking", .boolean,
        summary: "Report each download to Unsplash's download_location, as its API guidelines require.",
        default: { _ in engine.downloadTracking }, rule: { $0 })

    let photoDetails = Setting(
        "photo_details", flag: "--photo-details", .text,
        summary: "Which photos' full objects (GET /photos/:id: exif, location, tags) to fetch: "
            + "none, on-demand (those serve's clients ask for) or all (one request per photo).",
        valueName: "which", default: { _ in engine.photoDetails.rawValue },
        completion: .list(PhotoDetailsMode.allCases.map(\.rawValue)),
        rule: { text throws(SettingProblem) in
            guard let mode = PhotoDetailsMode(rawValue: text) else {
                throw SettingProblem("must be none, on-demand or all (got \(SettingRules.quoted(text)))")
            }
            return mode
        })

    let rateLimitReserve = Setting(
        "rate_limit_reserve", flag: "--rate-limit-reserve", .integer,
        summary: "API requests to keep in reserve (the sync waits rather than spend them), "
            + "\(SettingRules.span(0...1000)).",
        valueName: "n", default: { _ in engine.rateLimitReserve }, reload: .restartNeeded,
        rule: SettingRules.number(in: 0...1000))

    // SQLite keeps a value in at most 2 GiB - 1 bytes.
    let maxImageMiB = Setting(
        "max_image_mib", flag: "--max-image-mib", .integer,
        summary: "The largest image to accept, in MiB, \(SettingRules.span(1...2047)); "
            + "a larger one is recorded as failed.",
        valueName: "n", default: { _ in 256 }, reload: .restartNeeded, rule: SettingRules.number(in: 1...2047))

    let metricsListen = Setting(
        "metrics_listen", flag: "--metrics-listen", .text,
        summary: "Serve Prometheus metrics at http://HOST:PORT/metrics while running "
            + "(no authentication: keep it on loopback).",
        valueName: "host:port", default: { _ in "" }, defaultText: "off", reload: .restartNeeded,
        rule: SettingRules.listenAddress)

    let logLevel = Setting(
        "log_level", flag: "--log-level", .text,
        summary: "Lowest level logged: \(SettingRules.sentence(Logger.Level.allCases.map(\.rawValue))).",
        valueName: "level", default: { _ in Logger.Level.info.rawValue },
        completion: .list(Logger.Level.allCases.map(\.rawValue)), reload: .restartNeeded, rule: SettingRules.logLevel)

    let storageLimit = Setting(
        "storage_limit", flag: "--storage-limit", .text,
        summary: "The most image bytes to keep, such as 50GB, 500MiB or plain bytes; beyond it the images "
            + "fetched longest ago are pruned (their metadata stays).",
        valueName: "size", default: { _ in "" }, defaultText: "none", rule: SettingRules.storageLimit)

    let minFreeDisk = Setting(
        "min_free_disk", flag: "--min-free-disk", .text,
        summary: "Free space to keep on the database's disk, such as 2GiB; below it image downloads pause, "
            + "below half of it pages too (0: never).",
        valueName: "size", default: { _ in "" }, defaultText: "1 GiB, or 5% of the disk when smaller",
        rule: SettingRules.minFreeDisk)

    let mirrorClientKeys = Setting(
        "mirror_client_keys", flag: "--mirror-client-key", .list(of: "a list of client keys"),
        summary: "Client keys serve's Unsplash API accepts (Client-ID); required when --listen is not loopback.",
        valueName: "key", default: { _ in [] }, defaultText: "any key, on loopback only",
        rule: SettingRules.clientKeys)

    let mirrorRateLimit = Setting(
        "mirror_rate_limit", flag: "--mirror-rate-limit", .integer,
        summary: "Requests per hour each client key may make to serve's Unsplash API, "
            + "\(SettingRules.span(1...1_000_000)).",
        valueName: "n", default: { _ in 5_000 }, rule: SettingRules.number(in: 1...1_000_000))

    let mirrorImageURLs = Setting(
        "mirror_image_urls", flag: "--mirror-image-urls", .text,
        summary: "Where the urls of serve's Unsplash API point: unsplash (as Unsplash asks) "
            + "or local (the mirror's stored images).",
        valueName: "where", default: { _ in "unsplash" }, completion: .list(["unsplash", "local"]),
        rule: SettingRules.mirrorImageURLs)

    let primaryDatabase = Setting(
        "primary_database", flag: "--primary-database", .text,
        summary: "For serve on a PostgreSQL standby (a replica): its primary, as postgres://USER@HOST[:PORT]/DB, "
            + "where serve records its clients' download and details requests.",
        valueName: "url", default: { _ in "" }, defaultText: "none: such requests answer 503 on a standby",
        rule: SettingRules.primaryDatabase)

    let maxReplicaLag = Setting(
        "max_replica_lag", flag: "--max-replica-lag", .integer,
        summary: "Seconds a standby serve reads may lag its primary before /healthz answers 503, "
            + "\(SettingRules.span(1...86_400)).",
        valueName: "seconds", default: { _ in Int(Gallery.defaultMaxStandbyLag.components.seconds) },
        rule: SettingRules.number(in: 1...86_400))
}
