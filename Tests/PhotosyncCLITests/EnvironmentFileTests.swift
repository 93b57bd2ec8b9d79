import Foundation
import Testing

@testable import PhotosyncCLI

@Suite struct EnvironmentFileTests {
    @Test func withoutTheVariableTheEnvironmentIsTheProcesss() throws {
        let process = ["PHOTOSYNC_CONCURRENCY": "2", "HOME": "/root"]
        #expect(try EnvironmentFile.environment(process) == process)
        #expect(try EnvironmentFile.environment(process.merging([EnvironmentFile.variable: ""]) { $1 }).count == 3)
    }

    @Test func itsVariablesOverrideTheProcesssAndQuotesComeOff() throws {
        let directory = TemporaryDirectory()
        let path = directory.write(
            "environment",
            """
            # comments, blank lines and systemd's ; comments are skipped

            ; PHOTOSYNC_VARIANT=raw
              PHOTOSYNC_CONCURRENCY = 3
            PHOTOSYNC_SOURCES="feed, user:jane"
            PHOTOSYNC_LOG_LEVEL='debug'
            http_proxy=http://proxy.example:3128
            EMPTY=
            """)
        let environment = try EnvironmentFile.environment([
            EnvironmentFile.variable: path, "PHOTOSYNC_CONCURRENCY": "2", "HOME": "/root",
        ])
        #expect(environment["PHOTOSYNC_CONCURRENCY"] == "3")
        #expect(environment["PHOTOSYNC_SOURCES"] == "feed, user:jane")
        #expect(environment["PHOTOSYNC_LOG_LEVEL"] == "debug")
        #expect(environment["http_proxy"] == "http://proxy.example:3128")
        #expect(environment["EMPTY"] == "")
        #expect(environment["HOME"] == "/root")
        #expect(environment["PHOTOSYNC_VARIANT"] == nil)
    }

    @Test func aLineThatIsNotAnAssignmentNamesTheFileAndTheLine() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("environment", "PHOTOSYNC_CONCURRENCY=3\nexport PHOTOSYNC_VARIANT=raw\n")
        let error = #expect(throws: ConfigurationError.self) {
            try EnvironmentFile.environment([EnvironmentFile.variable: path])
        }
        #expect(error?.kind == .malformedFile)
        #expect(error?.description == "\(path): line 2 is not NAME=VALUE")
        #expect(error?.exitCode == .config)
    }

    @Test func aMissingFileIsAConfigurationError() throws {
        let path = TemporaryDirectory().missing("environment")
        let error = #expect(throws: ConfigurationError.self) {
            try EnvironmentFile.environment([EnvironmentFile.variable: path])
        }
        #expect(error?.kind == .missingFile)
        #expect(error?.description == "\(path): environment file does not exist")
    }
}
