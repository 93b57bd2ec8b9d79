import Foundation
import Logging
import Networking
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Synchronization
import TestSupport
import UnsplashAPI

/// A sync against a FakeUnsplash, on a temporary database, with a clock that never really sleeps.
struct SyncHarness {
    let fake: FakeUnsplash
    let directory: URL
    let store: PhotoStore
    let clock: TestClock
    let log = LogCapture()
    let wallClock = ManualClock()

    init(photos: Int, clock: TestClock = TestClock()) throws {
        fake = try FakeUnsplash(photos: photos)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("photosync-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try PhotoStore(path: directory.appendingPathComponent("test.sqlite").path)
        self.clock = clock
    }

    /// A fresh engine over the same database, as after a restart.
    func engine(
        accessKey: String = "KEY", apiBase: URL = UnsplashAPI.defaultBaseURL, maxImageBytes: Int64 = 256 << 20,
        _ configure: (inout SyncConfiguration) -> Void = { _ in }
    ) -> SyncEngine {
        engine(
            accessKey: accessKey, apiBase: apiBase, maxImageBytes: maxImageBytes, now: nil, diskSpace: nil, configure)
    }

    /// An engine whose wall clock moves with ``clock``, as a real daemon's does while it sleeps.
    func engineWithWallClockFollowingItsClock(_ configure: (inout SyncConfiguration) -> Void) -> SyncEngine {
        let clock = clock
        return engine(
            now: {
                let (seconds, attoseconds) = clock.now.offset.components
                return wallClock.start.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
            }, diskSpace: nil, configure)
    }

    /// A fresh engine whose wall clock and disk the test gives (nil: the harness's, the real disk's).
    func engine(
        accessKey: String = "KEY", apiBase: URL = UnsplashAPI.defaultBaseURL, maxImageBytes: Int64 = 256 << 20,
        now: (@Sendable () -> Date)?, diskSpace: (@Sendable () -> DiskSpace?)?,
        _ configure: (inout SyncConfiguration) -> Void = { _ in }
    ) -> SyncEngine {
        var configuration = SyncConfiguration(perPage: 10, concurrency: 3)
        configure(&configuration)
        return SyncEngine(
            repository: repository(accessKey: accessKey, apiBase: apiBase),
            store: store, spool: spool(maxBytes: maxImageBytes), configuration: configuration, clock: clock,
            now: now ?? { [wallClock] in wallClock.now },
            logger: log.logger(level: .trace), diskSpace: diskSpace)
    }

    /// The fake API behind the provider the engine uses, for testing a stage on its own.
    func repository(accessKey: String = "KEY", apiBase: URL = UnsplashAPI.defaultBaseURL) -> PhotoRepository {
        let provider = Provider(
            session: fake.session, retryPolicy: RetryPolicy(maxAttempts: 2, random: { 0 }), clock: clock)
        return PhotoRepository(provider: provider, api: UnsplashAPI(baseURL: apiBase, accessKey: accessKey))
    }

    /// Image bodies over 2 KB go to files, so both of the spool's paths are exercised.
    func spool(maxBytes: Int64 = 256 << 20) -> BodySpool {
        BodySpool(
            directory: directory.appendingPathComponent("test.sqlite.downloads"), memoryLimit: 2048, maxBytes: maxBytes)
    }

    /// The spool files left behind: none, after any run that ended.
    var spoolFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: spool().directory.path)) ?? []
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every stored photo has its image, byte-exact, with the SHA-256 of what was served.
    func allImagesMatch(_ ids: [String]) async throws -> Bool {
        for id in ids {
            guard let photo = try await store.catalog.photo(id: id), let image = photo.image else { return false }
            let bytes = try await store.archive.imageData(photoID: id, variant: nil)
            guard image.sha256 == FakeUnsplash.sha256(id), bytes == FakeUnsplash.imageBytes(id) else { return false }
        }
        return true
    }
}
