import Configuration
import Foundation
import Yams

/// photosync's YAML configuration file as a swift-configuration provider.
///
/// It parses with Yams, which swift-configuration's own `YAMLSnapshot` uses, and reads values
/// the way `YAMLSnapshot` does (Yams' constructor for integers). It adds errors
/// that name the file, a file holding only comments counts as empty (the example file ships
/// that way), and the list of keys the file sets, so that a misspelled setting is an error
/// instead of being ignored. Loading is synchronous, so settings can be resolved from
/// argument-parser's `validate()` or a non-async `run()`.
///
/// Why not `YAMLSnapshot` itself: it parses with Yams' default resolver, whose first use
/// compiles seven regular expressions through ICU to tag every scalar, about 1.5 ms of every
/// command run with a configuration file (a `photosync query` takes 25 ms). The tags are not
/// needed: each setting asks for the type it wants. So the parser runs with the basic
/// resolver, and the one place a tag matters, YAML 1.1's spellings of true and false, is
/// checked here.
struct ConfigurationFile: ConfigProvider {
    let path: String
    /// Every key the file sets, dot-separated for nested mappings, sorted.
    let keys: [String]
    private let values: [String: Value]

    /// A setting's value as written: one scalar or a list of them.
    private enum Value: Sendable {
        case scalar(Scalar)
        case list([Scalar])
    }

    /// A scalar's text, and whether it was written plain (unquoted): only a plain scalar may be
    /// a number or a boolean.
    private struct Scalar: Sendable {
        var text: String
        var isPlain: Bool

        init(_ scalar: Node.Scalar) {
            text = scalar.string
            isPlain = scalar.style == .plain || scalar.style == .any
        }

        /// For Yams' integer constructor, which reads the text and the style, not the tag.
        var node: Node.Scalar { Node.Scalar(text, Tag(.implicit), isPlain ? .plain : .doubleQuoted) }
    }

    var providerName: String { "ConfigurationFile[\(path)]" }

    /// Reads and parses the file at `path`.
    ///
    /// - Throws: ``ConfigurationError`` naming `path`: `.missingFile`, `.unreadableFile` or
    ///   `.malformedFile`.
    static func load(path: String) throws(ConfigurationError) -> ConfigurationFile {
        let text: String
        do {
            text = try SmallFile.text(of: path)
        } catch {
            switch error {
            case .missing:
                throw ConfigurationError(.missingFile, source: path, message: "configuration file does not exist")
            case .unreadable(let reason):
                throw ConfigurationError(.unreadableFile, source: path, message: "configuration file cannot be read: \(reason)")
            }
        }
        if hasNoContent(text) {
            return ConfigurationFile(path: path, keys: [], values: [:])
        }
        let root: Node?
        do {
            root = try Parser(yaml: text, resolver: .basic).singleRoot()
        } catch {
            throw ConfigurationError(.malformedFile, source: path, message: problem(error))
        }
        guard let mapping = root?.mapping else {
            throw ConfigurationError(.malformedFile, source: path, message: "not a mapping of setting names to values")
        }
        let values = try flatten(mapping, path: path)
        return ConfigurationFile(path: path, keys: values.keys.sorted(), values: values)
    }

    /// The file's values by dot-separated key, as `YAMLSnapshot` flattens nested mappings.
    private static func flatten(_ root: Node.Mapping, path: String) throws(ConfigurationError) -> [String: Value] {
        var values: [String: Value] = [:]
        var pending: [(prefix: [String], key: Node, value: Node)] = root.map { ([], $0.key, $0.value) }
        while !pending.isEmpty {
            let (prefix, key, value) = pending.removeFirst()
            guard let name = key.scalar?.string else {
                throw ConfigurationError(.malformedFile, source: path, message: "a key that is not text")
            }
            let components = prefix + [name]
            let dotted = components.joined(separator: ".")
            switch value {
            case .mapping(let mapping):
                pending += mapping.map { (components, $0.key, $0.value) }
            case .scalar(let scalar):
                values[dotted] = .scalar(Scalar(scalar))
            case .sequence(let sequence):
                var items: [Scalar] = []
                for item in sequence {
                    guard let scalar = item.scalar else {
                        throw ConfigurationError(.malformedFile, source: path, message: "\(dotted) holds a list or a mapping inside a list")
                    }
                    items.append(Scalar(scalar))
                }
                values[dotted] = .list(items)
            case .alias:
                // Yams puts the anchored node in an alias's place while parsing, so this is not
                // met; were it, guessing would be worse than saying so.
                throw ConfigurationError(.malformedFile, source: path, message: "\(dotted) is an alias, which photosync does not follow")
            }
        }
        return values
    }

    /// Whether the text holds nothing but blank lines, comments and document markers.
    private static func hasNoContent(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).allSatisfy { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed == "---" || trimmed == "..."
        }
    }

    /// Yams reports a parse error over several lines: `2:8: error: parser: what`, more
    /// explanation, then the offending line and a caret (or `Context:` and the lines). The
    /// explanation is kept, on one line; the quoted file content is not.
    static func problem(_ error: any Error) -> String {
        let text = String(describing: error)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let context = lines.firstIndex(where: { $0.hasPrefix("Context:") }) {
            lines.removeSubrange(context...)
        } else if lines.count >= 3, lines.last?.trimmingCharacters(in: .whitespaces) == "^" {
            lines.removeLast(2)
        }
        if let first = lines.first, let match = first.firstMatch(of: #/^(\d+):(\d+): error: [a-z]+: /#) {
            lines[0] = "line \(match.1), column \(match.2): " + first[match.range.upperBound...]
        }
        return "not valid YAML: " + lines
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .map { $0.hasSuffix(":") ? String($0.dropLast()) : $0 }
            .filter { !$0.isEmpty }
            .joined(separator: ": ")
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let encodedKey = key.components.joined(separator: ".")
        guard let value = values[encodedKey] else {
            return LookupResult(encodedKey: encodedKey, value: nil)
        }
        return LookupResult(encodedKey: encodedKey, value: ConfigValue(try Self.content(value, as: type, key: encodedKey), isSecret: false))
    }

    /// `value` as `type`, converted as `YAMLSnapshot` converts it. Only the types a setting
    /// asks for (see `SettingType`) are read; any other is a mismatch.
    private static func content(_ value: Value, as type: ConfigType, key: String) throws -> ConfigContent {
        switch (type, value) {
        case (.string, .scalar(let scalar)):
            return .string(scalar.text)
        case (.int, .scalar(let scalar)):
            if let int = Int.construct(from: scalar.node) { return .int(int) }
        case (.bool, .scalar(let scalar)):
            if let bool = boolean(scalar) { return .bool(bool) }
        case (.stringArray, .list(let items)):
            return .stringArray(items.map(\.text))
        default:
            break
        }
        throw ConfigurationFileMismatch(key: key, type: type)
    }

    /// YAML 1.1's booleans as Yams' default resolver spells them: only these, and only plain.
    private static func boolean(_ scalar: Scalar) -> Bool? {
        guard scalar.isPlain else { return nil }
        switch scalar.text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    // swift-configuration is built with NonisolatedNonsendingByDefault; this module is not, so
    // the handlers' isolation is spelled out to match the protocol.
    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { self }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

extension ConfigurationFile: ConfigSnapshot {}

/// A value of the file that is not of the type its setting asks for; the settings turn it into
/// a ``ConfigurationError`` that says what was expected.
struct ConfigurationFileMismatch: Error, CustomStringConvertible {
    let key: String
    let type: ConfigType

    var description: String { "\(key) is not a \(type)" }
}
