import ArgumentParser
import Foundation
import Logging

/// Where the Unsplash access key was found. Safe to log: it never holds the key.
public enum AccessKeySource: Sendable, Equatable, CustomStringConvertible {
    /// `--access-key KEY`.
    case flag
    /// `--access-key-file PATH`.
    case file(path: String)
    /// The `UNSPLASH_ACCESS_KEY` environment variable.
    case environment
    /// A systemd credential: `$CREDENTIALS_DIRECTORY/access-key` (`LoadCredential=access-key:...`).
    case credential(path: String)

    public var description: String {
        switch self {
        case .flag: "--access-key"
        case .file(let path): "--access-key-file \(path)"
        case .environment: AccessKey.environmentVariable
        case .credential(let path): "systemd credential \(path)"
        }
    }
}

/// The Unsplash access key: a secret.
///
/// Its `description`, `debugDescription` and mirror are `<redacted>`, so interpolating it into
/// a log line or an error message, `dump`ing it or printing it in a test failure shows nothing.
/// Only ``value`` gives the key, for the `Authorization` header.
public struct AccessKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The environment variable read when no flag gives the key.
    public static let environmentVariable = "UNSPLASH_ACCESS_KEY"
    /// The systemd credential name: `LoadCredential=access-key:/path/to/file`.
    public static let credentialName = "access-key"

    /// The key itself. Never log it.
    public let value: String
    /// Where it came from.
    public let source: AccessKeySource

    public init(_ value: String, source: AccessKeySource) { (self.value, self.source) = (value, source) }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: ["source": source]) }

    /// Finds the key in, in order: `flag` (`--access-key`), the file at `file`
    /// (`--access-key-file`), `UNSPLASH_ACCESS_KEY` in `environment`, and
    /// `$CREDENTIALS_DIRECTORY/access-key`. The first place that has one is used; surrounding
    /// whitespace (a file's trailing newline) is trimmed.
    ///
    /// - Throws: ``ConfigurationError`` without the key in its message:
    ///   `.missingAccessKey` (exit 64) when no place has one; `.missingFile` or `.unreadableFile`
    ///   for an access key file that cannot be read; `.invalidAccessKey` (exit 78) when the
    ///   chosen value is empty or holds whitespace inside.
    public static func resolve(flag: String?, file: String?, environment: [String: String], logger: Logger? = nil)
        throws(ConfigurationError) -> AccessKey
    {
        let credential = environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
            .map { ($0.hasSuffix("/") ? $0 : $0 + "/") + credentialName }
        let (text, source): (String, AccessKeySource)
        if let flag {
            (text, source) = (flag, .flag)
        } else if let file {
            (text, source) = (try read(file, from: .file(path: file)), .file(path: file))
        } else if let value = environment[environmentVariable] {
            (text, source) = (value, .environment)
        } else if let credential, SmallFile.exists(credential) {
            (text, source) = (try read(credential, from: .credential(path: credential)), .credential(path: credential))
        } else {
            throw ConfigurationError(
                .missingAccessKey, source: nil,
                message: "no Unsplash access key: pass --access-key-file PATH, set \(environmentVariable), "
                    + "or give the systemd unit LoadCredential=\(credentialName):PATH "
                    + "(--access-key KEY works too, but shows the key to other users in the process list)")
        }
        let key = try validated(text, from: source)
        logger?.debug("access key found", metadata: ["source": "\(key.source)"])
        return key
    }

    private static func read(_ path: String, from source: AccessKeySource) throws(ConfigurationError) -> String {
        try SmallFile.text(of: path, what: "access key file", source: "\(source)")
    }

    fileprivate static func validated(_ raw: String, from source: AccessKeySource)
        throws(ConfigurationError) -> AccessKey
    {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else {
            throw ConfigurationError(.invalidAccessKey, source: "\(source)", message: "the access key is empty")
        }
        // A second line or a space means the wrong file (or two keys); the key cannot be sent as is.
        let isBlank = { (scalar: Unicode.Scalar) in
            CharacterSet.whitespacesAndNewlines.contains(scalar) || scalar.properties.generalCategory == .control
        }
        guard !value.unicodeScalars.contains(where: isBlank) else {
            throw ConfigurationError(
                .invalidAccessKey, source: "\(source)",
                message: "the access key must be a single word, without spaces or line breaks")
        }
        return AccessKey(value, source: source)
    }
}

/// The `--access-key` and `--access-key-file` flags, for `@OptionGroup` in commands that call
/// the API.
public struct AccessKeyOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("access-key"),
        help: ArgumentHelp(
            "Unsplash access key. Visible to other users in the process list: prefer --access-key-file, "
                + "UNSPLASH_ACCESS_KEY or a systemd credential.", valueName: "key"))
    public var accessKey: String?

    @Option(
        name: .customLong("access-key-file"),
        help: ArgumentHelp(
            "File holding the Unsplash access key. Otherwise: UNSPLASH_ACCESS_KEY, then "
                + "$CREDENTIALS_DIRECTORY/access-key (systemd LoadCredential=access-key:PATH).", valueName: "path"),
        completion: .file())
    public var accessKeyFile: String?

    public init() {}

    /// An empty or spaced `--access-key` is a usage error (exit 64), as any bad flag value is.
    public func validate() throws {
        guard let accessKey else { return }
        do { _ = try AccessKey.validated(accessKey, from: .flag) } catch { throw ValidationError(error.description) }
    }

    /// The key from these flags, `environment` or systemd's credentials directory.
    /// See ``AccessKey/resolve(flag:file:environment:logger:)``.
    public func resolve(environment: [String: String], logger: Logger? = nil) throws(ConfigurationError) -> AccessKey {
        try AccessKey.resolve(flag: accessKey, file: accessKeyFile, environment: environment, logger: logger)
    }
}
