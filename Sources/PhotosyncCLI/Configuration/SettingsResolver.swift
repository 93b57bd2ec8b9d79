import Configuration
import Foundation
import Logging
import Synchronization

/// Turns flags, environment variables, the configuration file and the defaults into ``Settings``.
///
/// Each setting is taken from the first place that gives it: its flag, then its `PHOTOSYNC_*`
/// environment variable, then the configuration file, then its default. The layering is
/// swift-configuration's (`ConfigReader` over an `InMemoryProvider` of the flags, an
/// `EnvironmentVariablesProvider`, the YAML file and an `InMemoryProvider` of defaults).
///
/// The configuration file is `--config PATH`, else `PHOTOSYNC_CONFIG`, else
/// ``defaultConfigurationPath`` when that file exists, else none.
///
/// Nothing here reads the process environment or `/etc` unless told to: both are injected.
public struct SettingsResolver: Sendable {
    /// Where the configuration file is looked for when none is named.
    public static let systemConfigurationPath = "/etc/photosync/photosync.yaml"

    /// The environment to read `PHOTOSYNC_*`, `PHOTOSYNC_CONFIG` and `STATE_DIRECTORY` from.
    public var environment: [String: String]
    /// The configuration file used when none is named, if it exists.
    public var defaultConfigurationPath: String

    public init(
        environment: [String: String],
        defaultConfigurationPath: String = SettingsResolver.systemConfigurationPath
    ) {
        self.environment = environment
        self.defaultConfigurationPath = defaultConfigurationPath
    }

    /// The configuration file that applies, and what named it (`--config`, `PHOTOSYNC_CONFIG`,
    /// or `nil` for the default path); `nil` when there is none.
    func configurationFile(named flag: String?) -> (path: String, namedBy: String?)? {
        if let flag { return (flag, "--config") }
        if let path = environment["PHOTOSYNC_CONFIG"], !path.isEmpty { return (path, "PHOTOSYNC_CONFIG") }
        if SmallFile.exists(defaultConfigurationPath) { return (defaultConfigurationPath, nil) }
        return nil
    }

    /// Resolves and validates every setting.
    ///
    /// - Throws: ``ConfigurationError`` for the first problem found: the configuration file is
    ///   missing (when named explicitly), unreadable, not valid YAML or sets an unknown key; or a
    ///   value has the wrong type or fails validation. The error names the flag, environment
    ///   variable or file the value came from.
    public func resolve(_ options: SettingsOptions) throws(ConfigurationError) -> Settings {
        var layers: [(provider: any ConfigProvider, origin: Origin)] = [
            (InMemoryProvider(name: "flags", values: options.configValues), .flags),
            (EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "photosync"), .environment),
        ]
        if let (path, namedBy) = configurationFile(named: options.configPath) {
            let file: ConfigurationFile
            do {
                file = try ConfigurationFile.load(path: path)
            } catch {
                guard error.kind == .missingFile, let namedBy else { throw error }
                throw ConfigurationError(.missingFile, source: path, message: "configuration file named by \(namedBy) does not exist")
            }
            try Self.rejectUnknownKeys(in: file)
            layers.append((file, .file(path)))
        }
        layers.append((InMemoryProvider(name: "defaults", values: defaultValues), .defaults))

        let answering = AnsweringProvider()
        let reader = ConfigReader(providers: layers.map(\.provider), accessReporter: answering)
        let lookup = Lookup(reader: reader, answering: answering, origins: layers.map(\.origin))

