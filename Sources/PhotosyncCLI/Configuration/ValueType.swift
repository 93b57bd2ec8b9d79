import Foundation
import Yams

/// A value as a source wrote it, before its setting reads it.
enum SettingInput: Sendable, Equatable {
    /// A flag's or an environment variable's text.
    case text(String)
    /// A configuration file's scalar; only a plain (unquoted) one can be a number or a boolean.
    case yaml(String, plain: Bool)
    /// Repeated flags, a comma-separated variable of a list setting, or a YAML list.
    case list([String])
}

/// How a setting's sources write its value.
enum SettingType: Sendable, Equatable {
    case text, integer, boolean, list
    /// Names, given as a list or as one value, and comma-separated anywhere: `regular,thumb`.
    case names

    var isList: Bool { self == .list || self == .names }
}

/// Reads a ``SettingInput`` as the Swift type a setting's rule takes.
struct ValueType<Given>: Sendable {
    let type: SettingType
    /// A value as `--help` and the README show a default.
    let show: @Sendable (Given) -> String
    let decode: @Sendable (SettingInput) throws(SettingProblem) -> Given
}

extension ValueType where Given == String {
    static var text: Self {
        Self(
            type: .text, show: { $0 },
            decode: { input throws(SettingProblem) in
                guard let text = input.single else { throw SettingProblem("must be a single value, not a list") }
                return text
            })
    }
}

extension ValueType where Given == Int {
    static var integer: Self {
        Self(
            type: .integer, show: { "\($0)" },
            decode: { input throws(SettingProblem) in
                switch input {
                case .text(let text): if let number = Int(text) { return number }
                // YAML's forms too (0x1e, 1_000), read as Yams' own constructor reads them.
                case .yaml(let text, plain: true):
                    if let number = Int.construct(from: Node.Scalar(text)) { return number }
                case .yaml, .list: break
                }
                throw SettingProblem("must be a whole number" + input.got)
            })
    }
}

extension ValueType where Given == Bool {
    static var boolean: Self {
        Self(
            type: .boolean, show: { $0 ? "on" : "off" },
            decode: { input throws(SettingProblem) in
                switch input {
                // As swift-configuration reads an environment variable.
                case .text(let text):
                    if ["true", "yes", "1"].contains(text.lowercased()) { return true }
                    if ["false", "no", "0"].contains(text.lowercased()) { return false }
                // YAML 1.1's booleans as Yams' default resolver spells them: only these, and only plain.
                case .yaml(let text, plain: true):
                    if ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"].contains(text) { return true }
                    if ["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"].contains(text) {
                        return false
                    }
                case .yaml, .list: break
                }
                throw SettingProblem("must be true or false" + input.got)
            })
    }
}

extension ValueType where Given == [String] {
    /// `what` completes "must be ...": "a list of host names".
    static func list(of what: String) -> Self {
        Self(
            type: .list, show: { $0.joined(separator: ", ") },
            decode: { input throws(SettingProblem) in
                guard case .list(let list) = input else { throw SettingProblem("must be \(what)" + input.got) }
                return list
            })
    }

    static var names: Self {
        Self(
            type: .names, show: { $0.joined(separator: ",") },
            decode: { input in
                (input.single.map { [$0] } ?? input.list)
                    .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            })
    }
}

extension SettingInput {
    /// The text of a single value; nil for a list.
    fileprivate var single: String? {
        switch self {
        case .text(let text), .yaml(let text, _): text
        case .list: nil
        }
    }

    fileprivate var list: [String] {
        if case .list(let list) = self { list } else { [] }
    }

    /// " (got "text")" for a single value, to end a message with.
    fileprivate var got: String { single.map { " (got \(SettingRules.quoted($0)))" } ?? "" }
}
