import Foundation

/// Why photosync cannot start with the configuration it was given.
///
/// The description is one line that names where the bad value came from (a flag such as
/// `--per-page`, an environment variable such as `PHOTOSYNC_VARIANT`, or a file path), the setting
/// and the problem, e.g. `/etc/photosync/photosync.yaml: per_page must be between 1 and 30 (got 50)`.
/// It never contains the access key.
public struct ConfigurationError: Error, LocalizedError, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong, for choosing an exit code (``exitCode`` switches over every kind, so a
    /// new one does not compile until it has its code) and for tests.
    public enum Kind: Hashable, Sendable {
        /// A setting has a value of the wrong type, out of range, or not among the allowed values.
        case invalidValue
        /// The configuration file names a setting photosync does not know.
        case unknownSetting
        /// The configuration file is not valid YAML or not a mapping of settings.
        case malformedFile
        /// A file named by `--config`, `PHOTOSYNC_CONFIG` or `--access-key-file` does not exist.
        case missingFile
        /// A file exists but cannot be read (permissions, a directory, too large, not UTF-8).
        case unreadableFile
        /// No access key was given anywhere: a usage error.
        case missingAccessKey
        /// An access key was given but is empty or not a single token.
        case invalidAccessKey
    }

    public var kind: Kind
    /// Where the problem is: a flag (`--per-page`), an environment variable, a file path; `nil`
    /// when it is nowhere in particular (a missing access key).
    public var source: String?
    /// The problem, naming the setting, without the source.
    public var message: String

    public init(_ kind: Kind, source: String?, message: String) {
        self.kind = kind
        self.source = source
        self.message = message
    }

    public var description: String {
        guard let source else { return message }
        return "\(source): \(message)"
    }

    public var errorDescription: String? { description }

    /// `usage` (64) when the access key is missing altogether, `config` (78) for everything else.
    public var exitCode: PhotosyncExitCode {
        switch kind {
        case .missingAccessKey: .usage
        case .invalidValue, .unknownSetting, .malformedFile, .missingFile, .unreadableFile, .invalidAccessKey: .config
        }
    }
}
