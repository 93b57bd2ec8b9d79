import ArgumentParser
import Configuration
import Foundation

/// One setting, declared once: its flag, environment variable and file key (``key``), its type
/// in a provider, its default, its help and the rule every value goes through, and where the
/// checked value lands in ``Settings``.
///
/// ``SettingsOptions`` takes each flag's name and help from here, ``SettingsResolver`` reads,
/// checks and defaults every setting through ``SettingDeclaration``, the configuration file's
/// keys are checked against ``AllSettings/declarations``, and the tests compare the README's
/// configuration table and `config/photosync.yaml` with ``markdownRow``.
struct Setting<Value: Sendable>: SettingDeclaration {
    let key: SettingKey
    let type: SettingType
    /// The sentence `--help` starts with: "Photos per page of the feed, 1-30."
    let summary: String
    /// The placeholder in `--help` and the README: `n`, `url`.
    let valueName: String
    /// The default, as `--help` and the README say it.
    let defaultText: String
    /// After the variable's name in `--help`: "(comma-separated)".
    let environmentNote: String?
    let completion: CompletionKind?
    let defaultContent: @Sendable (_ environment: [String: String]) -> ConfigContent
    let rule: @Sendable (ConfigContent) throws(SettingProblem) -> Value
    let givenByFlag: @Sendable (SettingsOptions) -> ConfigContent?
    let target: WritableKeyPath<Settings, Value> & Sendable

    /// The flag's help: the summary, the variable and the default.
    var help: ArgumentHelp {
        ArgumentHelp(helpText, valueName: valueName)
    }

    var helpText: String {
        "\(summary) Env: \(key.environmentVariable)\(environmentNote.map { " " + $0 } ?? ""). Default: \(defaultText)."
    }

    /// The flag's name for `.customLong`: `per-page`.
    var longName: String { String(key.flag.dropFirst(2)) }

    func defaultValue(environment: [String: String]) -> ConfigContent { defaultContent(environment) }

    func flagValue(in options: SettingsOptions) -> ConfigContent? { givenByFlag(options) }

    func resolve(_ lookup: SettingLookup, into settings: inout Settings) throws(ConfigurationError) {
        settings[keyPath: target] = try lookup.value(of: self)
    }
}

/// What every ``Setting`` offers whatever its value's type, so the settings can be walked as a list.
protocol SettingDeclaration: Sendable {
    var key: SettingKey { get }
    var type: SettingType { get }
    var summary: String { get }
    var valueName: String { get }
    var defaultText: String { get }
    func defaultValue(environment: [String: String]) -> ConfigContent
    func flagValue(in options: SettingsOptions) -> ConfigContent?
    func resolve(_ lookup: SettingLookup, into settings: inout Settings) throws(ConfigurationError)
}

extension SettingDeclaration {
    /// This setting's row in the README's configuration table.
    var markdownRow: String {
        let flag = type == .bool ? "`\(key.flag)` / `--no-\(key.flag.dropFirst(2))`"
            : type == .names ? "`\(key.flag)` (repeat, or a list)"
            : type.isList ? "`\(key.flag)` (repeat)" : "`\(key.flag)`"
        let variable = "`\(key.environmentVariable)`" + (type.isList ? " (comma-separated)" : "")
        return "| \(summary.dropLast()) | \(flag) | \(variable) | `\(key.name)` | \(defaultText) |"
    }
}

/// How a setting's value is held by a provider, which decides how it is read.
enum SettingType: Sendable, Equatable {
    case string, int, bool
    /// A list; the environment variable holds it comma-separated. `what` is the message's
    /// "must be a list of ...".
    case stringList(what: String)
    /// Names, given as a list or as one value, and comma-separated anywhere: `regular,thumb`.
    case names

    var isList: Bool {
        switch self {
        case .stringList, .names: true
        case .string, .int, .bool: false
        }
    }
}

extension Setting {
    static func string(
        _ key: SettingKey, _ target: WritableKeyPath<Settings, Value> & Sendable, summary: String, valueName: String,
        default defaultValue: @escaping @Sendable ([String: String]) -> String, defaultText: String,
        completion: CompletionKind? = nil,
        flag: @escaping @Sendable (SettingsOptions) -> String?,
        rule: @escaping @Sendable (String) throws(SettingProblem) -> Value
    ) -> Setting {
        Setting(
            key: key, type: .string, summary: summary, valueName: valueName, defaultText: defaultText,
            environmentNote: nil, completion: completion,
            defaultContent: { .string(defaultValue($0)) },
            rule: { content throws(SettingProblem) in
                guard case .string(let text) = content else { throw SettingProblem("must be a single value") }
                return try rule(text)
            },
            givenByFlag: { flag($0).map { .string($0) } },
            target: target)
    }

