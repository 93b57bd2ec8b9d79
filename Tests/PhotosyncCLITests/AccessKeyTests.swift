import Foundation
import Logging
import PhotosyncCLI
import TestSupport
import Testing

@Suite struct AccessKeyTests {
    /// Every source holds a different key; the directory holds the file and the credential.
    struct Sources {
        let directory = TemporaryDirectory()
        let file: String
        let credentials: String

        init() {
            file = directory.write("key-file", "key-from-file\n")
            credentials = directory.path + "/credentials"
            try! FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
            try! "key-from-credential\n".write(toFile: credentials + "/access-key", atomically: false, encoding: .utf8)
        }

        var environment: [String: String] {
            ["UNSPLASH_ACCESS_KEY": "key-from-environment", "CREDENTIALS_DIRECTORY": credentials]
        }
    }

    @Test func flagBeatsFileBeatsEnvironmentBeatsCredential() throws {
        let sources = Sources()

        let fromFlag = try AccessKey.resolve(
            flag: "key-from-flag", file: sources.file, environment: sources.environment)
        #expect(fromFlag.value == "key-from-flag")
        #expect(fromFlag.source == .flag)

        let fromFile = try AccessKey.resolve(flag: nil, file: sources.file, environment: sources.environment)
        #expect(fromFile.value == "key-from-file")
        #expect(fromFile.source == .file(path: sources.file))

        let fromEnvironment = try AccessKey.resolve(flag: nil, file: nil, environment: sources.environment)
        #expect(fromEnvironment.value == "key-from-environment")
        #expect(fromEnvironment.source == .environment)

        let fromCredential = try AccessKey.resolve(
            flag: nil, file: nil, environment: ["CREDENTIALS_DIRECTORY": sources.credentials])
        #expect(fromCredential.value == "key-from-credential")
        #expect(fromCredential.source == .credential(path: sources.credentials + "/access-key"))
    }

    @Test func optionsParseBothFlags() throws {
        let sources = Sources()
        let options = try AccessKeyOptions.parse(["--access-key-file", sources.file])
        #expect(try options.resolve(environment: [:]).value == "key-from-file")
        #expect(try AccessKeyOptions.parse(["--access-key", "k"]).resolve(environment: [:]).value == "k")
    }

    @Test func missingEverywhereIsAUsageError() throws {
        let directory = TemporaryDirectory()
        // A credentials directory without an access-key credential counts as no key.
        let error = try #require(throws: ConfigurationError.self) {
            try AccessKey.resolve(flag: nil, file: nil, environment: ["CREDENTIALS_DIRECTORY": directory.path])
        }
        #expect(error.kind == .missingAccessKey)
        #expect(error.exitCode == .usage)
        for option in ["--access-key-file", "UNSPLASH_ACCESS_KEY", "LoadCredential=access-key"] {
            #expect(error.description.contains(option))
        }
    }

    @Test func unreadableOrMissingKeyFileNamesThePath() throws {
        let directory = TemporaryDirectory()
        let missing = directory.missing("key")
        let missingError = try #require(throws: ConfigurationError.self) {
            try AccessKey.resolve(flag: nil, file: missing, environment: ["UNSPLASH_ACCESS_KEY": "ignored"])
        }
        #expect(missingError.kind == .missingFile)
        #expect(missingError.description == "--access-key-file \(missing): access key file does not exist")
        #expect(missingError.exitCode == .config)

        let unreadable = try #require(throws: ConfigurationError.self) {
            try AccessKey.resolve(flag: nil, file: directory.path, environment: [:])
        }
        #expect(unreadable.kind == .unreadableFile)
        #expect(
            unreadable.description.hasPrefix("--access-key-file \(directory.path): access key file cannot be read: "))
        #expect(unreadable.exitCode == .config)
    }

    @Test func emptyKeyIsAConfigurationError() throws {
        let directory = TemporaryDirectory()
        let empty = directory.write("empty", "\n")
        let fromFile = try #require(throws: ConfigurationError.self) {
            try AccessKey.resolve(flag: nil, file: empty, environment: [:])
        }
        #expect(fromFile.kind == .invalidAccessKey)
        #expect(fromFile.exitCode == .config)
        #expect(fromFile.description == "--access-key-file \(empty): the access key is empty")

        let fromEnvironment = try #require(throws: ConfigurationError.self) {
            try AccessKey.resolve(flag: nil, file: nil, environment: ["UNSPLASH_ACCESS_KEY": ""])
        }
        #expect(fromEnvironment.description == "UNSPLASH_ACCESS_KEY: the access key is empty")
    }

    /// Every way the key could reach a message: errors about a key that was found, its
    /// descriptions, the resolver's own logging at trace level, and logging the value itself.
    @Test func keyNeverAppearsInErrorsOrLogs() throws {
        let secret = "S3cr3tAcc3ssK3y"
        let directory = TemporaryDirectory()
        let twoLines = directory.write("two-lines", "\(secret)\nsecond-line\n")
        let spaced = "\(secret) \(secret)"

        let errors = [
            try #require(throws: ConfigurationError.self) {
                try AccessKey.resolve(flag: nil, file: twoLines, environment: [:])
            },
            try #require(throws: ConfigurationError.self) {
                try AccessKey.resolve(flag: spaced, file: nil, environment: [:])
            },
            try #require(throws: ConfigurationError.self) {
                try AccessKey.resolve(flag: nil, file: nil, environment: ["UNSPLASH_ACCESS_KEY": spaced])
            },
        ]
        for error in errors {
            #expect(error.kind == .invalidAccessKey)
            #expect(!error.description.contains(secret))
            #expect(!"\(error)".contains(secret))
            #expect(!(error.errorDescription ?? "").contains(secret))
        }

        let capture = LogCapture()
        let lines = CollectedLines()
        var daemonLogger = Logger(
            label: "test", factory: DaemonLogHandler.factory(level: .trace, format: .terminal, output: lines.output))
        daemonLogger.logLevel = .trace
        let key = try AccessKey.resolve(
            flag: nil, file: nil, environment: ["UNSPLASH_ACCESS_KEY": secret], logger: capture.logger(level: .trace))
        #expect(key.value == secret)
        for logger in [capture.logger(level: .trace), daemonLogger] {
            logger.trace("access key \(key)", metadata: ["key": "\(key)", "debug": "\(String(reflecting: key))"])
        }
        var dumped = ""
        dump(key, to: &dumped)

        for text in [capture.text, lines.text, key.description, key.debugDescription, String(reflecting: key), dumped] {
            #expect(!text.contains(secret))
        }
        #expect(capture.text.contains("<redacted>"))
        #expect(capture.text.contains("UNSPLASH_ACCESS_KEY"))
    }
}
