import ArgumentParser
import Foundation
import Logging
import Testing

@testable import PhotosyncCLI

/// Parses `arguments` as the command line would and resolves them against `environment`; the
/// default configuration file is somewhere that does not exist unless one is given.
func resolveSettings(
    _ arguments: [String],
    environment: [String: String] = [:],
    defaultConfigurationPath: String = "/nonexistent/photosync-tests/photosync.yaml"
) throws -> Settings {
    try SettingsOptions.parse(arguments).resolve(
        environment: environment, defaultConfigurationPath: defaultConfigurationPath)
}

extension Settings {
    /// The image sizes as the setting is written: `regular,thumb`, or `none`.
    var variant: String { self.variants.isEmpty ? "none" : self.variants.map(\.rawValue).joined(separator: ",") }
}

/// One setting, given a different value in each layer.
struct LayeredSetting: Sendable, CustomTestStringConvertible {
    let key: String
    let flag: [String], flagResult: String
    let environment: [String: String], environmentResult: String
    let yaml: String, fileResult: String
    let defaultResult: String
    let read: @Sendable (Settings) -> String

    var testDescription: String { key }

    static let all: [LayeredSetting] = [
        .init(
            key: "database",
            flag: ["--database", "/flag/db.sqlite"], flagResult: "/flag/db.sqlite",
            environment: ["PHOTOSYNC_DATABASE": "/env/db.sqlite"], environmentResult: "/env/db.sqlite",
            yaml: "database: /file/db.sqlite", fileResult: "/file/db.sqlite",
            defaultResult: "photosync.sqlite", read: { $0.database.description }),
        .init(
            key: "api_base",
            flag: ["--api-base", "https://flag.test"], flagResult: "https://flag.test",
            environment: ["PHOTOSYNC_API_BASE": "http://127.0.0.1:8080"], environmentResult: "http://127.0.0.1:8080",
            yaml: "api_base: https://file.test/unsplash", fileResult: "https://file.test/unsplash",
            defaultResult: "https://api.unsplash.com", read: { $0.apiBase.absoluteString }),
        .init(
            key: "per_page",
            flag: ["--per-page", "5"], flagResult: "5",
            environment: ["PHOTOSYNC_PER_PAGE": "6"], environmentResult: "6",
            yaml: "per_page: 7", fileResult: "7",
            defaultResult: "30", read: { "\($0.perPage)" }),
        .init(
            key: "variant",
            flag: ["--variant", "raw"], flagResult: "raw",
            environment: ["PHOTOSYNC_VARIANT": "full"], environmentResult: "full",
            yaml: "variant: small", fileResult: "small",
            defaultResult: "regular", read: { $0.variant }),
        .init(
            key: "concurrency",
            flag: ["--concurrency", "2"], flagResult: "2",
            environment: ["PHOTOSYNC_CONCURRENCY": "3"], environmentResult: "3",
            yaml: "concurrency: 16", fileResult: "16",
            defaultResult: "4", read: { "\($0.concurrency)" }),
        .init(
            key: "poll_interval",
            flag: ["--poll-interval", "11"], flagResult: "11 seconds",
            environment: ["PHOTOSYNC_POLL_INTERVAL": "12"], environmentResult: "12 seconds",
            yaml: "poll_interval: 3600", fileResult: "3600 seconds",
            defaultResult: "300 seconds", read: { "\($0.pollInterval.components.seconds) seconds" }),
        .init(
            key: "allowed_image_hosts",
            flag: ["--allowed-image-host", "a.flag.test", "--allowed-image-host", "b.flag.test"],
            flagResult: "a.flag.test b.flag.test",
            environment: ["PHOTOSYNC_ALLOWED_IMAGE_HOSTS": "c.env.test, D.env.test"],
            environmentResult: "c.env.test d.env.test",
            yaml: "allowed_image_hosts:\n  - e.file.test\n  - 127.0.0.1:8080", fileResult: "e.file.test 127.0.0.1:8080",
            defaultResult: "images.unsplash.com", read: { $0.allowedImageHosts.joined(separator: " ") }),
        .init(
            key: "rate_limit_reserve",
            flag: ["--rate-limit-reserve", "0"], flagResult: "0",
            environment: ["PHOTOSYNC_RATE_LIMIT_RESERVE": "1"], environmentResult: "1",
            yaml: "rate_limit_reserve: 1000", fileResult: "1000",
            defaultResult: "10", read: { "\($0.rateLimitReserve)" }),
        .init(
            key: "sources",
            flag: ["--source", "user:ann", "--source", "feed"], flagResult: "user:ann feed",
            environment: ["PHOTOSYNC_SOURCES": "topic:wallpapers, likes:bob"],
            environmentResult: "topic:wallpapers likes:bob",
            yaml: "sources: [\"search:lake, blue\"]", fileResult: "search:lake, blue",
            defaultResult: "feed", read: { $0.sources.map(\.description).joined(separator: " ") }),
        .init(
            key: "max_image_mib",
            flag: ["--max-image-mib", "1"], flagResult: "1",
            environment: ["PHOTOSYNC_MAX_IMAGE_MIB": "2"], environmentResult: "2",
            yaml: "max_image_mib: 2047", fileResult: "2047",
            defaultResult: "256", read: { "\($0.maxImageMiB)" }),
        .init(
            key: "metrics_listen",
            flag: ["--metrics-listen", "127.0.0.1:9464"], flagResult: "127.0.0.1:9464",
            environment: ["PHOTOSYNC_METRICS_LISTEN": "[::1]:0"], environmentResult: "[::1]:0",
            yaml: "metrics_listen: localhost:80", fileResult: "localhost:80",
            defaultResult: "off", read: { $0.metricsListen?.description ?? "off" }),
        .init(
            key: "log_level",
            flag: ["--log-level", "trace"], flagResult: "trace",
            environment: ["PHOTOSYNC_LOG_LEVEL": "debug"], environmentResult: "debug",
            yaml: "log_level: error", fileResult: "error",
            defaultResult: "info", read: { $0.logLevel.rawValue }),
        .init(
            key: "storage_limit",
            flag: ["--storage-limit", "50GB"], flagResult: "50000000000",
            environment: ["PHOTOSYNC_STORAGE_LIMIT": "500MiB"], environmentResult: "524288000",
            yaml: "storage_limit: 2000000", fileResult: "2000000",
            defaultResult: "none", read: { $0.storageLimit.map(String.init) ?? "none" }),
        .init(
            key: "min_free_disk",
            flag: ["--min-free-disk", "2GiB"], flagResult: "bytes(2147483648)",
            environment: ["PHOTOSYNC_MIN_FREE_DISK": "0"], environmentResult: "bytes(0)",
            yaml: "min_free_disk: 10 MB", fileResult: "bytes(10000000)",
            defaultResult: "standard", read: { "\($0.minFreeDisk)" }),
        .init(
            key: "mirror_client_keys",
            flag: ["--mirror-client-key", "a", "--mirror-client-key", "b"], flagResult: "a b",
            environment: ["PHOTOSYNC_MIRROR_CLIENT_KEYS": "c, d"], environmentResult: "c d",
            yaml: "mirror_client_keys: [e]", fileResult: "e",
            defaultResult: "", read: { $0.mirrorClientKeys.joined(separator: " ") }),
        .init(
            key: "mirror_rate_limit",
            flag: ["--mirror-rate-limit", "1"], flagResult: "1",
            environment: ["PHOTOSYNC_MIRROR_RATE_LIMIT": "2"], environmentResult: "2",
            yaml: "mirror_rate_limit: 1000000", fileResult: "1000000",
            defaultResult: "5000", read: { "\($0.mirrorRateLimit)" }),
        .init(
            key: "mirror_image_urls",
            flag: ["--mirror-image-urls", "local"], flagResult: "local",
            environment: ["PHOTOSYNC_MIRROR_IMAGE_URLS": "unsplash"], environmentResult: "unsplash",
            yaml: "mirror_image_urls: local", fileResult: "local",
            defaultResult: "unsplash", read: { $0.mirrorImageURLs }),
    ]
}

