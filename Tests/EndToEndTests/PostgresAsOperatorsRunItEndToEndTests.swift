import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// PostgreSQL as operators run it, through the real binary: over TLS with their own CA and a
/// client certificate, read from a hot standby made with `pg_basebackup -R`, and backed up with
/// `pg_dump`. (Through PgBouncer: the PostgreSQL tests parameterized by `StoreSetup`.)
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct PostgresAsOperatorsRunItEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        static func waited(_ what: String) -> FailoverEndToEndTests.Hung {
            FailoverEndToEndTests.Hung(description: what)
        }

        static func lastLine(_ result: PhotosyncProcess.Result) -> String {
            result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        }

        @Test func aSyncOverVerifiedTLSWithAClientCertificateAndEveryRefusalIsOneLineAnd78() async throws {
            // GIVEN a server on TCP that speaks TLS only, with a certificate for `localhost` signed
            // by the test's own CA, that asks every client for a certificate of that CA
            let certificates = try TestCertificates.make(clientUser: "postgres")
            defer { certificates.remove() }
            let port = try TestCertificates.freePort()
            let cluster = PostgresTestCluster.own(
                PostgresTestCluster.Setup(
                    addresses: ["127.0.0.1"], port: port,
                    settings: [
                        "ssl=on", "ssl_cert_file='\(certificates.serverCertificate)'",
                        "ssl_key_file='\(certificates.serverKey)'", "ssl_ca_file='\(certificates.authority)'",
                    ],
                    rules: ["hostssl all all 127.0.0.1/32 cert", "hostnossl all all 127.0.0.1/32 reject"]))
            let database = try await cluster.makeDatabase()
            let name = try #require(URLComponents(string: database)?.path)
            let world = try await World.start(
                UnsplashStub(configuration: .init(photoCount: 60, accessKey: PhotosyncEndToEndTests.key)),
                database: nil)
            try await withTeardown(await world.stop()) {
                func url(host: String, _ parameters: String) -> String {
                    "postgres://postgres@\(host):\(port)\(name)?\(parameters)"
                }
                func run(_ url: String) async throws -> PhotosyncProcess.Result {
                    try await PhotosyncProcess.run(
                        await world.runArguments(["--database", url]),
                        environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                }
                let verified =
                    "sslmode=verify-full&sslrootcert=\(certificates.authority)"
                    + "&sslcert=\(certificates.clientCertificate)&sslkey=\(certificates.clientKey)"

                // WHEN photosync syncs over verify-full with its client certificate
                let synced = try await run(url(host: "localhost", verified))
                // THEN every photo is stored, and status reads it the same way
                #expect(synced.status == 0, "\(synced.stderr)")
                let status = try await PhotosyncProcess.run([
                    "status", "--database", url(host: "localhost", verified), "--config", world.config,
                ])
                #expect(status.stdout.contains("photos          60"), "\(status.stdout)\(status.stderr)")

                // AND every way it cannot verify is refused: one line, the cause in words, 78
                let refusals: [(url: String, says: String)] = [
                    // the certificate names localhost, not the address connected to
                    (url(host: "127.0.0.1", verified), "not for the host"),
                    // a CA that did not sign the server's certificate
                    (
                        url(
                            host: "localhost",
                            "sslmode=verify-full&sslrootcert=\(certificates.otherAuthority)"
                                + "&sslcert=\(certificates.clientCertificate)&sslkey=\(certificates.clientKey)"),
                        "not signed by a CA of sslrootcert"
                    ),
                    // no client certificate for a server that asks for one
                    (
                        url(host: "localhost", "sslmode=verify-full&sslrootcert=\(certificates.authority)"),
                        "client certificate"
                    ),
                    // a server that speaks TLS only, and sslmode=disable
                    (url(host: "localhost", "sslmode=disable"), "no encryption"),
                ]
                for refusal in refusals {
                    let result = try await run(refusal.url)
                    let line = Self.lastLine(result)
                    #expect(result.status == 78, "\(refusal.url): \(result.stderr)")
                    #expect(line.hasPrefix("photosync: ") && line.contains(refusal.says), "\(line)")
                    #expect(result.stderr.filter(\.isNewline).count == 1, "\(result.stderr)")
                    #expect(!result.stderr.contains(".cc:") && !result.stderr.contains("/build/"), "\(line)")
                }
                // AND libpq's variables give what the URL leaves out, TLS included
                let fromVariables = try await PhotosyncProcess.run(
                    ["status", "--database", "postgres:///\(name.dropFirst())", "--config", world.config],
                    environment: [
                        "PGHOST": "localhost", "PGPORT": String(port), "PGUSER": "postgres", "PGSSLMODE": "verify-full",
                        "PGSSLROOTCERT": certificates.authority, "PGSSLCERT": certificates.clientCertificate,
                        "PGSSLKEY": certificates.clientKey,
                    ])
                #expect(fromVariables.stdout.contains("photos          60"), "\(fromVariables.stderr)")
            }
        }

        @Test func serveOnAStandbyRecordsItsRequestsOnThePrimaryOnceAndSaysHowFarBehindItIs() async throws {
            // GIVEN a mirror synced into a primary, metadata only, and a hot standby of it made
            // with pg_basebackup -R
            let primary = PostgresTestCluster.own()
            let database = try await primary.makeDatabase()
            let world = try await World.start(
                UnsplashStub(configuration: .init(photoCount: 60, accessKey: PhotosyncEndToEndTests.key)),
                database: database)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await FailoverEndToEndTests.stop(processes, world)) {
                let key = ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key]
                func sync() async throws -> Int32 {
                    try await PhotosyncProcess.run(await world.runArguments(["--variant", "none"]), environment: key)
                        .status
                }
                #expect(try await sync() == 0)
                let standby = try await primary.makeStandby()
                let replica = try await standby.url(of: database)
                // (the standby replays what the primary committed before it: a look every 50 ms)
                try await withDeadline(.seconds(30), failure: Self.waited("the standby never replayed the mirror")) {
                    while (try? await standby.query("SELECT count(*) FROM photo", in: replica)) != "60" {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                let photo = try #require(await world.stub.photoIDs().dropFirst(5).first)

                // WHEN serve reads the standby without primary_database
                let alone = try PhotosyncProcess(["serve", "--listen", "127.0.0.1:0", "--database", replica])
                processes.append(alone)
                var said = ""
                let base = try #require(await GalleryEndToEndTests.galleryURL(of: alone))
                said = alone.stderrSoFar
                // THEN it says so, lists and shows photos, and answers a download 503, not a 200
                #expect(said.contains("which takes no writes"), "\(said)")
                #expect(try await FailoverEndToEndTests.get(base + "unsplash/photos?per_page=5").status == 200)
                let refused = try await FailoverEndToEndTests.get(base + "unsplash/photos/\(photo)/download")
                #expect(refused.status == 503)
                #expect(String(decoding: refused.body, as: UTF8.self).contains("\"errors\""))
                let health = try await FailoverEndToEndTests.get(base + "healthz")
                #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self).contains("a standby"))
                alone.signal(SIGTERM)
                #expect(await alone.result().status == 0)

                // AND status says what it is
                let status = try await PhotosyncProcess.run(["status", "--database", replica])
                #expect(status.stdout.contains("a standby"), "\(status.stdout)\(status.stderr)")
                #expect(status.stdout.contains("(read-only)"), "\(status.stdout)")

                // WHEN serve on the standby names its primary, and serves its metrics
                let served = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", replica, "--primary-database", database,
                    "--metrics-listen", "127.0.0.1:0",
                ])
                processes.append(served)
                var (gallery, metrics): (String?, URL?) = (nil, nil)
                #expect(
                    await served.awaitLine { line in
                        metrics = metrics ?? FailoverEndToEndTests.metricsURL(in: line)
                        if line.contains("serving the gallery at"),
                            let range = line.range(of: "http://127\\.0\\.0\\.1:[0-9]+/", options: .regularExpression)
                        {
                            gallery = String(line[range])
                        }
                        return gallery != nil && metrics != nil
                    })
                let primaryBase = try #require(gallery)
                // THEN a download is recorded (on the primary), twice asked, once forwarded
                for _ in 0..<2 {
                    #expect(
                        try await FailoverEndToEndTests.get(primaryBase + "unsplash/photos/\(photo)/download").status
                            == 200)
                }
                let scraped = try await FailoverEndToEndTests.metrics(try #require(metrics))
                #expect(scraped.contains("photosync_database_standby 1"), "\(scraped)")
                #expect(scraped.contains("photosync_database_standby_lag_seconds "), "\(scraped)")
                #expect(await world.stub.downloadTrackingCount(photoID: photo) == 0)
                #expect(try await sync() == 0)
                #expect(try await sync() == 0)
                #expect(await world.stub.downloadTrackingCount(photoID: photo) == 1)
                served.signal(SIGTERM)
                #expect(await served.result().status == 0)

                // AND a primary_database that is not the standby's primary is refused at the start
                let another = try await primary.makeDatabase()
                let wrong = try await PhotosyncProcess.run([
                    "serve", "--listen", "127.0.0.1:0", "--database", replica, "--primary-database", another,
                ])
                #expect(wrong.status == 78, "\(wrong.stderr)")
                #expect(Self.lastLine(wrong).contains("the primary this standby replicates"), "\(wrong.stderr)")

                // AND run, which writes, refuses the standby
                let onStandby = try await PhotosyncProcess.run(
                    await world.runArguments(["--database", replica]), environment: key)
                #expect(onStandby.status == 74, "\(onStandby.stderr)")
                #expect(Self.lastLine(onStandby).contains("read-only standby"), "\(onStandby.stderr)")

                // AND once its primary is gone, /healthz says the standby lags past max_replica_lag
                try await primary.stop()
                let lagging = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", replica, "--max-replica-lag", "1",
                ])
                processes.append(lagging)
                let laggingBase = try #require(await GalleryEndToEndTests.galleryURL(of: lagging))
                // (the last transaction it replayed grows older: a look every 100 ms)
                let answer = try await withDeadline(.seconds(30), failure: Self.waited("healthz never said it lags")) {
                    while true {
                        let answer = try await FailoverEndToEndTests.get(laggingBase + "healthz")
                        if answer.status == 503 { return answer }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
                #expect(String(decoding: answer.body, as: UTF8.self).contains("max_replica_lag"))
            }
        }

        @Test func aMirrorDumpedAndRestoredIsWholeListsTheSameAndFetchesNoImageAgain() async throws {
            // GIVEN a mirror in PostgreSQL, dumped with pg_dump -Fc and restored into a new database
            let world = try await World.start(photos: 60, store: .postgres)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let dump = world.directory.appending(path: "mirror.dump").path
                try await PostgresTestCluster.shared.dump(world.database, to: dump)
                let restored = try await PostgresTestCluster.shared.makeDatabase()
                try await PostgresTestCluster.shared.restore(dump, into: restored)

                // THEN verify finds it whole, it lists the same photos, and a run fetches no image again
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", restored, "--config", world.config,
                ])
                #expect(verify.status == 0 && verify.stdout.contains("problems        0"), "\(verify.stdout)")
                let list = ["list", "--json", "--limit", "100", "--config", world.config, "--database"]
                let original = try await PhotosyncProcess.run(list + [world.database])
                let copy = try await PhotosyncProcess.run(list + [restored])
                #expect(original.status == 0 && !original.stdout.isEmpty)
                #expect(copy.stdout == original.stdout)
                let again = try await PhotosyncProcess.run(
                    await world.runArguments(["--database", restored]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(again.status == 0, "\(again.stderr)")
                for id in await world.stub.photoIDs() {
                    #expect(await world.stub.imageRequestCount(photoID: id) == 1, "\(id) was fetched again")
                    #expect(await world.stub.downloadTrackingCount(photoID: id) == 1, "\(id) was tracked again")
                }
            }
        }
    }
}
