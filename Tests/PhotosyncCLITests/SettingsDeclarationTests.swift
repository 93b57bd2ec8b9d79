import ArgumentParser
import Foundation
@testable import PhotosyncCLI
import Testing

/// Each setting is declared once, in `AllSettings`; these check that everything else that
/// names a setting (flags, `--help`, the README, the example file) follows the declarations.
@Suite struct SettingsDeclarationTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func namesAreUnique() {
        let keys = AllSettings.declarations.map(\.key)
        #expect(Set(keys.map(\.name)).count == keys.count)
        #expect(Set(keys.map(\.flag)).count == keys.count)
        #expect(Set(keys.map(\.environmentVariable)).count == keys.count)
    }

    @Test func everyDefaultPassesItsOwnRule() throws {
        // Resolution runs each default through its rule; it would throw naming "default".
        let settings = try resolveSettings([])
        #expect(settings == Settings(databasePath: Settings.defaultDatabaseFileName))
    }

    @Test func helpShowsEveryFlagWithItsDeclaredHelp() {
        let help = SettingsOptions.helpMessage(columns: 10_000)
        for setting in AllSettings.declarations {
            #expect(help.contains(setting.key.flag), "\(setting.key.flag)")
            #expect(help.contains("Env: \(setting.key.environmentVariable)"), "\(setting.key.name)")
            #expect(help.contains("Default: \(setting.defaultText)."), "\(setting.key.name)")
        }
    }

    /// A flag's value reaches the resolver under the setting's own key.
    @Test func everyFlagIsWiredToItsSetting() throws {
        let samples: [String: [String]] = [
            "database": ["/x.sqlite"], "api_base": ["https://x.test"], "sources": ["user:ann"], "per_page": ["3"], "variant": ["thumb"],
            "concurrency": ["2"], "poll_interval": ["60"], "allowed_image_hosts": ["x.test"], "download_tracking": [],
            "rate_limit_reserve": ["5"], "max_image_mib": ["7"], "metrics_listen": ["127.0.0.1:0"], "log_level": ["debug"],
        ]
        for setting in AllSettings.declarations {
            let sample = try #require(samples[setting.key.name], "add a sample value for \(setting.key.name) here")
            let options = try SettingsOptions.parse([setting.key.flag] + sample)
            #expect(options.configValues.count == 1 && options.configValues[setting.key.absoluteKey] != nil, "\(setting.key.name)")
        }
    }

    @Test func readmeConfigurationTableListsEveryDeclaredSetting() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").map(String.init)
        let header = try #require(rows.firstIndex(of: "| setting | flag | environment variable | file key | default |"))
        let table = rows[(header + 2)...].prefix { $0.hasPrefix("|") }
        let expected = AllSettings.declarations.map(\.markdownRow)
        #expect(Array(table) == expected, "README's table should be:\n\(expected.joined(separator: "\n"))")
    }

    @Test func exampleFileDocumentsEveryDeclaredSetting() throws {
        let example = try String(contentsOf: Self.repository.appendingPathComponent("config/photosync.yaml"), encoding: .utf8)
        for setting in AllSettings.declarations {
            #expect(example.contains("\n#\(setting.key.name):"), "\(setting.key.name)")
            #expect(example.contains(setting.key.flag), "\(setting.key.flag)")
            #expect(example.contains(setting.key.environmentVariable), "\(setting.key.environmentVariable)")
        }
    }
}
