import Foundation

/// Why photosync cannot start with the configuration it was given.
///
/// The description is one line that names where the bad value came from (a flag such as
/// `--per-page`, an environment variable such as `PHOTOSYNC_VARIANT`, or a file path), the setting
/// and the problem, e.g. `/etc/photosync/photosync.yaml: per_page must be between 1 and 30 (got 50)`.
/// It never contains the access key.
public struct ConfigurationError: Error, LocalizedError, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong, for choosing an exit code and for tests. New kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ description: String) { self.description = description }

        /// A setting has a value of the wrong type, out of range, or not among the allowed values.
        public static let invalidValue = Kind("invalid value")
        /// The configuration file names a setting photosync does not know.
        public static let unknownSetting = Kind("unknown setting")
        /// The configuration file is not valid YAML or not a mapping of settings.
        public static let malformedFile = Kind("malformed file")
        /// A file named by `--config`, `PHOTOSYNC_CONFIG` or `--access-key-file` does not exist.
        public static let missingFile = Kind("missing file")
        /// A file exists but cannot be read (permissions, a directory, too large, not UTF-8).
        public static let unreadableFile = Kind("unreadable file")
        /// No access key was given anywhere: a usage error.
        public static let missingAccessKey = Kind("missing access key")
        /// An access key was given but is empty or not a single token.
        public static let invalidAccessKey = Kind("invalid access key")
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
        kind == .missingAccessKey ? .usage : .config
    }
}
