import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// The real `photosync` binary against the stub server on 127.0.0.1.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct PhotosyncEndToEndTests {
        static let key = "e2e-access-key-1234567890"

        /// A started stub, a scratch directory and a database for one test: an SQLite file in
        /// the directory, or a new database on the tests' PostgreSQL cluster.
        struct World {
            let stub: UnsplashStub
            let directory: URL
            /// What `--database` says: the file's path, or the PostgreSQL database's URL.
            let database: String
            var config: String { directory.appending(path: "photosync.yaml").path }
            var store: StoreKind { PostgresLocation.isURL(database) ? .postgres : .sqlite }

            static func start(photos: Int, store: StoreSetup = .sqlite) async throws -> World {
                try await start(
                    UnsplashStub(
                        configuration: .init(
                            photoCount: photos, accessKey: PhotosyncEndToEndTests.key, imageSize: 2_000)),
                    store: store)
            }

            /// `stub`, started, with a scratch directory and a database reached as `store` says.
            static func start(_ stub: UnsplashStub, store: StoreSetup) async throws -> World {
                try await start(
                    stub, database: store == .sqlite ? nil : try await store.makeDatabase())
            }

            /// `stub`, started, with a scratch directory and `database` (a PostgreSQL URL), or an
            /// SQLite file in the directory.
            static func start(_ stub: UnsplashStub, database url: String?) async throws -> World {
                try await stub.start()
                let directory = FileManager.default.temporaryDirectory.appending(
                    path: "photosync-e2e-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                // An explicit, empty configuration: the machine's /etc/photosync must not leak in.
                try "# photosync end-to-end test\nper_page: 30\n".write(
                    toFile: directory.appending(path: "photosync.yaml").path, atomically: true, encoding: .utf8)
                let database = url ?? directory.appending(path: "photosync.sqlite").path
                return World(stub: stub, directory: directory, database: database)
            }

            func stop() async {
                await stub.stop()
                try? FileManager.default.removeItem(at: directory)
            }

            func runArguments(_ extra: [String] = []) async -> [String] {
                await daemonArguments(["--once"] + extra)
            }

            /// `run` against the stub, without `--once`.
            func daemonArguments(_ extra: [String] = []) async -> [String] {
                [
                    "run", "--api-base", await stub.baseURL.absoluteString, "--database", database,
                    "--config", config, "--allowed-image-host", "127.0.0.1",
                ] + extra
            }

            /// `run` as a daemon, telling `socket` what it would tell systemd.
            func daemon(
                _ extra: [String] = [], environment: [String: String] = [:], notifying socket: NotifySocket
            ) async throws -> PhotosyncProcess {
                try PhotosyncProcess(
                    await daemonArguments(extra),
                    environment: environment.merging([
                        "UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key, "NOTIFY_SOCKET": socket.path,
                    ]) { $1 })
            }

            func sync(_ extra: [String] = [], key: String = PhotosyncEndToEndTests.key) async throws
                -> PhotosyncProcess.Result
            {
                try await PhotosyncProcess.run(await runArguments(extra), environment: ["UNSPLASH_ACCESS_KEY": key])
            }

            func query(_ arguments: [String]) async throws -> PhotosyncProcess.Result {
                try await PhotosyncProcess.run(["query", "--database", database, "--config", config] + arguments)
            }

            /// The world's database, opened to read as the reading commands open it.
            func store() async throws -> PhotoStore {
                switch store {
                case .sqlite:
                    return try PhotoStore.openExisting(path: database)
                case .postgres:
                    return try await PostgresStore.openExisting(
                        try PostgresLocation(parsing: database), password: nil, logger: Logger(label: "photosync.e2e"))
                }
            }
        }

        @Test(arguments: StoreSetup.allCases) func aOnceSyncStoresEveryPhotoAndImageByteExact(_ store: StoreSetup)
            async throws
        {
            let world = try await World.start(photos: 300, store: store)
            try await withTeardown(await world.stop()) {
                let result = try await world.sync()

                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.contains("synced:"))
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(
                    stats.photos == 300 && stats.imagesStored == 300 && stats.imagesPending == 0
                        && stats.imagesFailed == 0)
                #expect(stats.backfillComplete)
                for id in await world.stub.photoIDs() {
                    let image = try #require(try await store.catalog.photo(id: id)?.image, "photo \(id) has no image")
                    #expect(image.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                    #expect(await world.stub.imageRequestCount(photoID: id) == 1, "\(id) was fetched more than once")
                    #expect(await world.stub.downloadTrackingCount(photoID: id) == 1)
                }
                #expect(!result.stderr.contains(Self.key))
            }
        }

        @Test(arguments: StoreKind.allCases) func aSecondRunOnlyAsksWhetherAnythingIsNew(_ store: StoreKind)
            async throws
        {
            let world = try await World.start(photos: 120, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                await world.stub.resetRequestLog()

                let again = try await world.sync()

                #expect(again.status == 0, "\(again.stderr)")
                let requests = await world.stub.requests()
                #expect(requests.count == 1, "\(requests)")
                #expect(requests.first?.path == "/photos" && requests.first?.queryValue("page") == "1")
            }
        }

        @Test(arguments: StoreSetup.allCases) func aRunKilledMidwayAndRestartedEndsComplete(_ store: StoreSetup)
            async throws
        {
            let world = try await World.start(photos: 300, store: store)
            try await withTeardown(await world.stop()) {
                await world.stub.delayImages(by: .milliseconds(5))

                // GIVEN a sync killed with SIGKILL after its third page
                let first = try PhotosyncProcess(
                    await world.runArguments(["--concurrency", "2"]), environment: ["UNSPLASH_ACCESS_KEY": Self.key])
                let sawThirdPage = await first.awaitPages(3)
                #expect(sawThirdPage)
                first.signal(SIGKILL)
                let killed = await first.result()
                #expect(killed.status != 0)
                let storedBeforeKill = try Set(await world.store().catalog.photoIDs(withStoredImage: true))
                let ids = await world.stub.photoIDs()
                #expect(storedBeforeKill.count < ids.count, "the kill came too late to test anything")

                // WHEN it is restarted
                await world.stub.delayImages(by: nil)
                let second = try await world.sync()

                // THEN nothing is missing or duplicated, and no stored image was fetched again
                #expect(second.status == 0, "\(second.stderr)")
                let stats = try await world.store().catalog.statistics()
                #expect(
                    stats.photos == Int64(ids.count) && stats.imagesStored == Int64(ids.count)
                        && stats.imagesFailed == 0)
                var refetched = 0
                for id in ids {
                    let fetches = await world.stub.imageRequestCount(photoID: id)
                    #expect(fetches >= 1)
                    if storedBeforeKill.contains(id) { #expect(fetches == 1, "\(id) was stored, then fetched again") }
                    if fetches > 1 { refetched += 1 }
                    #expect(await world.stub.downloadTrackingCount(photoID: id) >= 1)
                }
                // Only the images in flight at the kill may be fetched twice: with group commit, those
                // being fetched (2), waiting for the writer (2) and in the batch being written.
                #expect(refetched <= 4 * 2)
            }
        }

        @Test(arguments: StoreKind.allCases) func queryFindsAPhotoAndWritesItsExactBytes(_ store: StoreKind)
            async throws
        {
            let world = try await World.start(photos: 30, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let id = try #require(await world.stub.photoIDs().dropFirst(3).first)

                let text = try await world.query(["--id", id])
                #expect(text.status == 0)
                #expect(text.stdout.hasPrefix(id))
                #expect(text.stdout.contains("image       regular, image/jpeg"))

                let json = try await world.query(["--id", id, "--json"])
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(object["id"] as? String == id)
                #expect(object["details_fetched_at"] is NSNull, "no full object is stored")
                let image = try #require(object["image"] as? [String: Any])
                let expected = world.stub.imageBytes(photoID: id, variant: "regular")
                #expect(image["variant"] as? String == "regular")
                #expect(image["content_type"] as? String == "image/jpeg")
                #expect(image["bytes"] as? Int == expected.count)
                #expect(image["sha256"] as? String == world.stub.expectedSHA256(photoID: id, variant: "regular"))

                let file = world.directory.appending(path: "out.jpg")
                let written = try await world.query(["--id", id, "--output", file.path])
                #expect(written.status == 0)
                #expect(try Data(contentsOf: file) == expected)

                // The text's dates, link and size read as Foundation's formatters write them, though
                // photosync makes them by hand
                let lines = text.stdout.split(separator: "\n").map(String.init)
                let created = try #require(object["created_at"] as? String)
                let createdAt = try Date(created, strategy: .iso8601)
                #expect(lines.contains("  created     \(createdAt.formatted(.iso8601))"), "\(lines)")
                // The photo's page is the attribution link `export` writes too: Unsplash's page of
                // the photo with photosync's utm parameters, as Unsplash's guidelines ask
                var page = URLComponents(string: "https://unsplash.com/photos/\(id)")!
                page.queryItems = [
                    .init(name: "utm_source", value: "photosync"), .init(name: "utm_medium", value: "referral"),
                ]
                #expect(lines.contains("  page        \(page.string!)"), "\(lines)")
                let size = ByteCountFormatter.string(fromByteCount: Int64(expected.count), countStyle: .file)
                #expect(
                    lines.contains { $0.hasPrefix("  image       regular, image/jpeg, \(size), sha256 ") }, "\(lines)")
            }
        }

        @Test func theReadersNeedOnlyTheDatabaseSetting() async throws {
            let world = try await World.start(photos: 3)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let id = try #require(await world.stub.photoIDs().first)

                // A bad value of a setting they do not use stops `run`, not the commands that only read
                let unrelated = ["PHOTOSYNC_PER_PAGE": "50", "PHOTOSYNC_API_BASE": "not a url"]
                let query = try await PhotosyncProcess.run(
                    ["query", "--id", id, "--database", world.database], environment: unrelated)
                #expect(query.status == 0, "\(query.stderr)")
                let status = try await PhotosyncProcess.run(
                    ["status", "--config", world.config],
                    environment: unrelated.merging(["PHOTOSYNC_DATABASE": world.database]) { $1 })
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stdout.contains("photos          3"), "\(status.stdout)")

                // A bad database setting is refused: from a flag as bad usage, from elsewhere as bad
                // configuration, each in one line
                let emptyFlag = try await PhotosyncProcess.run(["query", "--id", id, "--database", ""])
                #expect(emptyFlag.status == 64, "\(emptyFlag.stderr)")
                #expect(
                    emptyFlag.stderr
                        == "photosync: --database: database must not be empty (see 'photosync query --help')\n")
                let emptyVariable = try await PhotosyncProcess.run(["status"], environment: ["PHOTOSYNC_DATABASE": ""])
                #expect(emptyVariable.status == 78, "\(emptyVariable.stderr)")
                #expect(emptyVariable.stderr == "photosync: PHOTOSYNC_DATABASE: database must not be empty\n")

                // and so is a file with a misspelled key, which would otherwise send a reader to
                // another database
                let misspelled = world.directory.appending(path: "misspelled.yaml").path
                try "databse: \(world.database)\n".write(toFile: misspelled, atomically: true, encoding: .utf8)
                let typo = try await PhotosyncProcess.run(["status", "--config", misspelled])
                #expect(typo.status == 78, "\(typo.stderr)")
                #expect(
                    typo.stderr.contains("unknown setting \"databse\" (did you mean \"database\"?)"), "\(typo.stderr)")
            }
        }

        @Test(arguments: StoreKind.allCases) func anUnknownIDExitsOne(_ store: StoreKind) async throws {
            let world = try await World.start(photos: 5, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)

                let result = try await world.query(["--id", "doesNotExist"])

                #expect(result.status == 1)
                #expect(result.stderr == "photosync: no photo with id doesNotExist in \(world.database)\n")
            }
        }

        @Test(arguments: StoreKind.allCases) func aBadKeyExits77AndLeavesTheDatabaseAsItWas(_ store: StoreKind)
            async throws
        {
            let world = try await World.start(photos: 40, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let before = try await world.store().catalog.statistics()
                await world.stub.addPhotos(count: 5)

                let result = try await world.sync(key: "my-secret-key-by-mistake")

                #expect(result.status == 77)
                // Log lines may come first; the error is the last line, once.
                let lastLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
                #expect(lastLine.hasPrefix("photosync: Unsplash rejected the access key"))
                #expect(lastLine.contains("Access Key, not its Secret key"))
                #expect(result.stderr.components(separatedBy: "photosync: ").count == 2)
                #expect(!result.stderr.contains("my-secret-key-by-mistake"))
                #expect(try await world.store().catalog.statistics() == before)
            }
        }

        @Test func underJournaldEveryLineCarriesItsPriority() async throws {
            let world = try await World.start(photos: 5)
            try await withTeardown(await world.stop()) {
                let result = try await PhotosyncProcess.run(
                    await world.runArguments(), environment: ["UNSPLASH_ACCESS_KEY": "wrong"], journal: true)
                #expect(result.status == 77)
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.first?.hasPrefix("<6>photosync started") == true, "\(lines)")
                #expect(lines.last?.hasPrefix("<3>photosync: Unsplash rejected the access key") == true, "\(lines)")
                #expect(lines.allSatisfy { $0.wholeMatch(of: /<[0-7]>.*/) != nil })
            }
        }

        @Test func aBadKeyOnAFreshDatabaseLeavesNoFile() async throws {
            let world = try await World.start(photos: 5)
            try await withTeardown(await world.stop()) {
                let result = try await world.sync(key: "wrong")
                #expect(result.status == 77)
                #expect(!FileManager.default.fileExists(atPath: world.database))
            }
        }

        @Test(arguments: StoreKind.allCases) func statusReportsWhatIsStored(_ store: StoreKind) async throws {
            let world = try await World.start(photos: 35, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)

                let result = try await PhotosyncProcess.run([
                    "status", "--json", "--database", world.database, "--config", world.config,
                ])

                #expect(result.status == 0)
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                #expect(object["photos"] as? Int == 35)
                #expect(object["images_stored"] as? Int == 35)
                #expect(object["images_pending"] as? Int == 0)
                #expect(object["images_failed"] as? Int == 0)
                #expect(object["backfill_complete"] as? Bool == true)
                #expect((object["bytes_stored"] as? Int ?? 0) > 35 * 1_000)
                #expect(object["last_page_at"] is String)
            }
        }

        @Test(arguments: StoreKind.allCases) func theKeyNeverReachesTheLogsEvenAtTrace(_ store: StoreKind) async throws
        {
            let world = try await World.start(photos: 10, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let result = try await world.sync(["--log-level", "trace"])
                #expect(result.status == 0)
                #expect(result.stderr.contains("photos"))
                #expect(!result.stderr.contains(Self.key))
                #expect(!(result.stdout + result.stderr).contains("Client-ID e2e"))
            }
        }

        @Test func badInputGetsOneLineAndItsExitCode() async throws {
            let world = try await World.start(photos: 1)
            try await withTeardown(await world.stop()) {
                // No key anywhere: usage.
                let noKey = try await PhotosyncProcess.run(await world.runArguments())
                #expect(noKey.status == 64)
                #expect(noKey.stderr.hasPrefix("photosync: "))
                #expect(noKey.stderr.filter(\.isNewline).count == 1)
                #expect(
                    noKey.stderr.hasSuffix(" (see 'photosync run --help')\n"), "as every usage error: \(noKey.stderr)")

                // A flag out of range is bad usage; the same value from the environment, bad configuration.
                let badFlag = try await world.sync(["--per-page", "50"])
                #expect(badFlag.status == 64, "\(badFlag.stderr)")
                #expect(badFlag.stderr.contains("per-page"))
                #expect(badFlag.stderr.hasSuffix(" (see 'photosync run --help')\n"), "\(badFlag.stderr)")
                let badEnvironment = try await PhotosyncProcess.run(
                    await world.runArguments(),
                    environment: ["UNSPLASH_ACCESS_KEY": Self.key, "PHOTOSYNC_PER_PAGE": "50"])
                #expect(badEnvironment.status == 78, "\(badEnvironment.stderr)")
                #expect(
                    badEnvironment.stderr
                        == "photosync: PHOTOSYNC_PER_PAGE: per_page must be between 1 and 30 (got 50)\n")

                // A database path that cannot be created: I/O.
                let badPath = try await PhotosyncProcess.run(
                    [
                        "run", "--once", "--database", "/proc/nope/photosync.sqlite", "--config", world.config,
                        "--api-base", await world.stub.baseURL.absoluteString,
                    ],
                    environment: ["UNSPLASH_ACCESS_KEY": Self.key])
                #expect(badPath.status == 74, "\(badPath.stderr)")
                #expect(badPath.stderr.hasPrefix("photosync: "))
                #expect(badPath.stderr.filter(\.isNewline).count == 1)
            }
        }
    }
}

extension PhotosyncProcess {
    /// Waits for the `n`-th "page stored" log line.
    func awaitPages(_ n: Int) async -> Bool {
        var seen = 0
        return await awaitLine { line in
            if line.contains("page stored") { seen += 1 }
            return seen >= n
        }
    }
}
