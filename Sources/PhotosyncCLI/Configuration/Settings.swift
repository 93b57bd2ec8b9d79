import Foundation

/// The checked values of every setting, each read as `settings.perPage`: a field for every
/// property of ``AllSettings``, of that declaration's type.
///
/// The only way to one is ``SettingsResolver``, which validates every value, defaults included.
@dynamicMemberLookup
struct Settings: Sendable, Equatable {
    private let values: [String: any Sendable & Equatable]

    fileprivate init(checked values: [String: any Sendable & Equatable]) { self.values = values }

    subscript<Value>(dynamicMember declaration: KeyPath<AllSettings, Setting<Value>>) -> Value {
        // The resolver holds a value of its declared type for every setting.
        values[AllSettings.declared[keyPath: declaration].name] as! Value
    }

    /// Whether the value of `setting` here is not the one in `other`.
    func differs(from other: Settings, in setting: SettingDeclaration) -> Bool {
        guard let value = values[setting.name] else { return other.values[setting.name] != nil }
        return !value.isEqual(to: other.values[setting.name])
    }

    static func == (lhs: Settings, rhs: Settings) -> Bool {
        lhs.values.count == rhs.values.count
            && lhs.values.allSatisfy { name, value in value.isEqual(to: rhs.values[name]) }
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any?) -> Bool { self == other as? Self }
}

/// Turns flags, environment variables, the configuration file and the defaults into ``Settings``.
///
/// Each setting is taken from the first place that gives it: its flag, then its `PHOTOSYNC_*`
/// environment variable, then the configuration file, then its default; whichever it is, the
/// value goes through the setting's rule. The configuration file is `--config PATH`, else
/// `PHOTOSYNC_CONFIG`, else ``defaultConfigurationPath`` when that file exists, else none.
/// Nothing here reads the process environment or `/etc` unless told to: both are injected.
struct SettingsResolver: Sendable {
    static let systemConfigurationPath = "/etc/photosync/photosync.yaml"

    /// Where `PHOTOSYNC_*`, `PHOTOSYNC_CONFIG` and `STATE_DIRECTORY` are read.
    var environment: [String: String]
    /// The configuration file used when none is named, if it exists.
    var defaultConfigurationPath = systemConfigurationPath

    /// Resolves and validates every setting.
    ///
    /// - Parameters:
    ///   - flags: the flags given, by setting name (see ``SettingsOptions``).
    ///   - configPath: `--config`, if given.
    /// - Throws: ``ConfigurationError`` for the first problem found: the configuration file is
    ///   missing (when named), unreadable, not valid YAML or sets an unknown key; or a value has
    ///   the wrong type or breaks its rule. The error names the flag, variable or file it came from.
    func resolve(flags: [String: SettingInput], configPath: String?) throws(ConfigurationError) -> Settings {
        let file = try configurationFile(named: configPath)
        var values: [String: any Sendable & Equatable] = [:]
        for setting in AllSettings.list {
            values[setting.name] = try value(of: setting, flag: flags[setting.name], file: file)
        }
        return Settings(checked: values)
    }

    /// Resolves and validates one setting as ``resolve(flags:configPath:)`` does, reading no other.
    func resolve<Value>(
        _ declaration: KeyPath<AllSettings, Setting<Value>>, flags: [String: SettingInput], configPath: String?
    ) throws(ConfigurationError) -> Value {
        let setting = AllSettings.declared[keyPath: declaration]
        // A declaration's rule returns its `Value`.
        return try value(of: setting, flag: flags[setting.name], file: configurationFile(named: configPath)) as! Value
    }

    /// The setting's value from the first place that gives one, checked by its rule.
    func value(of setting: SettingDeclaration, flag: SettingInput?, file: ConfigurationFile?)
        throws(ConfigurationError) -> any Sendable & Equatable
    {
        // A list's variable is comma-separated, its items trimmed, as swift-configuration reads it.
        let variable = environment[setting.environmentVariable].map { text -> SettingInput in
            guard setting.type.isList else { return .text(text) }
            let items = text.split(separator: ",", omittingEmptySubsequences: false)
            return .list(items.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        }
        let (input, source): (SettingInput?, String) =
            if let flag {
                (flag, setting.flag)
            } else if let variable {
                (variable, setting.environmentVariable)
            } else if let file, let written = file.values[setting.name] {
                (written, file.path)
            } else {
                (nil, "default")
            }
        do {
            guard let input else { return try setting.standard(environment) }
            return try setting.read(input, environment)
        } catch {
            throw ConfigurationError(.invalidValue, source: source, message: "\(setting.name) \(error.text)")
        }
    }

    /// The configuration file that applies, read and checked for unknown keys; nil when there is none.
    private func configurationFile(named flag: String?) throws(ConfigurationError) -> ConfigurationFile? {
        let variable = environment["PHOTOSYNC_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = flag ?? variable else {
            return SmallFile.exists(defaultConfigurationPath) ? try checked(.load(path: defaultConfigurationPath)) : nil
        }
        do {
            return try checked(.load(path: path))
        } catch {
            guard error.kind == .missingFile else { throw error }
            let namedBy = flag != nil ? "--config" : "PHOTOSYNC_CONFIG"
            throw ConfigurationError(
                .missingFile, source: path, message: "configuration file named by \(namedBy) does not exist")
        }
    }

    /// A misspelled key would otherwise be silently ignored.
    private func checked(_ file: ConfigurationFile) throws(ConfigurationError) -> ConfigurationFile {
        let names = AllSettings.list.map(\.name)
        let unknown = file.values.keys.sorted().filter { !names.contains($0) }
        guard let first = unknown.first else { return file }
        var message = "unknown setting \(SettingRules.quoted(first))"
        let distances = names.map { ($0, Self.editDistance(first, $0)) }.filter { $0.1 <= 2 }
        if let suggestion = distances.min(by: { $0.1 < $1.1 })?.0 {
            message += " (did you mean \"\(suggestion)\"?)"
        }
        if unknown.count > 1 {
            let others = unknown.dropFirst().map(SettingRules.quoted).joined(separator: ", ")
            message += " and \(unknown.count - 1) more: \(others)"
        }
        throw ConfigurationError(.unknownSetting, source: file.path, message: message)
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let b = Array(b)
        var row = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, cb) in b.enumerated() {
                (diagonal, row[j + 1]) = (row[j + 1], min(row[j + 1] + 1, row[j] + 1, diagonal + (ca == cb ? 0 : 1)))
            }
        }
        return row[b.count]
    }
}
