import Networking
import Testing

@testable import PhotosyncCLI

/// `image_min_rate`: the slowest an image may arrive, read as `RATE/s over SECONDS`, bounded so
/// that tests can make it small and nobody can make it useless.
@Suite struct ImageMinRateSettingTests {
    @Test func theDefaultIs32KiBPerSecondOver30Seconds() throws {
        #expect(try resolveSettings([]).imageMinRate == MinimumRate(bytesPerSecond: 32 << 10, window: .seconds(30)))
        #expect(MinimumRate.standard == MinimumRate(bytesPerSecond: 32 << 10, window: .seconds(30)))
    }

    @Test func aRateAndAWindowAreRead() throws {
        #expect(
            try resolveSettings(["--image-min-rate", "1KB/s over 2s"]).imageMinRate
                == MinimumRate(bytesPerSecond: 1_000, window: .seconds(2)))
        #expect(
            try resolveSettings([], environment: ["PHOTOSYNC_IMAGE_MIN_RATE": "64 KiB/s"]).imageMinRate
                == MinimumRate(bytesPerSecond: 64 << 10, window: .seconds(30)))
        #expect(
            try resolveSettings(["--image-min-rate", "500/s over 600"]).imageMinRate
                == MinimumRate(bytesPerSecond: 500, window: .seconds(600)))
    }

    @Test func valuesOutOfBoundsOrMalformedAreRefusedWithOneLine() {
        #expect(
            fileError("image_min_rate: 32KiB\n").0?.message
                == "image_min_rate must be a rate and a window such as 32KiB/s over 30s (got \"32KiB\")")
        #expect(
            fileError("image_min_rate: 0/s\n").0?.message
                == "image_min_rate must be a rate of 1B/s to 100MiB/s (got \"0/s\")")
        #expect(
            fileError("image_min_rate: 1GB/s\n").0?.message
                == "image_min_rate must be a rate of 1B/s to 100MiB/s (got \"1GB/s\")")
        #expect(
            fileError("image_min_rate: 1KB/s over 0s\n").0?.message
                == "image_min_rate must have a window of 1 to 600 seconds, such as 30s (got \"1KB/s over 0s\")")
        #expect(
            fileError("image_min_rate: 1KB/s over 601s\n").0?.exitCode.rawValue == 78)
    }
}
