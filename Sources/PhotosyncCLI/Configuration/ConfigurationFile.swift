import Foundation
import Yams

/// photosync's YAML configuration file: each key it sets, with the value as written.
///
/// Errors name the file, a file holding only comments counts as empty (the example file ships
/// that way), and nested keys are listed dot-separated (`database.path`) so that the resolver
/// can refuse them as unknown. Loading is synchronous, so flags can be checked from
/// argument-parser's `validate()`.
///
/// Yams runs with its basic resolver: the default one compiles seven regular expressions
/// through ICU on first use to tag every scalar, about 1.5 ms of every command run with a
/// configuration file (a `photosync query` takes 25 ms). Tags are not needed: each setting reads
/// the type it wants (``ValueType``), and keeps a scalar's plainness for numbers and booleans.
struct ConfigurationFile {
    let path: String
    /// Every key the file sets (dot-separated for nested mappings), with its value.
    let values: [String: SettingInput]

    /// Reads and parses the file at `path`.
    ///
    /// - Throws: ``ConfigurationError`` naming `path`: `.missingFile`, `.unreadableFile` or
    ///   `.malformedFile`.
    static func load(path: String) throws(ConfigurationError) -> ConfigurationFile {
        let text = try SmallFile.text(of: path, what: "configuration file", source: path)
        let hasNoContent = text.split(whereSeparator: \.isNewline).allSatisfy { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed == "---" || trimmed == "..."
        }
        if hasNoContent { return ConfigurationFile(path: path, values: [:]) }
        let root: Node?
        do {
            root = try Parser(yaml: text, resolver: .basic).singleRoot()
        } catch {
            throw ConfigurationError(.malformedFile, source: path, message: problem(error))
        }
        guard let mapping = root?.mapping else {
            throw ConfigurationError(.malformedFile, source: path, message: "not a mapping of setting names to values")
        }
        var values: [String: SettingInput] = [:]
        try flatten(mapping, prefix: "", into: &values, path: path)
        return ConfigurationFile(path: path, values: values)
    }

    private static func flatten(
        _ mapping: Node.Mapping, prefix: String, into values: inout [String: SettingInput], path: String
    ) throws(ConfigurationError) {
        for (key, value) in mapping {
            guard let name = key.scalar?.string else {
                throw ConfigurationError(.malformedFile, source: path, message: "a key that is not text")
            }
            let key = prefix + name
            switch value {
            case .mapping(let nested):
                try flatten(nested, prefix: key + ".", into: &values, path: path)
            case .scalar(let scalar):
                values[key] = .yaml(scalar.string, plain: scalar.style == .plain || scalar.style == .any)
            case .sequence(let sequence):
                let items = sequence.compactMap(\.scalar?.string)
                guard items.count == sequence.count else {
                    throw ConfigurationError(
                        .malformedFile, source: path, message: "\(key) holds a list or a mapping inside a list")
                }
                values[key] = .list(items)
            case .alias:
                // Yams puts the anchored node in an alias's place while parsing, so this is not
                // met; were it, guessing would be worse than saying so.
                throw ConfigurationError(
                    .malformedFile, source: path, message: "\(key) is an alias, which photosync does not follow")
            }
        }
    }

    /// Yams reports a parse error over several lines: `2:8: error: parser: what`, more
    /// explanation, then the offending line and a caret (or `Context:` and the lines). The
    /// explanation is kept, on one line; the quoted file content is not.
    static func problem(_ error: any Error) -> String {
        var lines = String(describing: error).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let context = lines.firstIndex(where: { $0.hasPrefix("Context:") }) {
            lines.removeSubrange(context...)
        } else if lines.count >= 3, lines.last?.trimmingCharacters(in: .whitespaces) == "^" {
            lines.removeLast(2)
        }
        if let first = lines.first, let match = first.firstMatch(of: #/^(\d+):(\d+): error: [a-z]+: /#) {
            lines[0] = "line \(match.1), column \(match.2): " + first[match.range.upperBound...]
        }
        return "not valid YAML: "
            + lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .map { $0.hasSuffix(":") ? String($0.dropLast()) : $0 }
            .filter { !$0.isEmpty }.joined(separator: ": ")
    }
}
