import ArgumentParser
import Foundation
import PhotoStore

/// The options of the read-only commands: which database to read.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database"), help: SettingsOptions.databaseHelp, completion: .file())
    var databasePath: String?

    @Option(name: .customLong("config"), help: SettingsOptions.configHelp, completion: .file(extensions: ["yaml", "yml"]))
    var configPath: String?

    /// The database `run` would write, resolved as `run` resolves it, opened read-only.
    func openStore(environment: [String: String]) throws -> PhotoStore {
        // Parsed rather than assigned: a ParsableArguments value must come from parsing.
        let arguments = (databasePath.map { ["--database", $0] } ?? []) + (configPath.map { ["--config", $0] } ?? [])
        let settings = try SettingsOptions.parse(arguments)
        let path = try SettingsResolver(environment: environment).resolve(settings).databasePath
        return try PhotoStore.openExisting(path: path)
    }
}
