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
    static var databaseHelp: ArgumentHelp { AllSettings.database.help }

    @Option(
        name: .customLong("config"),
        help: SettingsOptions.configHelp,
        completion: .file(extensions: ["yaml", "yml"])
    )
    public var configPath: String?

    @Option(name: .customLong(AllSettings.database.longName), help: AllSettings.database.help, completion: .file())
    public var databasePath: String?

    @Option(name: .customLong(AllSettings.apiBase.longName), help: AllSettings.apiBase.help)
    public var apiBase: String?

    @Option(name: .customLong(AllSettings.sources.longName), help: AllSettings.sources.help)
    public var sources: [String] = []

    @Option(name: .customLong(AllSettings.perPage.longName), help: AllSettings.perPage.help)
    public var perPage: Int?

    @Option(name: .customLong(AllSettings.variants.longName), help: AllSettings.variants.help, completion: AllSettings.variants.completion)
    public var variants: [String] = []

    @Option(name: .customLong(AllSettings.concurrency.longName), help: AllSettings.concurrency.help)
    public var concurrency: Int?

    @Option(name: .customLong(AllSettings.pollInterval.longName), help: AllSettings.pollInterval.help)
    public var pollInterval: Int?

    @Option(name: .customLong(AllSettings.allowedImageHosts.longName), help: AllSettings.allowedImageHosts.help)
    public var allowedImageHosts: [String] = []

    @Flag(name: .customLong(AllSettings.downloadTracking.longName), inversion: .prefixedNo, help: AllSettings.downloadTracking.help)
    public var downloadTracking: Bool?

    @Option(name: .customLong(AllSettings.rateLimitReserve.longName), help: AllSettings.rateLimitReserve.help)
    public var rateLimitReserve: Int?

    @Option(name: .customLong(AllSettings.maxImageMiB.longName), help: AllSettings.maxImageMiB.help)
    public var maxImageMiB: Int?

    @Option(name: .customLong(AllSettings.metricsListen.longName), help: AllSettings.metricsListen.help)
    public var metricsListen: String?

    @Option(name: .customLong(AllSettings.logLevel.longName), help: AllSettings.logLevel.help, completion: AllSettings.logLevel.completion)
    public var logLevel: String?

    public init() {}

    /// Rejects flag values that could never be valid (`--per-page 50`), before anything else runs.
    public mutating func validate() throws {
        do {
            _ = try SettingsResolver.flagsOnly.resolve(flags: configValues, configPath: nil)
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
        for setting in AllSettings.declarations {
            if let content = setting.flagValue(in: self) {
                values[setting.key.absoluteKey] = ConfigValue(content, isSecret: false)
            }
        }
        return values
    }
}
