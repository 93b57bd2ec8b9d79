import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What PostgreSQL brings of its own, through the real binary: the mirror answering as it does
/// on SQLite, its bad input, and connections lost in the middle of a run.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct PostgresEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        /// The mirror's answers that must be the same on both stores, byte for byte.
        static func routes(_ world: World) async -> [String] {
            let ids = await world.stub.photoIDs()
            let user = world.stub.usernames[0]
            return [
                "unsplash/photos?per_page=10", "unsplash/photos?page=4&per_page=7",
                "unsplash/photos?order_by=oldest&per_page=12", "unsplash/photos?order_by=popular&per_page=12",
                "unsplash/photos/\(ids[5])", "unsplash/users/\(user)/photos?per_page=30",
                "unsplash/users/\(user)/likes", "unsplash/collections/3773378", "unsplash/collections/3773378/photos",
                "unsplash/topics/wallpapers/photos?page=2&per_page=5", "unsplash/photos/nonexistent",
                "unsplash/search/photos?query=lake&per_page=5&page=99", "images/\(ids[3])",
                "unsplash/search/photos?query=forest&color=green&orientation=landscape&per_page=30",
            ]
        }

        /// `serve` on `database` at `listen`, each of `routes` asked once: status and body.
        static func answers(
            _ world: World, database: String, listen: String, routes: [String]
        ) async throws -> (port: String, answers: [String: (Int, Data)]) {
            let serve = try PhotosyncProcess([
                "serve", "--listen", listen, "--database", database, "--config", world.config,
            ])
            var stopped = false
            defer { if !stopped { serve.signal(SIGKILL) } }
            let base = try #require(await GalleryEndToEndTests.galleryURL(of: serve), "serve never listened")
            var answers: [String: (Int, Data)] = [:]
            for route in routes {
                var request = URLRequest(url: try #require(URL(string: base + route)))
                request.setValue("Client-ID any-key", forHTTPHeaderField: "Authorization")
                let (body, response) = try await URLSession.shared.data(for: request)
                answers[route] = ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
            }
            serve.signal(SIGINT)
            #expect(await serve.result().status == 0)
            stopped = true
            return (String(base.dropFirst("http://127.0.0.1:".count).dropLast()), answers)
        }

        /// Every photo of the stub stored, its image whole (its SHA-256) and its download tracked
        /// once, and `verify` finding nothing: what a run that lost its connections must end with.
        static func expectEveryPhotoImageAndTrackingOnce(_ world: World, photos: Int) async throws {
            let store = try await world.store()
            defer { try? store.close() }
            let statistics = try await store.catalog.statistics()
            #expect(
                statistics.photos == photos && statistics.imagesStored == photos && statistics.imagesPending == 0)
            for id in await world.stub.photoIDs() {
                let image = try await store.catalog.photo(id: id)?.image
                #expect(image?.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"), "\(id)")
                #expect(await world.stub.downloadTrackingCount(photoID: id) == 1, "\(id)")
            }
            let verify = try await PhotosyncProcess.run([
                "verify", "--database", world.database, "--config", world.config,
            ])
            #expect(verify.status == 0 && verify.stdout.contains("problems        0"), "\(verify.stdout)")
        }

        @Test(arguments: StoreSetup.postgresRoutes) func theMirrorAnswersTheSameFromBothStores(_ setup: StoreSetup)
            async throws
        {
            // GIVEN the same stub synced into an SQLite file and a PostgreSQL database (straight,
            // or through PgBouncer)
            let world = try await World.start(photos: 120)
            try await withTeardown(await world.stop()) {
                let user = world.stub.usernames[0]
                let sources = ["feed", "user:\(user)", "likes:\(user)", "collection:3773378", "topic:wallpapers"]
                    .flatMap { ["--source", $0] }
                #expect(try await world.sync(sources).status == 0)
                let postgres = try await setup.makeDatabase()
                let synced = try await PhotosyncProcess.run(
                    await world.runArguments(sources + ["--database", postgres]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(synced.status == 0, "\(synced.stderr)")

                // WHEN `serve` answers the same requests from each, on the same address
                let routes = await Self.routes(world)
                let (port, fromFile) = try await Self.answers(
                    world, database: world.database, listen: "127.0.0.1:0", routes: routes)
                let (_, fromServer) = try await Self.answers(
                    world, database: postgres, listen: "127.0.0.1:\(port)", routes: routes)

                // THEN every answer is the same, byte for byte
                for route in routes {
                    let (fileStatus, fileBody) = try #require(fromFile[route])
                    let (serverStatus, serverBody) = try #require(fromServer[route])
                    #expect(fileStatus == serverStatus, "\(route)")
                    #expect(Bool(fileBody == serverBody), "\(route): \(fileBody.count) and \(serverBody.count) bytes")
                }
                #expect(fromFile["unsplash/photos/nonexistent"]?.0 == 404)
            }
        }

        @Test func badDatabaseInputIsOneLineAndADocumentedExitCode() async throws {
            let world = try await World.start(photos: 5)
            try await withTeardown(await world.stop()) {
                let database = try await PostgresTestCluster.shared.makeDatabase(
                    owner: PostgresTestCluster.passwordUser)
                func run(_ url: String, environment: [String: String] = [:]) async throws -> PhotosyncProcess.Result {
                    try await PhotosyncProcess.run(
                        await world.runArguments(["--database", url]),
                        environment: environment.merging(["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key]) { $1 })
                }
                func lastLine(_ result: PhotosyncProcess.Result) -> String {
                    result.stderr.split(separator: "\n").last.map(String.init) ?? ""
                }

                // A password in the URL: refused before anything connects, saying where it goes
                let secret = "s3cret-in-the-url"
                let withPassword = database.replacingOccurrences(of: "@", with: ":\(secret)@")
                let flag = try await run(withPassword)
                #expect(flag.status == 64, "\(flag.stderr)")
                #expect(flag.stderr.contains("--database: database holds a password"), "\(flag.stderr)")
                #expect(flag.stderr.contains("PGPASSWORD"))
                #expect(!flag.stderr.contains(secret))
                let variable = try await PhotosyncProcess.run(
                    ["status", "--config", world.config], environment: ["PHOTOSYNC_DATABASE": withPassword])
                #expect(variable.status == 78, "\(variable.stderr)")
                #expect(variable.stderr.filter(\.isNewline).count == 1 && !variable.stderr.contains(secret))

                // A wrong password: 77, and the password is in no line
                let wrong = try await run(database, environment: ["PGPASSWORD": "not-the-password"])
                #expect(wrong.status == 77, "\(wrong.stderr)")
                #expect(lastLine(wrong).hasPrefix("photosync: the database server of "), "\(wrong.stderr)")
                #expect(!wrong.stderr.contains("not-the-password"))

                // The right one, from a password file: the sync runs
                let passwords = world.directory.appending(path: "pgpass").path
                try "localhost:5432:*:\(PostgresTestCluster.passwordUser):\(PostgresTestCluster.password)\n"
                    .write(toFile: passwords, atomically: true, encoding: .utf8)
                let right = try await run(database, environment: ["PGPASSFILE": passwords])
                #expect(right.status == 0, "\(right.stderr)")
                #expect(!right.stderr.contains(PostgresTestCluster.password))

                // A server that cannot be reached: 75, try again later (systemd restarts the unit)
                let away = try await run("postgres://nobody@/photos?host=/nonexistent-photosync-socket")
                #expect(away.status == 75, "\(away.stderr)")
                #expect(lastLine(away).contains("cannot be reached"), "\(away.stderr)")

                // A pooler that runs each statement on its own (PgBouncer's statement mode), where
                // no transaction can run: refused at once, one line naming the mode, 78
                let statements = try await PgBouncerTestPool.shared(.statement).url(
                    through: try await PostgresTestCluster.shared.makeDatabase())
                let pooled = try await run(statements)
                #expect(pooled.status == 78, "\(pooled.stderr)")
                #expect(lastLine(pooled).contains("pool_mode = statement"), "\(pooled.stderr)")
                #expect(!pooled.stderr.contains("CircuitBreaker"), "\(pooled.stderr)")

                // Another application's database: refused and left as it was
                let theirs = try await PostgresTestCluster.shared.makeDatabase()
                try await PostgresTestCluster.shared.execute("CREATE TABLE invoices (id integer)", in: theirs)
                let foreign = try await run(theirs)
                #expect(foreign.status == 74, "\(foreign.stderr)")
                #expect(lastLine(foreign).hasSuffix("is not a photosync database"), "\(foreign.stderr)")

                // A reader on a database `run` never filled: nothing to read, nothing created
                let empty = try await PostgresTestCluster.shared.makeDatabase()
                let status = try await PhotosyncProcess.run(["status", "--database", empty, "--config", world.config])
                #expect(status.status == 74, "\(status.stderr)")
                #expect(status.stderr.contains("photosync run` creates it"), "\(status.stderr)")
            }
        }

        @Test func aRunWhoseConnectionsAreCutCarriesOnAndStoresEachImageWholeOnce() async throws {
            // GIVEN images of 3 MB (three chunk rows each), slow enough to be cut in the middle
            let stub = UnsplashStub(
                configuration: .init(photoCount: 60, accessKey: PhotosyncEndToEndTests.key, imageSize: 3_000_000))
            let world = try await World.start(stub, store: .postgres)
            try await withTeardown(await world.stop()) {
                await world.stub.delayImages(by: .milliseconds(30))
                let run = try PhotosyncProcess(
                    await world.runArguments(["--concurrency", "4"]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                var ended = false
                defer { if !ended { run.signal(SIGKILL) } }

                // WHEN the server drops every connection of photosync's, again and again
                #expect(await run.awaitPages(1))
                for _ in 0..<8 {
                    try await PostgresTestCluster.shared.execute(
                        """
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """, in: world.database)
                    try await Task.sleep(for: .milliseconds(300))
                }
                await world.stub.delayImages(by: nil)
                let result = await run.result()
                ended = true

                // THEN the run carries on and ends complete: every image stored once and whole
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("lost the connection to the database"), "the cuts came too late")
                try await Self.expectEveryPhotoImageAndTrackingOnce(world, photos: 60)
            }
        }

        @Test func aRunGoesOnThroughTheServersRestartAndStoresEachThingOnce() async throws {
            // GIVEN a run into a cluster of the test's own, with images of 500 KB coming slowly
            let cluster = PostgresTestCluster.own()
            let stub = UnsplashStub(
                configuration: .init(photoCount: 90, accessKey: PhotosyncEndToEndTests.key, imageSize: 500_000))
            let started = try await World.start(stub, store: .sqlite)
            let world = World(
                stub: started.stub, directory: started.directory, database: try await cluster.makeDatabase())
            try await withTeardown(await world.stop()) {
                await world.stub.delayImages(by: .milliseconds(100))
                let run = try PhotosyncProcess(
                    await world.runArguments(["--concurrency", "4"]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                var ended = false
                defer { if !ended { run.signal(SIGKILL) } }

                // WHEN the server is restarted in the middle of it, as an operator would
                #expect(await run.awaitPages(1))
                try await cluster.restart()
                #expect(run.isRunning, "the restart came after the run")
                await world.stub.delayImages(by: nil)
                let result = await run.result()
                ended = true

                // THEN the run goes on to its end: every photo, image and tracking once
                #expect(result.status == 0, "\(result.stderr)")
                try await Self.expectEveryPhotoImageAndTrackingOnce(world, photos: 90)
            }
        }

        @Test func aMirrorMovesToPostgresAndBackThroughKillsAndAnswersTheSame() async throws {
            // GIVEN an SQLite mirror of 300 photos with images of 100 KB, from three sources
            let stub = UnsplashStub(
                configuration: .init(photoCount: 300, accessKey: PhotosyncEndToEndTests.key, imageSize: 100_000))
            let world = try await World.start(stub, store: .sqlite)
            try await withTeardown(await world.stop()) {
                let user = world.stub.usernames[0]
                let sources = ["feed", "user:\(user)", "collection:3773378"].flatMap { ["--source", $0] }
                #expect(try await world.sync(sources).status == 0)
                let postgres = try await PostgresTestCluster.shared.makeDatabase()
                let copy = ["copy", "--from", world.database, "--to", postgres]

                // WHEN the copy into PostgreSQL is killed with -9 once its photos are in, before
                // the 30 MB of images are (the contract tests stop a copy after every batch)
                let copying = try PhotosyncProcess(copy)
                #expect(await copying.awaitLine { $0.hasPrefix("copied photos:") })
                copying.signal(SIGKILL)
                #expect(await copying.result().status != 0)
                // a half-copied database is not synced into, and no other mirror is copied into it
                let early = try await PhotosyncProcess.run(
                    await world.runArguments(["--database", postgres]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(early.status == 73 && early.stderr.contains("stopped before its end"), "\(early.stderr)")
                let other = try await PhotosyncProcess.run([
                    "copy", "--from", world.directory.appending(path: "absent.sqlite").path, "--to", postgres,
                ])
                #expect(other.status == 74, "\(other.stderr)")
                let resumed = try await PhotosyncProcess.run(copy)

                // THEN the copy goes on to its end, and verify finds nothing
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(resumed.stdout.contains("(resumed)"), "\(resumed.stdout)")
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", postgres, "--config", world.config,
                ])
                #expect(verify.status == 0 && verify.stdout.contains("images checked  300"), "\(verify.stdout)")
                // a second copy into it is refused: it holds a mirror now
                let again = try await PhotosyncProcess.run(copy)
                #expect(again.status == 73 && again.stderr.contains("holds a mirror already"), "\(again.stderr)")

                // AND the mirror answers from PostgreSQL as it did from the file, byte for byte
                let routes = [
                    "unsplash/photos?per_page=30", "unsplash/photos?page=7&per_page=13",
                    "unsplash/users/\(user)/photos?per_page=30", "unsplash/collections/3773378/photos",
                    // (no search: its ranking may order ties differently on PostgreSQL, as documented)
                    "unsplash/photos?order_by=popular&per_page=12", "images/\(await world.stub.photoIDs()[42])",
                ]
                let (port, fromFile) = try await Self.answers(
                    world, database: world.database, listen: "127.0.0.1:0", routes: routes)
                let (_, fromServer) = try await Self.answers(
                    world, database: postgres, listen: "127.0.0.1:\(port)", routes: routes)
                for route in routes {
                    #expect(Bool(fromFile[route]?.1 == fromServer[route]?.1), "\(route)")
                }

                // AND a run on PostgreSQL goes on where the file stood: no image fetched or
                // download tracked again, no source walked from its start
                await world.stub.resetRequestLog()
                let goOn = try await PhotosyncProcess.run(
                    await world.runArguments(sources + ["--database", postgres]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(goOn.status == 0, "\(goOn.stderr)")
                #expect(await world.stub.imageRequestCounts().isEmpty)
                #expect(await world.stub.downloadTrackingCounts().isEmpty)
                let apiRequests = await world.stub.apiRequestCount
                #expect(apiRequests <= 6, "a page a source to poll its head, and a source object: \(apiRequests)")

                // AND back: a backup of PostgreSQL is an SQLite file that verifies
                let backup = world.directory.appending(path: "backup.sqlite").path
                let backedUp = try await PhotosyncProcess.run([
                    "backup", "--database", postgres, "--to", backup, "--config", world.config,
                ])
                #expect(backedUp.status == 0 && backedUp.stdout.contains("300 images verified"), "\(backedUp.stdout)")
                let (_, fromBackup) = try await Self.answers(
                    world, database: backup, listen: "127.0.0.1:\(port)", routes: routes)
                for route in routes {
                    #expect(Bool(fromFile[route]?.1 == fromBackup[route]?.1), "\(route)")
                }
            }
        }
    }
}
