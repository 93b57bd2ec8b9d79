import ArgumentParser
import Testing

@testable import PhotosyncCLI

/// One version, said the same way everywhere it is said.
struct VersionTests {
    @Test func versionIsSemanticAndNamesTheCommit() throws {
        let parts = PhotosyncVersion.number.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(PhotosyncVersion.number)")
        let commit = PhotosyncVersion.commit
        #expect(commit == "unknown" || (commit.count == 12 && commit.allSatisfy(\.isHexDigit)), "\(commit)")
        #expect(PhotosyncVersion.text == "photosync \(PhotosyncVersion.number) (\(commit))")
    }

    @Test func dashDashVersionPrintsIt() throws {
        let error = try #require(throws: (any Error).self) { try PhotosyncCommand.parseAsRoot(["--version"]) }
        #expect(PhotosyncCommand.fullMessage(for: error) == PhotosyncVersion.text)
        #expect(PhotosyncCommand.exitCode(for: error) == .success)
    }

    @Test func theUserAgentCarriesTheVersion() {
        #expect(PhotosyncVersion.userAgent == "photosync/\(PhotosyncVersion.number)")
    }

    @Test func theChangelogRecordsThisVersion() throws {
        let changelog = try String(
            contentsOfFile: #filePath.replacingOccurrences(
                of: "Tests/PhotosyncCLITests/VersionTests.swift", with: "CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## [\(PhotosyncVersion.number)]"))
    }
}
