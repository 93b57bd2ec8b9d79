import ArgumentParser
import Foundation

/// One setting, declared once in ``AllSettings``: its names in each source, how its value is
/// read and checked, its default and its help. The flag, the help, the resolver, ``Settings``'
/// field and the README's row are all derived from it.
///
/// A class, whose subclass ``Setting`` puts no requirement on its value's type, so that
/// ``AllSettings/properties`` finds the declarations with class casts rather than conformance
/// checks, which cost the start a scan of the binary's conformance records each (measured in
/// Benchmarks/HISTORY.md, "Where the rest of the start goes"). Immutable: its properties are
/// constants, and ``Setting`` adds none.
class SettingDeclaration: @unchecked Sendable {
    /// The key in the configuration file and in messages: `per_page`.
    let name: String
    /// The command-line flag: `--per-page`.
    let flag: String
    let type: SettingType
    /// The sentence `--help` and the README start with: "Photos per page of each source, 1-30."
    var summary: String { describeSummary() }
    /// The placeholder in `--help`: `n`, `url`.
    let valueName: String
    /// The default, as `--help` and the README say it.
    var defaultText: String { describeDefault() }
    /// ``summary`` and ``defaultText``, made only when asked for: a command that reads one
    /// setting (`query`'s database) would otherwise compute every setting's default, the sync
    /// engine's configuration among them, and format every summary, at each start.
    private let describeSummary: @Sendable () -> String
    private let describeDefault: @Sendable () -> String
    let completion: CompletionKind?
    /// What a reload (SIGHUP) does with a changed value.
    let reload: SettingReload
    /// The value a source gives, read and checked, in an environment (a PostgreSQL URL's parts
    /// left to libpq's variables).
    let read: @Sendable (SettingInput, [String: String]) throws(SettingProblem) -> any Sendable & Equatable
    /// The default, checked by the same rule, for an environment (`STATE_DIRECTORY`).
    let standard: @Sendable ([String: String]) throws(SettingProblem) -> any Sendable & Equatable

    fileprivate init(
        name: String, flag: String, type: SettingType, summary: @escaping @Sendable () -> String, valueName: String,
        defaultText: @escaping @Sendable () -> String, completion: CompletionKind?, reload: SettingReload,
        read: @escaping @Sendable (SettingInput, [String: String]) throws(SettingProblem) -> any Sendable & Equatable,
        standard: @escaping @Sendable ([String: String]) throws(SettingProblem) -> any Sendable & Equatable
    ) {
        self.name = name
        self.flag = flag
        self.type = type
        self.describeSummary = summary
        self.valueName = valueName
        self.describeDefault = defaultText
        self.completion = completion
        self.reload = reload
        self.read = read
        self.standard = standard
    }

    var environmentVariable: String { "PHOTOSYNC_" + name.uppercased() }

    /// The flag's help: the summary, the variable and the default.
    var help: ArgumentHelp {
        let note = type == .boolean ? " (true/false)" : type.isList ? " (comma-separated)" : ""
        return ArgumentHelp(
            "\(summary) Env: \(environmentVariable)\(note). Default: \(defaultText).", valueName: valueName)
    }

    /// This setting's row in the README's configuration table.
    var markdownRow: String {
        let flags: String =
            switch type {
            case .boolean: "`\(flag)` / `--no-\(flag.dropFirst(2))`"
            case .names: "`\(flag)` (repeat, or a list)"
            case .list: "`\(flag)` (repeat)"
            case .text, .integer: "`\(flag)`"
            }
        let variable = "`\(environmentVariable)`" + (type.isList ? " (comma-separated)" : "")
        return "| \(summary.dropLast()) | \(flags) | \(variable) | `\(name)` | \(defaultText) |"
    }
}

/// A ``SettingDeclaration`` whose checked value is a `Value`: what ``Settings``' fields are typed by.
final class Setting<Value>: SettingDeclaration, @unchecked Sendable {
    /// `default` and every value given go through `rule`, so a default that breaks it is caught
    /// by the first test that resolves the settings. `defaultText` is how `--help` and the README
    /// say the default; without it, the default without an environment, as `type` shows it.
    /// `reload` says whether a reload applies a changed value (the default) or keeps the running
    /// one until a restart.
    convenience init<Given>(
        _ name: String, flag: String, _ type: ValueType<Given>,
        summary: @autoclosure @escaping @Sendable () -> String, valueName: String = "",
        default: @escaping @Sendable ([String: String]) -> Given,
        defaultText: @autoclosure @escaping @Sendable () -> String? = nil, completion: CompletionKind? = nil,
        reload: SettingReload = .applied,
        rule: @escaping @Sendable (Given) throws(SettingProblem) -> Value
    ) where Value: Sendable & Equatable {
        self.init(
            name, flag: flag, type, summary: summary(), valueName: valueName, default: `default`,
            defaultText: defaultText(), completion: completion, reload: reload,
            rule: { value, _ throws(SettingProblem) in try rule(value) })
    }

    /// The same, for a rule that reads the environment too.
    init<Given>(
        _ name: String, flag: String, _ type: ValueType<Given>,
        summary: @autoclosure @escaping @Sendable () -> String, valueName: String = "",
        default: @escaping @Sendable ([String: String]) -> Given,
        defaultText: @autoclosure @escaping @Sendable () -> String? = nil, completion: CompletionKind? = nil,
        reload: SettingReload = .applied,
        rule: @escaping @Sendable (Given, [String: String]) throws(SettingProblem) -> Value
    ) where Value: Sendable & Equatable {
        super.init(
            name: name, flag: flag, type: type.type, summary: summary, valueName: valueName,
            defaultText: { defaultText() ?? type.show(`default`([:])) }, completion: completion, reload: reload,
            read: { input, environment throws(SettingProblem) in try rule(type.decode(input), environment) },
            standard: { environment throws(SettingProblem) in try rule(`default`(environment), environment) })
    }
}

/// What `systemctl reload` (SIGHUP) does with a setting whose value changed.
enum SettingReload: Sendable, Equatable {
    /// The running daemon takes the new value (``SyncEngine/reconfigure(_:repository:)``).
    case applied
    /// The value is read once at the start: the running one is kept, and the reload's log line
    /// names the setting (`restart_needed_for=`).
    case restartNeeded
}

/// What is wrong with a value, phrased to follow the setting's name: "must be between 1 and 30 (got 50)".
package struct SettingProblem: Error, Equatable {
    package let text: String
    init(_ text: String) { self.text = text }
}
