import Foundation
import PhotoStore
import PhotoSync
import Testing

@testable import PhotosyncCLI

@Suite struct StorageSettingsTests {
    @Test(arguments: [
        ("1000", Int64(1_000)), ("1000B", 1_000), ("50GB", 50_000_000_000), ("500MiB", 500 << 20),
        ("2 gib", 2 << 30), ("1TB", 1_000_000_000_000), ("3KiB", 3 << 10), ("1000TB", 1_000_000_000_000_000),
    ])
    func sizesReadAsBytes(text: String, bytes: Int64) throws {
        #expect(try SettingRules.byteSize(text) == bytes)
    }

    @Test(arguments: ["", "GB", "-5GB", "1.5GB", "5 parsecs", "1001TB", "99999999999999999999", "1PB"])
    func badSizesAreRefused(text: String) {
        #expect(throws: SettingProblem.self) { try SettingRules.byteSize(text) }
    }

    @Test func aBudgetTooSmallForOnePhotoIsRefused() throws {
        #expect(throws: SettingProblem.self) { try SettingRules.storageLimit("999999") }
        #expect(try SettingRules.storageLimit("1MB") == 1_000_000)
        #expect(try SettingRules.storageLimit("") == nil)
    }

    @Test func aBadSizeFromTheEnvironmentIsAConfigurationError() {
        #expect(throws: ConfigurationError.self) {
            try resolveSettings([], environment: ["PHOTOSYNC_STORAGE_LIMIT": "lots"])
        }
    }

    @Test func statusSaysWhyDownloadsArePausedAndHowLargeTheWALIs() throws {
        // GIVEN 500 MB free on a 100 GB disk: under the standard reserve of 1 GiB
        let storage = StatusStorage(
            storageLimit: 5_000_000, sizes: DatabaseFileSizes(database: 9_000_000, wal: 70_000),
            disk: DiskSpace(available: 500_000_000, total: 100_000_000_000), reserve: .standard)
        let text = storage.lines(bytesStored: 4_900_000).joined(separator: "\n")
        #expect(text.contains("storage limit   4.9 MB of 5 MB used"), "\(text)")
        #expect(text.contains("write-ahead log 70 KB"), "\(text)")
        #expect(
            text.contains("downloads paused: 500 MB free, below the 1.07 GB reserve (min_free_disk)"), "\(text)")
        let json = try JSONOutput.string(.object(storage.jsonFields))
        #expect(json.contains("\"wal_bytes\" : 70000"), "\(json)")
        #expect(json.contains("\"disk_reserve_bytes\" : 1073741824"), "\(json)")
        // AND with room, nothing is paused
        let roomy = StatusStorage(
            storageLimit: nil, sizes: DatabaseFileSizes(database: 1, wal: 0),
            disk: DiskSpace(available: 50_000_000_000, total: 100_000_000_000), reserve: .standard)
        #expect(roomy.pause == nil && !roomy.lines(bytesStored: 0).joined().contains("paused"))
    }
}