        return Settings(
            databasePath: try lookup.string(.database, SettingRules.databasePath),
            apiBase: try lookup.string(.apiBase, SettingRules.apiBase),
            perPage: try lookup.int(.perPage) { value throws(SettingProblem) in
                try SettingRules.number(value, in: Settings.perPageRange)
            },
            variant: try lookup.string(.variant, SettingRules.variant),
            concurrency: try lookup.int(.concurrency) { value throws(SettingProblem) in
                try SettingRules.number(value, in: Settings.concurrencyRange)
            },
            pollInterval: try lookup.int(.pollInterval, SettingRules.pollInterval(seconds:)),
            allowedImageHosts: try lookup.stringArray(.allowedImageHosts, SettingRules.imageHosts),
            downloadTracking: try lookup.bool(.downloadTracking),
            rateLimitReserve: try lookup.int(.rateLimitReserve) { value throws(SettingProblem) in
                try SettingRules.number(value, in: Settings.rateLimitReserveRange)
            },
            maxImageMiB: try lookup.int(.maxImageMiB) { value throws(SettingProblem) in
                try SettingRules.number(value, in: Settings.maxImageMiBRange)
            },
            metricsListen: try lookup.string(.metricsListen, SettingRules.listenAddress),
            logLevel: try lookup.string(.logLevel, SettingRules.logLevel)
        )
    }

    private var defaultValues: [AbsoluteConfigKey: ConfigValue] {
        let defaults = Settings(databasePath: Settings.defaultDatabasePath(environment: environment))
        return [
            SettingKey.database.absoluteKey: .init(.string(defaults.databasePath), isSecret: false),
            SettingKey.apiBase.absoluteKey: .init(.string(defaults.apiBase.absoluteString), isSecret: false),
            SettingKey.perPage.absoluteKey: .init(.int(defaults.perPage), isSecret: false),
            SettingKey.variant.absoluteKey: .init(.string(defaults.variant), isSecret: false),
            SettingKey.concurrency.absoluteKey: .init(.int(defaults.concurrency), isSecret: false),
            SettingKey.pollInterval.absoluteKey: .init(.int(Int(defaults.pollInterval.components.seconds)), isSecret: false),
            SettingKey.allowedImageHosts.absoluteKey: .init(.stringArray(defaults.allowedImageHosts), isSecret: false),
            SettingKey.downloadTracking.absoluteKey: .init(.bool(defaults.downloadTracking), isSecret: false),
            SettingKey.rateLimitReserve.absoluteKey: .init(.int(defaults.rateLimitReserve), isSecret: false),
            SettingKey.maxImageMiB.absoluteKey: .init(.int(defaults.maxImageMiB), isSecret: false),
            // Empty: off.
            SettingKey.metricsListen.absoluteKey: .init(.string(""), isSecret: false),
            SettingKey.logLevel.absoluteKey: .init(.string(defaults.logLevel.rawValue), isSecret: false),
        ]
    }

    /// swift-configuration only answers the keys it is asked for, so a misspelled key in the file
    /// would otherwise be silently ignored.
    private static func rejectUnknownKeys(in file: ConfigurationFile) throws(ConfigurationError) {
        let known = Set(SettingKey.all.map(\.name))
        let unknown = file.keys.filter { !known.contains($0) }
        guard let first = unknown.first else { return }
        var message = "unknown setting \(SettingRules.quoted(first))"
        if let suggestion = closest(to: first, among: SettingKey.all.map(\.name)) {
            message += " (did you mean \"\(suggestion)\"?)"
        }
        if unknown.count > 1 {
            message += " and \(unknown.count - 1) more: \(unknown.dropFirst().map(SettingRules.quoted).joined(separator: ", "))"
        }
        throw ConfigurationError(.unknownSetting, source: file.path, message: message)
    }

    /// The known name within two edits of `name`, if any.
    private static func closest(to name: String, among names: [String]) -> String? {
        names.map { ($0, editDistance(name, $0)) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, cb) in b.enumerated() {
                let substitution = diagonal + (ca == cb ? 0 : 1)
                diagonal = row[j + 1]
                row[j + 1] = min(row[j + 1] + 1, row[j] + 1, substitution)
            }
        }
        return row[b.count]
    }
}

/// Where a value came from.
private enum Origin {
    case flags, environment, file(String), defaults

    func label(for key: SettingKey) -> String {
        switch self {
        case .flags: key.flag
        case .environment: key.environmentVariable
        case .file(let path): path
        case .defaults: "default"
        }
    }
}

/// Remembers which provider answered the last lookup. `ConfigReader` asks its providers in order
/// and stops at the first that has a value or throws, so that provider is the last one reported.
private final class AnsweringProvider: AccessReporter {
    private let index = Mutex<Int?>(nil)

    func report(_ event: AccessEvent) {
        index.withLock { $0 = event.providerResults.indices.last }
    }

    var last: Int? { index.withLock { $0 } }
}

/// Typed reads through the layered reader, turning failures into errors that name the source.
private struct Lookup {
    let reader: ConfigReader
    let answering: AnsweringProvider
    let origins: [Origin]

    func string<T>(_ key: SettingKey, _ check: (String) throws(SettingProblem) -> T) throws(ConfigurationError) -> T {
        try value(key, expected: "a single value, not a list", { try $0.requiredString(forKey: key.configKey) }, check)
    }

    func int<T>(_ key: SettingKey, _ check: (Int) throws(SettingProblem) -> T) throws(ConfigurationError) -> T {
        try value(key, expected: "a whole number", { try $0.requiredInt(forKey: key.configKey) }, check)
    }

    func stringArray<T>(_ key: SettingKey, _ check: ([String]) throws(SettingProblem) -> T) throws(ConfigurationError) -> T {
        try value(key, expected: "a list of host names", { try $0.requiredStringArray(forKey: key.configKey) }, check)
    }

    func bool(_ key: SettingKey) throws(ConfigurationError) -> Bool {
        try value(key, expected: "true or false", { try $0.requiredBool(forKey: key.configKey) }) { $0 }
    }

    // `required...` getters, because the defaulting ones return the default on a type mismatch.
    private func value<Raw, T>(
        _ key: SettingKey,
        expected: String,
        _ get: (ConfigReader) throws -> Raw,
        _ check: (Raw) throws(SettingProblem) -> T
    ) throws(ConfigurationError) -> T {
        let raw: Raw
        do {
            raw = try get(reader)
        } catch {
            let source = source(of: key)
            var message = "\(key.name) must be \(expected)"
            if let text = reader.string(forKey: key.configKey) {
                message += " (got \(SettingRules.quoted(text)))"
            }
            throw ConfigurationError(.invalidValue, source: source, message: message)
        }
        let source = source(of: key)
        do {
            return try check(raw)
        } catch {
            throw ConfigurationError(.invalidValue, source: source, message: "\(key.name) \(error.text)")
        }
    }

    private func source(of key: SettingKey) -> String {
        guard let index = answering.last, origins.indices.contains(index) else { return key.name }
        return origins[index].label(for: key)
    }
}
