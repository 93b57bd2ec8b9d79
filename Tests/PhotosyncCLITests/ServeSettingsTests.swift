import ArgumentParser
import Foundation
import Gallery
import Testing

@testable import PhotosyncCLI

/// `serve` reads the Unsplash API's settings as `run` reads its own: flag, variable, file,
/// default; and whether the sync tracks downloads and stores images from the same places `run`
/// reads them.
@Suite struct ServeSettingsTests {
    @Test func flagsVariablesAndTheFileReachTheUnsplashAPI() throws {
        let directory = TemporaryDirectory()
        let file = directory.write(
            "photosync.yaml", "mirror_rate_limit: 70\ndownload_tracking: false\nvariant: none\n")
        let serve = try ServeCommand.parse([
            "--config", file, "--mirror-client-key", "a", "--mirror-client-key", "b", "--mirror-image-urls", "local",
        ])

        let mirror = try serve.mirrorConfiguration(environment: ["PHOTOSYNC_MIRROR_RATE_LIMIT": "60"])

        #expect(mirror.clientKeys == ["a", "b"])
        #expect(mirror.hourlyLimit == 60, "the variable beats the file")
        #expect(mirror.imageURLs == .local)
        #expect(mirror.downloadTracking == .off)
        #expect(!mirror.storesImages)
    }

    @Test func byDefaultAnyKeyFiveThousandAnHourAndUnsplashsImageURLs() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("photosync.yaml", "per_page: 30\n")
        let mirror = try ServeCommand.parse(["--config", file]).mirrorConfiguration(environment: [:])

        #expect(mirror.clientKeys.isEmpty)
        #expect(mirror.hourlyLimit == 5_000)
        #expect(mirror.imageURLs == .unsplash)
        #expect(mirror.downloadTracking == .queued)
        #expect(mirror.storesImages)
    }

    @Test func aBadValueIsAUsageErrorFromAFlagAndAConfigurationErrorFromAVariable() throws {
        // argument-parser's validation: exit 64, naming the flag.
        let fromFlag = #expect(throws: (any Error).self) { try ServeCommand.parse(["--mirror-image-urls", "cdn"]) }
        let error = try #require(fromFlag)
        #expect(ServeCommand.exitCode(for: error).rawValue == 64)
        #expect(ServeCommand.message(for: error).contains("mirror_image_urls must be unsplash or local"))

        let fromVariable = #expect(throws: ConfigurationError.self) {
            try ServeCommand.parse([]).mirrorConfiguration(environment: ["PHOTOSYNC_MIRROR_RATE_LIMIT": "x"])
        }
        #expect(fromVariable?.exitCode == .config)
    }
}
