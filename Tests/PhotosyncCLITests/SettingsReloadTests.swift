import Foundation
import Testing

@testable import PhotosyncCLI

/// What a reload may change is a property of each setting's declaration: the reloader, the
/// log line and OPERATIONS.md all follow it.
@Suite struct SettingsReloadTests {
    static let restartNeeded = AllSettings.list.filter { $0.reload == .restartNeeded }.map(\.name)

    @Test func aReloadNamesTheChangedSettingsThatNeedARestartAndNoOthers() throws {
        let running = try resolveSettings([])
        let reloaded = try resolveSettings([
            "--log-level", "debug", "--metrics-listen", "127.0.0.1:0", "--concurrency", "2", "--source", "user:ann",
        ])
        #expect(ConfigurationReloader.restartNeeded(from: running, to: reloaded) == ["metrics_listen", "log_level"])
        #expect(ConfigurationReloader.restartNeeded(from: running, to: try resolveSettings([])).isEmpty)
    }

    @Test func eachSettingThatNeedsARestartDoesSoForAnyChangeOfItsValue() throws {
        let running = try resolveSettings([])
        let changes: [String: [String]] = [
            "database": ["--database", "/elsewhere.sqlite"], "api_base": ["--api-base", "https://x.test"],
            "allowed_image_hosts": ["--allowed-image-host", "x.test"],
            "rate_limit_reserve": ["--rate-limit-reserve", "7"],
            "max_image_mib": ["--max-image-mib", "7"], "metrics_listen": ["--metrics-listen", "127.0.0.1:0"],
            "log_level": ["--log-level", "debug"], "writer_lease": ["--writer-lease", "30"],
        ]
        #expect(Set(changes.keys) == Set(Self.restartNeeded))
        for (name, arguments) in changes {
            #expect(ConfigurationReloader.restartNeeded(from: running, to: try resolveSettings(arguments)) == [name])
        }
    }

    @Test func operationsGuideListsTheSettingsThatNeedARestart() throws {
        let guide = try String(
            contentsOf: SettingsDeclarationTests.repository.appendingPathComponent("docs/OPERATIONS.md"),
            encoding: .utf8)
        let line = guide.replacingOccurrences(of: "\n  ", with: " ")
        let names = Self.restartNeeded.map { "`\($0)`" }
        let expected = names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        #expect(line.contains("What needs a restart: \(expected)."), "OPERATIONS.md should say: \(expected)")
    }
}
