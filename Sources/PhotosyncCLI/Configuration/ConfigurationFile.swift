import Configuration
import Foundation
import Synchronization

/// photosync's YAML configuration file as a swift-configuration provider.
///
/// It parses with swift-configuration's `YAMLSnapshot`, and adds what `FileProvider<YAMLSnapshot>`
/// does not: errors that name the file, a file holding only comments counts as empty (the
/// example file ships that way), and the list of keys the file sets, so that a misspelled
/// setting is an error instead of being ignored. Loading is synchronous, so settings can be
/// resolved from argument-parser's `validate()` or a non-async `run()`.
struct ConfigurationFile: ConfigProvider {
    let path: String
    /// Every key the file sets, dot-separated for nested mappings, sorted.
    let keys: [String]
    private let yaml: YAMLSnapshot

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

        // YAMLSnapshot is the only thing that visits every key, and it asks the secrets specifier
        // about each one as it parses: that is where the keys are collected.
        let seen = Mutex<[String]>([])
        let options = YAMLSnapshot.ParsingOptions(secretsSpecifier: .dynamic { key, _ in
            seen.withLock { $0.append(key) }
            return false
        })
        // An empty YAML stream has no root node, which YAMLSnapshot rejects as "not a mapping".
        let document = hasNoContent(text) ? "{}" : text
        let yaml: YAMLSnapshot
        do {
            yaml = try YAMLSnapshot(data: Data(document.utf8).bytes, providerName: "YAMLSnapshot[\(path)]", parsingOptions: options)
        } catch {
            throw ConfigurationError(.malformedFile, source: path, message: problem(error))
        }
        return ConfigurationFile(path: path, keys: seen.withLock { $0 }.sorted(), yaml: yaml)
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
        // YAMLSnapshot's own complaint about valid YAML of the wrong shape.
        if text.contains("Top level YAML value is not a mapping") {
            return "not a mapping of setting names to values"
        }
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
        try yaml.value(forKey: key, type: type)
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

    func snapshot() -> any ConfigSnapshot { yaml }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}
