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

    /// Reads the flags alone, without the environment or any configuration file: for checking
    /// flag values before a command runs, so that a bad one is a usage error (exit 64) reported
    /// by argument-parser.
    static let flagsOnly = SettingsResolver(environment: [:], defaultConfigurationPath: "")

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
        try resolve(flags: options.configValues, configPath: options.configPath)
    }

    /// Resolves and validates every setting, from the flags given as `flags` (keyed like the
    /// configuration file) and `--config` as `configPath`.
    ///
    /// - Throws: ``ConfigurationError``; see ``resolve(_:)``.
    func resolve(flags: [AbsoluteConfigKey: ConfigValue], configPath: String?) throws(ConfigurationError) -> Settings {
        let lookup = try lookup(flags: flags, configPath: configPath, declarations: AllSettings.declarations)
        var settings = Settings(databasePath: Settings.defaultDatabasePath(environment: environment))
        for setting in AllSettings.declarations {
            try setting.resolve(lookup, into: &settings)
        }
        return settings
    }

    /// Resolves and validates one setting, for the commands that need no other: `query`,
    /// `status` and the other readers need only ``AllSettings/database``.
    ///
    /// The value is layered and checked as ``resolve(_:)`` does it, and the configuration file
    /// is still read whole and refused for an unknown key (a misspelled `database` key must not
    /// send a reader to another file). Other settings' values are neither read nor checked:
    /// a bad one stops `run`, not a command that does not use it.
    ///
    /// - Throws: ``ConfigurationError``; see ``resolve(_:)``.
    func resolve<Value>(
        _ setting: Setting<Value>, flags: [AbsoluteConfigKey: ConfigValue], configPath: String?
    ) throws(ConfigurationError) -> Value {
        try lookup(flags: flags, configPath: configPath, declarations: [setting]).value(of: setting)
    }

    /// The layered reader over the flags, the environment, the configuration file, and the
    /// defaults of `declarations`.
    private func lookup(
        flags: [AbsoluteConfigKey: ConfigValue], configPath: String?, declarations: [any SettingDeclaration]
    ) throws(ConfigurationError) -> SettingLookup {
        var layers: [(provider: any ConfigProvider, origin: Origin)] = [
            (InMemoryProvider(name: "flags", values: flags), .flags),
            (EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "photosync"), .environment),
        ]
        if let (path, namedBy) = configurationFile(named: configPath) {
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
        layers.append((InMemoryProvider(name: "defaults", values: defaultValues(of: declarations)), .defaults))

        let answering = AnsweringProvider()
        let reader = ConfigReader(providers: layers.map(\.provider), accessReporter: answering)
        return SettingLookup(reader: reader, answering: answering, origins: layers.map(\.origin))
    }

    private func defaultValues(of declarations: [any SettingDeclaration]) -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for setting in declarations {
            values[setting.key.absoluteKey] = ConfigValue(setting.defaultValue(environment: environment), isSecret: false)
        }
        return values
    }

    /// swift-configuration only answers the keys it is asked for, so a misspelled key in the file
    /// would otherwise be silently ignored.
    private static func rejectUnknownKeys(in file: ConfigurationFile) throws(ConfigurationError) {
        let names = AllSettings.declarations.map(\.key.name)
        let known = Set(names)
        let unknown = file.keys.filter { !known.contains($0) }
        guard let first = unknown.first else { return }
        var message = "unknown setting \(SettingRules.quoted(first))"
        if let suggestion = closest(to: first, among: names) {
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
struct SettingLookup {
    fileprivate let reader: ConfigReader
    fileprivate let answering: AnsweringProvider
    fileprivate let origins: [Origin]

    /// The setting's value from the first layer that gives it, checked by its rule.
    // `required...` getters, because the defaulting ones return the default on a type mismatch.
    func value<Value>(of setting: Setting<Value>) throws(ConfigurationError) -> Value {
        let key = setting.key
        let raw: ConfigContent
        do {
            switch setting.type {
            case .string: raw = .string(try reader.requiredString(forKey: key.configKey))
            case .int: raw = .int(try reader.requiredInt(forKey: key.configKey))
            case .bool: raw = .bool(try reader.requiredBool(forKey: key.configKey))
            case .stringList: raw = .stringArray(try reader.requiredStringArray(forKey: key.configKey))
            case .names:
                // One name, or a list of them; the defaulting getters would hide a mismatch.
                if let list = try? reader.requiredStringArray(forKey: key.configKey) {
                    raw = .stringArray(list)
                } else {
                    raw = .string(try reader.requiredString(forKey: key.configKey))
                }
            }
        } catch {
            var message = "\(key.name) must be \(Self.expected(setting.type))"
            if let text = reader.string(forKey: key.configKey) {
                message += " (got \(SettingRules.quoted(text)))"
            }
            throw ConfigurationError(.invalidValue, source: source(of: key), message: message)
        }
        let source = source(of: key)
        do {
            return try setting.rule(raw)
        } catch {
            throw ConfigurationError(.invalidValue, source: source, message: "\(key.name) \(error.text)")
        }
    }

    private static func expected(_ type: SettingType) -> String {
        switch type {
        case .string: "a single value, not a list"
        case .int: "a whole number"
        case .bool: "true or false"
        case .stringList(let what): what
        case .names: "a name or a list of names"
        }
    }

    private func source(of key: SettingKey) -> String {
        guard let index = answering.last, origins.indices.contains(index) else { return key.name }
        return origins[index].label(for: key)
    }
}
