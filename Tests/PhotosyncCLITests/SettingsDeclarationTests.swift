import ArgumentParser
import Foundation
import Testing

@testable import PhotosyncCLI

/// Each setting is declared once, in `AllSettings`; these check that everything else that
/// names a setting (flags, `--help`, the README, the example file) follows the declarations.
@Suite struct SettingsDeclarationTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A valid value of each setting, as its flag takes it.
    static let samples: [String: [String]] = [
        "database": ["/x.sqlite"], "api_base": ["https://x.test"], "sources": ["user:ann"], "per_page": ["3"],
        "variant": ["thumb"], "concurrency": ["2"], "poll_interval": ["60"], "allowed_image_hosts": ["x.test"],
        "download_tracking": [], "rate_limit_reserve": ["5"], "max_image_mib": ["7"],
        "metrics_listen": ["127.0.0.1:0"], "log_level": ["debug"],
        "storage_limit": ["5GB"], "min_free_disk": ["2GiB"], "mirror_client_keys": ["k1"],
        "mirror_rate_limit": ["50"], "mirror_image_urls": ["local"], "image_min_rate": ["1KB/s over 2s"],
        "photo_details": ["all"], "writer_lease": ["30"], "primary_database": ["postgres://sync@primary/photos"],
        "max_replica_lag": ["60"],
    ]

    @Test func namesAreUnique() {
        let settings = AllSettings.list
        #expect(settings.count == 23)
        #expect(Set(settings.map(\.name)).count == settings.count)
        #expect(Set(settings.map(\.flag)).count == settings.count)
        #expect(Set(settings.map(\.environmentVariable)).count == settings.count)
    }

    @Test func everyDefaultPassesItsOwnRule() throws {
        // Resolution runs each default through its rule; it would throw naming "default".
        let settings = try resolveSettings([])
        #expect(settings.database.description == "photosync.sqlite")
    }

    @Test func helpShowsEveryFlagWithItsDeclaredHelp() {
        let help = SettingsOptions.helpMessage(columns: 10_000)
        for setting in AllSettings.list {
            #expect(help.contains(setting.flag), "\(setting.flag)")
            #expect(help.contains("Env: \(setting.environmentVariable)"), "\(setting.name)")
            #expect(help.contains("Default: \(setting.defaultText)."), "\(setting.name)")
        }
        #expect(help.contains("--config"))
    }

    /// A flag's value reaches the resolver under its own setting's name, and no other.
    @Test func everyFlagIsWiredToItsSetting() throws {
        for setting in AllSettings.list {
            let sample = try #require(Self.samples[setting.name], "add a sample value for \(setting.name) here")
            let given = flags(of: try SettingsOptions.parse([setting.flag] + sample))
            #expect(Array(given.keys) == [setting.name], "\(setting.name)")
        }
    }

    /// The read-only commands take `--config` and `--database`, no more.
    @Test func readOnlyCommandsTakeTheDatabaseFlagOnly() throws {
        for setting in AllSettings.list {
            let arguments = [setting.flag] + Self.samples[setting.name, default: []]
            if setting.name == "database" {
                #expect(Array(flags(of: try DatabaseOptions.parse(arguments)).keys) == [setting.name])
            } else {
                #expect(throws: (any Error).self, "\(setting.name)") { try DatabaseOptions.parse(arguments) }
            }
        }
        #expect(try DatabaseOptions.parse(["--config", "/x.yaml"]).configPath == "/x.yaml")
    }

    /// `PHOTOSYNC_POLL_INTERVAL=9223372036854775807` must stop at startup (78), not overflow later.
    @Test func everyNumberHasAnUpperBound() {
        for setting in AllSettings.list where setting.type == .integer {
            let error = resolutionError(environment: [setting.environmentVariable: String(Int.max)])
            #expect(error?.kind == .invalidValue && error?.exitCode == .config, "\(setting.name)")
            #expect(error?.source == setting.environmentVariable, "\(setting.name)")
        }
    }

    @Test func readmeConfigurationTableIsGeneratedFromTheDeclarations() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").map(String.init)
        let header = "| setting | flag | environment variable | file key | default |"
        let expected = [header, "|---|---|---|---|---|"] + AllSettings.list.map(\.markdownRow)
        let start = try #require(
            rows.firstIndex(of: header), "README should hold:\n\(expected.joined(separator: "\n"))")
        let table = rows[start...].prefix { $0.hasPrefix("|") }
        #expect(Array(table) == expected, "README's table should be:\n\(expected.joined(separator: "\n"))")
    }

    /// The example file's commented-out values are the defaults, except `metrics_listen`'s,
    /// which shows an address since its default is off.
    @Test func exampleFileShowsEveryDefault() throws {
        let example = try String(
            contentsOf: Self.repository.appendingPathComponent("config/photosync.yaml"), encoding: .utf8)
        let declared = Set(AllSettings.list.map(\.name))
        // Uncomment `#key: value` and the `#  - item` lines of a list under it.
        let uncommented = example.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("#"), case let text = line.dropFirst() else { return nil }
            let key = text.prefix { $0 != ":" }
            return declared.contains(String(key)) && key != "metrics_listen" || text.hasPrefix("  - ")
                ? String(text) : nil
        }
        let directory = TemporaryDirectory()
        let file = directory.write("uncommented.yaml", uncommented.joined(separator: "\n") + "\n")
        let state = ["STATE_DIRECTORY": "/var/lib/photosync"]
        #expect(try resolveSettings(["--config", file], environment: state) == resolveSettings([], environment: state))
        #expect(uncommented.count == AllSettings.list.count - 1 + 2, "\(uncommented)")
    }

    @Test func exampleFileDocumentsEveryDeclaredSetting() throws {
        let example = try String(
            contentsOf: Self.repository.appendingPathComponent("config/photosync.yaml"), encoding: .utf8)
        for setting in AllSettings.list {
            #expect(example.contains("\n#\(setting.name):"), "\(setting.name)")
            #expect(example.contains(setting.flag), "\(setting.flag)")
            #expect(example.contains(setting.environmentVariable), "\(setting.environmentVariable)")
        }
    }
}
