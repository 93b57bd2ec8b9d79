import ArgumentParser
import Foundation
import Testing

@testable import PhotosyncCLI

/// The error resolving fails with, or a test failure if it succeeds.
func resolutionError(
    _ arguments: [String] = [],
    environment: [String: String] = [:],
    defaultConfigurationPath: String = "/nonexistent/photosync-tests/photosync.yaml",
    sourceLocation: SourceLocation = #_sourceLocation
) -> ConfigurationError? {
    #expect(throws: ConfigurationError.self, sourceLocation: sourceLocation) {
        try resolveSettings(arguments, environment: environment, defaultConfigurationPath: defaultConfigurationPath)
    }
}

/// The error for a configuration file holding `yaml`, and that file's path.
func fileError(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> (ConfigurationError?, String) {
    let directory = TemporaryDirectory()
    let path = directory.write("photosync.yaml", yaml)
    return (resolutionError(["--config", path], sourceLocation: sourceLocation), path)
}

@Suite struct SettingsErrorTests {
    // MARK: The file itself

    @Test func malformedYAMLNamesTheFile() throws {
        let (error, path) = fileError("per_page: [1, 2\nvariant: raw\n")
        let found = try #require(error)
        #expect(found.kind == .malformedFile)
        #expect(found.source == path)
        #expect(found.description.hasPrefix("\(path): not valid YAML: line 2, column 8: "))
        #expect(found.description.hasSuffix("did not find expected ',' or ']'"))
        // One line, and no quoted file content (a misplaced secret would be echoed).
        #expect(!found.description.contains("\n"))
        #expect(!found.description.contains("variant: raw"))
    }

    @Test func duplicateKeyIsMalformed() {
        let (error, path) = fileError("per_page: 1\nper_page: 2\n")
        #expect(error?.kind == .malformedFile)
        #expect(error?.description.hasPrefix("\(path): not valid YAML: ") == true)
        #expect(error?.description.contains("per_page") == true)
    }

    @Test func fileThatIsNotAMappingIsMalformed() throws {
        let (error, path) = fileError("- per_page\n- variant\n")
        #expect(error?.kind == .malformedFile)
        #expect(error?.description == "\(path): not a mapping of setting names to values")
    }

    @Test func unknownKeyIsRejectedWithASuggestion() throws {
        let (error, path) = fileError("per_page: 10\nconcurency: 4\n")
        #expect(error?.kind == .unknownSetting)
        #expect(error?.description == "\(path): unknown setting \"concurency\" (did you mean \"concurrency\"?)")
    }

    @Test func nestedKeyUnderAKnownNameIsUnknown() {
        let (error, _) = fileError("database:\n  path: /x.sqlite\n")
        #expect(error?.kind == .unknownSetting)
        #expect(error?.message.contains("\"database.path\"") == true)
    }

    @Test(arguments: ["\"true\"", "'off'", "yEs", "1", "[true]"])
    func onlyYAMLsPlainBooleansAreBooleans(text: String) {
        // GIVEN a quoted boolean, an odd spelling, a number or a list
        let (error, path) = fileError("download_tracking: \(text)\n")
        // THEN it is not taken for true or false
        #expect(error?.kind == .invalidValue)
        #expect(error?.source == path)
        #expect(
            error?.message.hasPrefix("download_tracking must be true or false") == true, "\(String(describing: error))")
    }

    @Test func explicitConfigFileMustExist() throws {
        let directory = TemporaryDirectory()
        let missing = directory.missing()

        let fromFlag = resolutionError(["--config", missing])
        #expect(fromFlag?.kind == .missingFile)
        #expect(fromFlag?.description == "\(missing): configuration file named by --config does not exist")

        let fromVariable = resolutionError(environment: ["PHOTOSYNC_CONFIG": missing])
        #expect(fromVariable?.description == "\(missing): configuration file named by PHOTOSYNC_CONFIG does not exist")
    }

    @Test func unreadableConfigFileNamesTheFile() {
        let directory = TemporaryDirectory()
        // A directory in place of the file: open succeeds, read fails (EISDIR), even as root.
        let error = resolutionError(["--config", directory.path])
        #expect(error?.kind == .unreadableFile)
        #expect(error?.description.hasPrefix("\(directory.path): configuration file cannot be read: ") == true)
    }

    // MARK: Values, naming where they came from

    @Test func perPageOutOfRangeInFile() {
        let (error, path) = fileError("per_page: 50\n")
        #expect(error?.kind == .invalidValue)
        #expect(error?.description == "\(path): per_page must be between 1 and 30 (got 50)")
        #expect(error?.exitCode == .config)
    }

    @Test func concurrencyOutOfRangeInEnvironment() {
        let error = resolutionError(environment: ["PHOTOSYNC_CONCURRENCY": "17"])
        #expect(error?.description == "PHOTOSYNC_CONCURRENCY: concurrency must be between 1 and 16 (got 17)")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_CONCURRENCY": "0"])?.message
                == "concurrency must be between 1 and 16 (got 0)")
    }

    @Test func pollIntervalTooShort() {
        let (error, path) = fileError("poll_interval: 9\n")
        #expect(error?.description == "\(path): poll_interval must be at least 10 seconds (got 9)")
    }

    @Test func rateLimitReserveOutOfRange() {
        #expect(
            resolutionError(environment: ["PHOTOSYNC_RATE_LIMIT_RESERVE": "1001"])?.description
                == "PHOTOSYNC_RATE_LIMIT_RESERVE: rate_limit_reserve must be between 0 and 1000 (got 1001)")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_RATE_LIMIT_RESERVE": "-1"])?.message
                == "rate_limit_reserve must be between 0 and 1000 (got -1)")
    }

    @Test func badVariant() {
        #expect(
            resolutionError(environment: ["PHOTOSYNC_VARIANT": "huge"])?.description
                == "PHOTOSYNC_VARIANT: variant must be one of raw, full, regular, small, thumb, or none (got \"huge\")")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_VARIANT": "regular,none"])?.message
                == "variant none cannot be combined with image sizes")
        #expect(
            fileError("variant: [regular, huge]\n").0?.message
                == "variant must be one of raw, full, regular, small, thumb, or none (got \"huge\")")
    }

    @Test func badLogLevel() {
        let (error, path) = fileError("log_level: verbose\n")
        #expect(
            error?.description
                == "\(path): log_level must be one of trace, debug, info, notice, warning, error, critical (got \"verbose\")"
        )
    }

    @Test(arguments: [
        "ftp://api.unsplash.com", "api.unsplash.com", "/relative", "https://", "https://user:secret@api.unsplash.com",
    ])
    func badAPIBase(_ value: String) {
        let error = resolutionError(environment: ["PHOTOSYNC_API_BASE": value])
        #expect(error?.kind == .invalidValue)
        #expect(error?.source == "PHOTOSYNC_API_BASE")
        #expect(error?.message.hasPrefix("api_base must") == true)
        #expect(error?.description.contains("secret") == false)
    }

    /// Every API request carries the key: cleartext only as far as this machine, as for images.
    @Test(arguments: [
        "http://example.com", "http://api.unsplash.com:80", "http://127.0.0.1.example.com", "HTTP://10.0.0.1:8080",
    ])
    func plainHTTPToAnotherHostIsRefused(_ value: String) {
        let error = resolutionError(environment: ["PHOTOSYNC_API_BASE": value])
        #expect(error?.kind == .invalidValue && error?.exitCode == .config)
        #expect(
            error?.message.hasPrefix("api_base must use https; plain http is allowed only for loopback addresses")
                == true)
    }

    @Test(arguments: [
        "http://127.0.0.1:8080", "http://localhost:9000/api", "http://[::1]:8080", "https://api.unsplash.com",
    ])
    func httpsOrLoopbackIsAccepted(_ value: String) {
        #expect(throws: Never.self) { try resolveSettings([], environment: ["PHOTOSYNC_API_BASE": value]) }
    }

    @Test func badImageHosts() {
        #expect(
            resolutionError(environment: ["PHOTOSYNC_ALLOWED_IMAGE_HOSTS": "https://images.unsplash.com"])?.description
                == "PHOTOSYNC_ALLOWED_IMAGE_HOSTS: allowed_image_hosts must hold host names without a scheme (got \"https://images.unsplash.com\")"
        )
        #expect(
            resolutionError(environment: ["PHOTOSYNC_ALLOWED_IMAGE_HOSTS": "images.unsplash.com/photos"])?.message
                == "allowed_image_hosts must hold host names without a path (got \"images.unsplash.com/photos\")")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_ALLOWED_IMAGE_HOSTS": "a.test,,b.test"])?.message
                == "allowed_image_hosts must not contain an empty host name")
        #expect(fileError("allowed_image_hosts: []\n").0?.message == "allowed_image_hosts must name at least one host")
    }

    // MARK: Wrong types: the non-throwing getters would silently use the default

    @Test func wrongTypeInFile() {
        let (error, path) = fileError("per_page: \"many\"\n")
        #expect(error?.kind == .invalidValue)
        #expect(error?.description == "\(path): per_page must be a whole number (got \"many\")")
    }

    @Test func wrongTypeInEnvironment() {
        #expect(
            resolutionError(environment: ["PHOTOSYNC_PER_PAGE": "ten"])?.description
                == "PHOTOSYNC_PER_PAGE: per_page must be a whole number (got \"ten\")")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_DOWNLOAD_TRACKING": "maybe"])?.description
                == "PHOTOSYNC_DOWNLOAD_TRACKING: download_tracking must be true or false (got \"maybe\")")
    }

    @Test func scalarWhereAListBelongs() {
        let (error, path) = fileError("allowed_image_hosts: images.unsplash.com\n")
        #expect(
            error?.description
                == "\(path): allowed_image_hosts must be a list of host names (got \"images.unsplash.com\")")
    }

    @Test func listWhereAValueBelongs() {
        let (error, path) = fileError("log_level:\n  - debug\n")
        #expect(error?.description == "\(path): log_level must be a single value, not a list")
    }

    // MARK: Flags

    @Test func badFlagValueIsAUsageError() throws {
        let error = try #require(throws: (any Error).self) { try SettingsOptions.parse(["--variant", "huge"]) }
        #expect(SettingsOptions.exitCode(for: error) == .validationFailure)
        #expect(
            SettingsOptions.message(for: error).contains(
                "--variant: variant must be one of raw, full, regular, small, thumb, or none (got \"huge\")"))
        #expect(throws: (any Error).self) { try SettingsOptions.parse(["--per-page", "50"]) }
    }

    @Test func flagValuesSetAfterParsingNameTheFlag() throws {
        var options = try SettingsOptions.parse([])
        options.pollInterval = "5"
        #expect(
            throws: ConfigurationError(
                .invalidValue, source: "--poll-interval", message: "poll_interval must be at least 10 seconds (got 5)")
        ) {
            try options.resolve(environment: [:], defaultConfigurationPath: "/nonexistent/photosync.yaml")
        }
    }

    @Test func flagOfTheWrongTypeIsAUsageError() throws {
        let error = try #require(throws: (any Error).self) { try SettingsOptions.parse(["--per-page", "ten"]) }
        #expect(SettingsOptions.exitCode(for: error) == .validationFailure)
        #expect(
            SettingsOptions.message(for: error).contains("--per-page: per_page must be a whole number (got \"ten\")"))
    }

    /// An empty `--access-key` is a bad flag value like any other: exit 64, before anything runs.
    @Test(arguments: ["", " ", "two words"])
    func badAccessKeyFlagIsAUsageError(_ key: String) throws {
        let error = try #require(throws: (any Error).self) { try AccessKeyOptions.parse(["--access-key", key]) }
        #expect(AccessKeyOptions.exitCode(for: error) == .validationFailure)
        #expect(AccessKeyOptions.message(for: error).hasPrefix("--access-key: the access key"))
    }

    /// A value that could only fail later (an overflowing sleep, an address that never binds)
    /// stops photosync at startup instead.
    @Test func outOfRangeOrMalformedValuesAreRefusedAtStartup() {
        #expect(
            resolutionError(environment: ["PHOTOSYNC_POLL_INTERVAL": "9223372036854775807"])?.description
                == "PHOTOSYNC_POLL_INTERVAL: poll_interval must be at most 86400 seconds, a day (got 9223372036854775807)"
        )
        #expect(
            resolutionError(environment: ["PHOTOSYNC_POLL_INTERVAL": "9223372036854775808"])?.message
                == "poll_interval must be a whole number (got \"9223372036854775808\")")
        #expect(
            resolutionError(environment: ["PHOTOSYNC_METRICS_LISTEN": "9464"])?.description
                == "PHOTOSYNC_METRICS_LISTEN: metrics_listen must be HOST:PORT with an IP address or localhost, "
                + "such as 127.0.0.1:9464 (got \"9464\")")
        #expect(fileError("max_image_mib: 2048\n").0?.message == "max_image_mib must be between 1 and 2047 (got 2048)")
    }

    @Test func configurationErrorsExit78() {
        #expect(ConfigurationError(.invalidValue, source: "x", message: "y").exitCode.rawValue == 78)
        #expect(ConfigurationError(.malformedFile, source: "x", message: "y").exitCode.exitCode == ExitCode(78))
        #expect(ConfigurationError(.missingAccessKey, source: nil, message: "y").exitCode.exitCode == ExitCode(64))
    }
}
