/// photosync's version, defined here and nowhere else: `--version`, `status --json`, the HTTP
/// `User-Agent` and the Debian package (`packaging/deb/build` asks the binary) all read it.
/// CHANGELOG.md records what each version changed.
public enum PhotosyncVersion {
    /// Semantic versioning: `MAJOR.MINOR.PATCH`.
    public static let number = "0.4.0"
    /// The commit built from (12 hex digits), or `unknown` outside a git checkout.
    public static let commit = BuildInfo.commit
    /// What `photosync --version` prints: `photosync 0.4.0 (0123456789ab)`.
    public static var text: String { "photosync \(number) (\(commit))" }
    /// The HTTP `User-Agent` of every request photosync sends.
    public static var userAgent: String { "photosync/\(number)" }
}
