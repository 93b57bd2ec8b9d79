import ArgumentParser

/// `--config` and `--database`: the read-only commands' options, and part of ``SettingsOptions``.
struct DatabaseOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "YAML configuration file. Env: PHOTOSYNC_CONFIG. Default: \(SettingsResolver.systemConfigurationPath) "
                + "if it exists.", valueName: "path"),
        completion: .file(extensions: ["yaml", "yml"]))
    var configPath: String?

    @Option(\.database) var database: String?

    func validate() throws { try check(flagsOf: self) }

    /// The database's path, resolved as `run` resolves it. Other settings' values are neither
    /// read nor checked: a bad one stops `run`, not a command that does not use it.
    func database(environment: [String: String]) throws(ConfigurationError) -> DatabaseLocation {
        try SettingsResolver(environment: environment)
            .resolve(\.database, flags: flags(of: self), configPath: configPath)
    }
}

/// `run`'s flags: one for each setting, on a property named as its declaration in ``AllSettings``,
/// which gives the flag its name, help and completion. Every flag is optional, so an unset one
/// lets the environment variable, the configuration file or the default through.
struct SettingsOptions: ParsableArguments, Sendable {
    @OptionGroup var common: DatabaseOptions
    @Option(\.writerLease) var writerLease: String?
    @Option(\.apiBase) var apiBase: String?
    @Option(\.sources) var sources: [String] = []
    @Option(\.perPage) var perPage: String?
    @Option(\.variants) var variants: [String] = []
    @Option(\.concurrency) var concurrency: String?
    @Option(\.pollInterval) var pollInterval: String?
    @Option(\.allowedImageHosts) var allowedImageHosts: [String] = []
    @Option(\.imageMinRate) var imageMinRate: String?
    @Flag(\.downloadTracking) var downloadTracking: Bool?
    @Option(\.photoDetails) var photoDetails: String?
    @Option(\.rateLimitReserve) var rateLimitReserve: String?
    @Option(\.maxImageMiB) var maxImageMiB: String?
    @Option(\.metricsListen) var metricsListen: String?
    @Option(\.logLevel) var logLevel: String?
    @Option(\.storageLimit) var storageLimit: String?
    @Option(\.minFreeDisk) var minFreeDisk: String?
    @Option(\.mirrorClientKeys) var mirrorClientKeys: [String] = []
    @Option(\.mirrorRateLimit) var mirrorRateLimit: String?
    @Option(\.mirrorImageURLs) var mirrorImageURLs: String?
    @Option(\.primaryDatabase) var primaryDatabase: String?
    @Option(\.maxReplicaLag) var maxReplicaLag: String?

    func validate() throws { try check(flagsOf: self) }

    /// Every setting from these flags, `environment` and the configuration file; see
    /// ``SettingsResolver/resolve(flags:configPath:)``.
    func resolve(
        environment: [String: String], defaultConfigurationPath: String = SettingsResolver.systemConfigurationPath
    ) throws(ConfigurationError) -> Settings {
        try SettingsResolver(environment: environment, defaultConfigurationPath: defaultConfigurationPath)
            .resolve(flags: flags(of: self), configPath: common.configPath)
    }
}

/// The flags given in `options` and its groups, by setting name. argument-parser finds its
/// properties by reflection; so does this, matching each flag's property to the declaration of
/// the same name (a test checks that every flag reaches its own setting).
func flags(of options: some ParsableArguments) -> [String: SettingInput] {
    var given: [String: SettingInput] = [:]
    for child in Mirror(reflecting: options).children {
        if let group = child.value as? OptionGroup<DatabaseOptions> {
            given.merge(flags(of: group.wrappedValue)) { $1 }
        }
        let input: SettingInput? =
            switch child.value {
            case let option as Option<String?>: option.wrappedValue.map(SettingInput.text)
            case let option as Option<[String]>: option.wrappedValue.isEmpty ? nil : .list(option.wrappedValue)
            case let flag as Flag<Bool?>: flag.wrappedValue.map { .text("\($0)") }
            default: nil
            }
        // argument-parser's wrappers are stored as `_name`.
        let setting = AllSettings.properties.first { "_" + $0.property == child.label }?.declaration
        if let input, let setting { given[setting.name] = input }
    }
    return given
}

/// Checks flag values alone before a command runs, so that a bad one is a usage error (exit 64)
/// reported by argument-parser.
func check(flagsOf options: some ParsableArguments) throws {
    let given = flags(of: options)
    for setting in AllSettings.list {
        guard let flag = given[setting.name] else { continue }
        do {
            _ = try SettingsResolver(environment: [:]).value(of: setting, flag: flag, file: nil)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension Option {
    /// The flag of a setting that takes one value.
    init<Given>(_ declaration: KeyPath<AllSettings, Setting<Given>>) where Value == String? {
        let setting = AllSettings.declared[keyPath: declaration]
        self.init(
            name: .customLong(String(setting.flag.dropFirst(2))), help: setting.help, completion: setting.completion)
    }

    /// The flag of a list setting, repeated for several values.
    init<Given>(wrappedValue: [String], _ declaration: KeyPath<AllSettings, Setting<Given>>) where Value == [String] {
        let setting = AllSettings.declared[keyPath: declaration]
        self.init(
            wrappedValue: wrappedValue, name: .customLong(String(setting.flag.dropFirst(2))), help: setting.help,
            completion: setting.completion)
    }
}

extension Flag where Value == Bool? {
    /// The `--NAME` / `--no-NAME` pair of a boolean setting.
    init(_ declaration: KeyPath<AllSettings, Setting<Bool>>) {
        let setting = AllSettings.declared[keyPath: declaration]
        self.init(name: .customLong(String(setting.flag.dropFirst(2))), inversion: .prefixedNo, help: setting.help)
    }
}
