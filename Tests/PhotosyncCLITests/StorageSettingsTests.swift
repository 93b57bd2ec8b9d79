import Foundation
import PhotoStore
import PhotoStoreSQLite
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
        #expect(try JSONOutput.string(.object(roomy.jsonFields)).contains("\"pages_paused\" : null"))
    }

    @Test func statusSaysWhyPagesArePausedBelowHalfTheReserve() throws {
        // GIVEN 800 MB free on a 100 GB disk: under the standard reserve of 1 GiB, above its half
        let downloadsOnly = StatusStorage(
            storageLimit: nil, sizes: DatabaseFileSizes(database: 9_000_000, wal: 0),
            disk: DiskSpace(available: 800_000_000, total: 100_000_000_000), reserve: .standard)
        // THEN downloads are paused, pages are not
        let first = downloadsOnly.lines(bytesStored: 0).joined(separator: "\n")
        #expect(first.contains("downloads paused") && !first.contains("pages paused"), "\(first)")
        #expect(try JSONOutput.string(.object(downloadsOnly.jsonFields)).contains("\"pages_paused\" : null"))

        // GIVEN 400 MB free: under half the reserve, the floor
        let storage = StatusStorage(
            storageLimit: nil, sizes: DatabaseFileSizes(database: 9_000_000, wal: 0),
            disk: DiskSpace(available: 400_000_000, total: 100_000_000_000), reserve: .standard)

        // THEN status says downloads and pages are paused, and why, as run's log and metrics do
        let text = storage.lines(bytesStored: 0).joined(separator: "\n")
        #expect(
            text.contains(
                "free disk       400 MB, reserve 1.07 GB; downloads paused: 400 MB free, below the 1.07 GB reserve "
                    + "(min_free_disk); pages paused: 400 MB free, below the 536.9 MB floor (half of min_free_disk)"),
            "\(text)")
        let json = try JSONOutput.string(.object(storage.jsonFields))
        #expect(
            json.contains(
                "\"pages_paused\" : \"pages paused: 400 MB free, below the 536.9 MB floor (half of min_free_disk)\""),
            "\(json)")
        #expect(json.contains("\"downloads_paused\" : \"downloads paused"), "\(json)")
    }
}