    static func int(
        _ key: SettingKey, _ target: WritableKeyPath<Settings, Value> & Sendable, summary: String, valueName: String,
        default defaultValue: Int, defaultText: String? = nil,
        flag: @escaping @Sendable (SettingsOptions) -> Int?,
        rule: @escaping @Sendable (Int) throws(SettingProblem) -> Value
    ) -> Setting {
        Setting(
            key: key, type: .int, summary: summary, valueName: valueName, defaultText: defaultText ?? String(defaultValue),
            environmentNote: nil, completion: nil,
            defaultContent: { _ in .int(defaultValue) },
            rule: { content throws(SettingProblem) in
                guard case .int(let number) = content else { throw SettingProblem("must be a whole number") }
                return try rule(number)
            },
            givenByFlag: { flag($0).map { .int($0) } },
            target: target)
    }

    static func stringList(
        _ key: SettingKey, _ target: WritableKeyPath<Settings, Value> & Sendable, summary: String, valueName: String,
        what: String, default defaultValue: [String], defaultText: String,
        completion: CompletionKind? = nil,
        flag: @escaping @Sendable (SettingsOptions) -> [String],
        rule: @escaping @Sendable ([String]) throws(SettingProblem) -> Value
    ) -> Setting {
        Setting(
            key: key, type: .stringList(what: what), summary: summary, valueName: valueName, defaultText: defaultText,
            environmentNote: "(comma-separated)", completion: completion,
            defaultContent: { _ in .stringArray(defaultValue) },
            rule: { content throws(SettingProblem) in
                guard case .stringArray(let list) = content else { throw SettingProblem("must be \(what)") }
                return try rule(list)
            },
            givenByFlag: { options in
                let given = flag(options)
                return given.isEmpty ? nil : .stringArray(given)
            },
            target: target)
    }
}

extension Setting {
    static func names(
        _ key: SettingKey, _ target: WritableKeyPath<Settings, Value> & Sendable, summary: String, valueName: String,
        default defaultValue: [String], defaultText: String,
        completion: CompletionKind? = nil,
        flag: @escaping @Sendable (SettingsOptions) -> [String],
        rule: @escaping @Sendable ([String]) throws(SettingProblem) -> Value
    ) -> Setting {
        Setting(
            key: key, type: .names, summary: summary, valueName: valueName, defaultText: defaultText,
            environmentNote: "(comma-separated)", completion: completion,
            defaultContent: { _ in .stringArray(defaultValue) },
            rule: { content throws(SettingProblem) in
                let given: [String]
                switch content {
                case .stringArray(let list): given = list
                case .string(let text): given = [text]
                default: throw SettingProblem("must be a name or a list of names")
                }
                return try rule(given.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                    .map { $0.trimmingCharacters(in: .whitespaces) })
            },
            givenByFlag: { options in
                let given = flag(options)
                return given.isEmpty ? nil : .stringArray(given)
            },
            target: target)
    }
}

extension Setting where Value == Bool {
    static func bool(
        _ key: SettingKey, _ target: WritableKeyPath<Settings, Bool> & Sendable, summary: String,
        default defaultValue: Bool, defaultText: String,
        flag: @escaping @Sendable (SettingsOptions) -> Bool?
    ) -> Setting {
        Setting(
            key: key, type: .bool, summary: summary, valueName: "", defaultText: defaultText,
            environmentNote: "(true/false)", completion: nil,
            defaultContent: { _ in .bool(defaultValue) },
            rule: { content throws(SettingProblem) in
                guard case .bool(let value) = content else { throw SettingProblem("must be true or false") }
                return value
            },
            givenByFlag: { flag($0).map { .bool($0) } },
            target: target)
    }
}

extension Setting {
    /// The default, checked by the setting's own rule, without an environment to consult.
    var standard: Value {
        do {
            return try rule(defaultContent([:]))
        } catch {
            // The tests resolve every default through its rule.
            preconditionFailure("the default of \(key.name) fails its own rule: \(error.text)")
        }
    }
}
