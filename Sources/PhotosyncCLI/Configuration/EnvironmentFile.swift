import Foundation

/// The file of `NAME=VALUE` lines that `PHOTOSYNC_ENVIRONMENT_FILE` names: variables `run` adds
/// to its environment at its start and again at each reload (SIGHUP), where systemd's own
/// `EnvironmentFile=` is read only when the service starts.
///
/// The syntax is the part of `EnvironmentFile=`'s that needs no shell: blank lines and lines
/// starting with `#` or `;` are skipped, and a value may be wrapped in single or double quotes,
/// which are removed. A variable in the file overrides the process's own.
enum EnvironmentFile {
    static let variable = "PHOTOSYNC_ENVIRONMENT_FILE"

    /// `process` with the variables of the file it names in `PHOTOSYNC_ENVIRONMENT_FILE`; `process`
    /// itself when it names none.
    ///
    /// - Throws: ``ConfigurationError`` naming the file: `.missingFile`, `.unreadableFile`, or
    ///   `.malformedFile` for a line that is not `NAME=VALUE`.
    static func environment(_ process: [String: String]) throws(ConfigurationError) -> [String: String] {
        guard let path = process[variable], !path.isEmpty else { return process }
        let text = try SmallFile.text(of: path, what: "environment file", source: path)
        var environment = process
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, let name = parts.first, name.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) != nil
            else {
                throw ConfigurationError(.malformedFile, source: path, message: "line \(number + 1) is not NAME=VALUE")
            }
            var value = Substring(parts[1])
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
            }
            environment[name] = String(value)
        }
        return environment
    }
}
