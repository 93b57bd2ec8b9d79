import Configuration

/// One setting's name in each place it can be given.
///
/// The configuration file uses ``name`` as a top-level key; the environment variable is
/// `PHOTOSYNC_` + the name in capitals, which is also what swift-configuration's
/// `EnvironmentVariablesProvider` derives for the key `photosync.<name>`.
struct SettingKey: Sendable, Hashable {
    /// The key in the configuration file, and in messages: `per_page`.
    let name: String
    /// The command-line flag: `--per-page`.
    let flag: String

    init(_ name: String, flag: String) {
        self.name = name
        self.flag = flag
    }

    var environmentVariable: String { "PHOTOSYNC_" + name.uppercased() }
    var configKey: ConfigKey { ConfigKey([name]) }
    var absoluteKey: AbsoluteConfigKey { AbsoluteConfigKey([name]) }
}