@Suite struct SettingsPrecedenceTests {
    @Test(arguments: LayeredSetting.all)
    func flagBeatsEnvironmentBeatsFileBeatsDefault(_ setting: LayeredSetting) throws {
        let directory = TemporaryDirectory()
        let file = directory.write("photosync.yaml", setting.yaml + "\n")
        let config = ["--config", file]

        #expect(
            setting.read(try resolveSettings(setting.flag + config, environment: setting.environment))
                == setting.flagResult)
        #expect(
            setting.read(try resolveSettings(config, environment: setting.environment)) == setting.environmentResult)
        #expect(setting.read(try resolveSettings(config)) == setting.fileResult)
        #expect(setting.read(try resolveSettings([])) == setting.defaultResult)
    }

    /// A Bool has two values, so each layer is checked against a lower layer saying the opposite.
    @Test func downloadTrackingFollowsTheSamePrecedence() throws {
        let directory = TemporaryDirectory()
        let off = directory.write("off.yaml", "download_tracking: false\n")
        let on = directory.write("on.yaml", "download_tracking: true\n")

        #expect(
            try resolveSettings(
                ["--download-tracking", "--config", off], environment: ["PHOTOSYNC_DOWNLOAD_TRACKING": "false"]
            ).downloadTracking == true)
        #expect(
            try resolveSettings(
                ["--no-download-tracking", "--config", on], environment: ["PHOTOSYNC_DOWNLOAD_TRACKING": "true"]
            ).downloadTracking == false)
        #expect(
            try resolveSettings(["--config", off], environment: ["PHOTOSYNC_DOWNLOAD_TRACKING": "true"])
                .downloadTracking == true)
        #expect(
            try resolveSettings(["--config", on], environment: ["PHOTOSYNC_DOWNLOAD_TRACKING": "false"])
                .downloadTracking == false)
        #expect(try resolveSettings(["--config", off]).downloadTracking == false)
        #expect(try resolveSettings([]).downloadTracking == true)
    }

    @Test func nothingGivenMeansTheDocumentedDefaults() throws {
        let settings = try resolveSettings([])
        #expect(settings.database.description == "photosync.sqlite")
        #expect(settings.apiBase == URL(string: "https://api.unsplash.com")!)
        #expect(settings.sources == [.feed])
        #expect(settings.perPage == 30)
        #expect(settings.variants == [.regular])
        #expect(settings.concurrency == 4)
        #expect(settings.pollInterval == .seconds(300))
        #expect(settings.allowedImageHosts == ["images.unsplash.com"])
        #expect(settings.downloadTracking == true)
        #expect(settings.rateLimitReserve == 10)
        #expect(settings.maxImageMiB == 256)
        #expect(settings.metricsListen == nil)
        #expect(settings.logLevel == .info)
    }

    /// The read-only commands resolve the database as `run` does, and nothing else.
    @Test func readOnlyCommandsResolveTheDatabaseAlone() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("photosync.yaml", "database: /file.sqlite\nper_page: 50\n")
        let environment = ["PHOTOSYNC_CONCURRENCY": "99", "PHOTOSYNC_CONFIG": file]
        #expect(try DatabaseOptions.parse([]).database(environment: environment).description == "/file.sqlite")
        #expect(
            try DatabaseOptions.parse(["--database", "/flag.sqlite"]).database(environment: environment).description
                == "/flag.sqlite")
        #expect(throws: ConfigurationError.self) { try resolveSettings([], environment: environment) }
    }

    /// Several sizes as a list, repeated flags or comma-separated; none for metadata only.
    @Test func variantsAreAListOrNone() throws {
        let directory = TemporaryDirectory()
        let list = directory.write("list.yaml", "variant:\n  - regular\n  - thumb\n")
        let scalar = directory.write("scalar.yaml", "variant: small\n")
        #expect(try resolveSettings(["--config", list]).variant == "regular,thumb")
        #expect(try resolveSettings(["--config", scalar]).variant == "small")
        #expect(try resolveSettings(["--variant", "raw", "--variant", "thumb,raw"]).variant == "raw,thumb")
        #expect(try resolveSettings([], environment: ["PHOTOSYNC_VARIANT": "full, small"]).variant == "full,small")
        #expect(try resolveSettings(["--variant", "none"]).variants.isEmpty)
        #expect(try resolveSettings(["--variant", "NONE", "--config", list]).variant == "none")
    }

    /// A PostgreSQL URL's missing parts come from libpq's variables, in the environment the
    /// settings are resolved in, whichever layer gave the URL.
    @Test func aDatabaseURLIsCompletedFromLibpqsVariables() throws {
        let environment = ["PGHOST": "db.example.com", "PGUSER": "sync", "PGSSLMODE": "require"]
        #expect(
            try resolveSettings(["--database", "postgres:///photos"], environment: environment).database.description
                == "postgres://sync@db.example.com/photos?sslmode=require")
        let directory = TemporaryDirectory()
        let file = directory.write("photosync.yaml", "database: postgresql://other@/photos\n")
        #expect(
            try DatabaseOptions.parse(["--config", file]).database(environment: environment).description
                == "postgres://other@db.example.com/photos?sslmode=require")
        #expect(throws: ConfigurationError.self) {
            try resolveSettings(["--database", "postgres:///photos"], environment: ["PGSSLMODE": "on"])
        }
    }

    @Test func databaseDefaultsIntoSystemdStateDirectory() throws {
        #expect(
            try resolveSettings([], environment: ["STATE_DIRECTORY": "/var/lib/photosync"]).database.description
                == "/var/lib/photosync/photosync.sqlite")
        #expect(
            try resolveSettings([], environment: ["STATE_DIRECTORY": "/var/lib/photosync:/var/lib/other"]).database
                .description
                == "/var/lib/photosync/photosync.sqlite")
        #expect(try resolveSettings([]).database.description == "photosync.sqlite")
        #expect(
            try resolveSettings(["--database", "/x.sqlite"], environment: ["STATE_DIRECTORY": "/var/lib/photosync"])
                .database.description == "/x.sqlite")
    }

    @Test func configFlagBeatsConfigVariableBeatsSystemFile() throws {
        let directory = TemporaryDirectory()
        let flagFile = directory.write("flag.yaml", "per_page: 1\n")
        let variableFile = directory.write("variable.yaml", "per_page: 2\n")
        let systemFile = directory.write("system.yaml", "per_page: 3\n")
        let variable = ["PHOTOSYNC_CONFIG": variableFile]

        #expect(
            try resolveSettings(["--config", flagFile], environment: variable, defaultConfigurationPath: systemFile)
                .perPage == 1)
        #expect(try resolveSettings([], environment: variable, defaultConfigurationPath: systemFile).perPage == 2)
        #expect(try resolveSettings([], defaultConfigurationPath: systemFile).perPage == 3)
        #expect(try resolveSettings([], defaultConfigurationPath: directory.missing()).perPage == 30)
    }

    @Test func exampleConfigurationFileChangesNothing() throws {
        let example = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/photosync.yaml").path
        #expect(FileManager.default.fileExists(atPath: example))
        #expect(try resolveSettings(["--config", example]) == resolveSettings([]))
    }

    @Test func emptyAndCommentOnlyFilesAreAllowed() throws {
        let directory = TemporaryDirectory()
        let empty = directory.write("empty.yaml", "")
        let comments = directory.write("comments.yaml", "# nothing here\n\n---\n  # indented comment\n")
        #expect(try resolveSettings(["--config", empty]) == resolveSettings([]))
        #expect(try resolveSettings(["--config", comments]) == resolveSettings([]))
    }

    @Test func fileValuesAreReadAsYAMLWritesThem() throws {
        // GIVEN YAML 1.1's booleans, numbers in YAML's forms, and lists in both styles
        let directory = TemporaryDirectory()
        let path = directory.write(
            "forms.yaml",
            """
            download_tracking: Off
            per_page: 0x1e
            concurrency: 1_2
            sources: [feed, "user:ada"]
            allowed_image_hosts:
              - a.example
              - 'b.example'
            database: "/var/lib/photosync/photos.sqlite"

            """)
        // WHEN the settings are resolved, THEN each reads as YAML means it
        let settings = try resolveSettings(["--config", path])
        #expect(settings.downloadTracking == false)
        #expect(settings.perPage == 30)
        #expect(settings.concurrency == 12)
        #expect(settings.sources.map(\.description) == ["feed", "user:ada"])
        #expect(settings.allowedImageHosts == ["a.example", "b.example"])
        #expect(settings.database.description == "/var/lib/photosync/photos.sqlite")
    }
}
