import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An active and a standby `run` on one PostgreSQL database, through the real binary: the
/// standby takes over when the active one is killed, paused or stopped, and the takeover loses,
/// repeats and double-writes nothing.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct FailoverEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        struct Hung: Error, CustomStringConvertible {
            let description: String
        }

        /// A lease of 6 s: a standby waiting out an expiry does not hold the test long, and a
        /// holder renewing every 2 s rides out the stalls of a machine loaded by the whole suite.
        static let lease = ["--writer-lease", "6", "--poll-interval", "10", "--concurrency", "2"]

        static func daemon(_ world: World) async throws -> PhotosyncProcess {
            try PhotosyncProcess(
                await world.daemonArguments(lease),
                environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
        }

        /// The lease row: the holder's PID and the epoch.
        static func holder(_ world: World) async throws -> (pid: Int32, epoch: Int64)? {
            let row = try await PostgresTestCluster.shared.query(
                "SELECT pid, epoch FROM writer_lease", in: world.database)
            let fields = row.split(separator: "|")
            guard fields.count == 2, let pid = Int32(fields[0]), let epoch = Int64(fields[1]) else { return nil }
            return (pid, epoch)
        }

        /// Waits until `process` says it took the writer lease; false when it ended first or
        /// `limit` passed.
        static func takesOver(_ process: PhotosyncProcess, within limit: Duration) async throws -> Bool {
            try await withDeadline(limit, failure: Hung(description: "no takeover within \(limit)")) {
                await process.awaitLine { $0.contains("took the writer lease") }
            }
        }

        /// Straight to the server, and through PgBouncer in each pool mode: behind a pooler in
        /// transaction mode, consecutive transactions of one process run on different server
        /// connections, and the lease and its fence hold all the same.
        @Test(arguments: StoreSetup.postgresRoutes)
        func theStandbyTakesOverAfterEachOfTenKillsAndNothingIsLostOrRepeated(_ setup: StoreSetup) async throws {
            // GIVEN an active and a standby daemon on one database, photos arriving at the head
            let stub = UnsplashStub(
                configuration: .init(photoCount: 240, accessKey: PhotosyncEndToEndTests.key, imageSize: 2_000, seed: 7))
            let world = try await World.start(stub, store: setup)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world)) {
                await stub.delayImages(by: .milliseconds(20))
                await stub.delayAPIRequests(by: .milliseconds(4))
                await stub.addPhotosWhilePaging(count: 2, everyPageRequests: 4)
                var random = SeededRandom(seed: 0x5EED_0031)
                let first = try await Self.daemon(world)
                processes.append(first)
                #expect(try await Self.takesOver(first, within: .seconds(30)))
                let second = try await Self.daemon(world)
                processes.append(second)
                #expect(await second.awaitLine { $0.contains("standing by") })
                var live = [first, second]
                var kept = WhatAKillKeeps()
                var takeovers: [Duration] = []

                // WHEN the active one (the lease's holder) is killed with -9 at a random moment, ten times
                for kill in 1...10 {
                    try await Task.sleep(for: .milliseconds(Int(200 + random.next() % 1_300)))
                    let holder = try #require(try await Self.holder(world), "kill \(kill): no holder")
                    let active = try #require(live.first { $0.pid == holder.pid }, "kill \(kill): \(holder)")
                    let standby = try #require(live.first { $0.pid != holder.pid })
                    active.signal(SIGKILL)
                    let killed = ContinuousClock.now
                    // THEN the standby holds the lease within 20 s, with the next epoch
                    var now = try await Self.holder(world)
                    while now?.pid != standby.pid && ContinuousClock.now - killed < .seconds(20) {
                        try await Task.sleep(for: .milliseconds(20))
                        now = try await Self.holder(world)
                    }
                    takeovers.append(.now - killed)
                    #expect(
                        now?.pid == standby.pid && now?.epoch == holder.epoch + 1,
                        "kill \(kill): \(String(describing: now))")
                    #expect(await active.result().status == SIGKILL)
                    let fresh = try await Self.daemon(world)
                    processes.append(fresh)
                    #expect(await fresh.awaitLine { $0.contains("standing by") }, "kill \(kill)")
                    live = [standby, fresh]

                    let store = try await world.store()
                    let tracked = try await PostgresTestCluster.shared.query(
                        "SELECT photo_id FROM download_tracking WHERE tracked_at IS NOT NULL", in: world.database)
                    await kept.note(
                        stored: try await store.catalog.photoIDs(withStoredImage: true),
                        tracked: tracked.split(separator: "\n").map(String.init), stub: stub)
                    try store.close()
                }
                print(
                    "takeovers after kill -9: \(takeovers.map { $0.formatted(.units(fractionalPart: .show(length: 2))) })"
                )

                // AND once the arrivals stop and the daemons are stopped, a last run finds nothing
                // left undone that it must fetch again
                await stub.addPhotosWhilePaging(count: 0, everyPageRequests: 0)
                for process in live {
                    process.signal(SIGTERM)
                    #expect(await process.result().status == 0)
                }
                let final = try await PhotosyncProcess.run(
                    await world.runArguments(), environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(final.status == 0, "\(final.stderr)")

                // THEN every photo is stored once with its image whole, every download tracked
                let ids = await stub.photoIDs()
                let store = try await world.store()
                defer { try? store.close() }
                let statistics = try await store.catalog.statistics()
                #expect(statistics.photos == Int64(ids.count) && statistics.imagesStored == Int64(ids.count))
                #expect(statistics.imagesPending == 0 && statistics.imagesFailed == 0)
                var repeated = 0
                for id in ids {
                    #expect(
                        try await store.catalog.photo(id: id)?.image?.sha256
                            == stub.expectedSHA256(photoID: id, variant: "regular"), "\(id)")
                    #expect(await stub.downloadTrackingCount(photoID: id) >= 1, "\(id) never tracked")
                    if await stub.downloadTrackingCount(photoID: id) > 1 { repeated += 1 }
                }
                // (a kill between Unsplash's answer and its record repeats that one: at least once)
                print("photos whose download was tracked more than once after ten kills: \(repeated)")
                // AND nothing stored before a takeover was fetched again, nothing recorded tracked again
                await kept.expectNothingRepeated(stub)
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", world.database, "--config", world.config,
                ])
                #expect(verify.status == 0 && verify.stdout.contains("problems        0"), "\(verify.stdout)")
            }
        }

        @Test func aHolderKilledOnAnotherHostIsWaitedOutWithinItsLease() async throws {
            // GIVEN an active daemon on "another host" (a UTS namespace of its own, so that its
            // host name differs and the standby cannot see that its process is gone)
            let world = try await World.start(photos: 200, store: .postgres)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world)) {
                await world.stub.delayAPIRequests(by: .milliseconds(40))
                let elsewhere = try PhotosyncProcess(
                    await world.daemonArguments(Self.lease),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key],
                    launcher: ["/usr/bin/unshare", "--uts", "/bin/sh", "-c", #"hostname other-host && exec "$0" "$@""#])
                processes.append(elsewhere)
                #expect(try await Self.takesOver(elsewhere, within: .seconds(30)))
                let standby = try await Self.daemon(world)
                processes.append(standby)
                #expect(await standby.awaitLine { $0.contains("standing by") && $0.contains("host=other-host") })

                // WHEN it is killed with -9
                elsewhere.signal(SIGKILL)
                let killed = ContinuousClock.now

                // THEN the standby takes over once the lease has expired: within the lease (6 s)
                // and its next look, not at once
                #expect(try await Self.takesOver(standby, within: .seconds(20)))
                let takeover = ContinuousClock.now - killed
                print(
                    "takeover after kill -9 on another host: \(takeover.formatted(.units(fractionalPart: .show(length: 2))))"
                )
                #expect(takeover > .seconds(2), "the lease of a live host's process was taken at once")
                #expect(await standby.awaitPages(1))
            }
        }

        @Test func aPausedHolderWritesNothingOnceTheStandbyTookOverAndStandsBy() async throws {
            // GIVEN an active daemon backfilling slowly, each write to photosync's tables logged
            // with the process that made it and the lease's epoch at the time
            let stub = UnsplashStub(
                configuration: .init(photoCount: 600, accessKey: PhotosyncEndToEndTests.key, imageSize: 2_000, seed: 8))
            let world = try await World.start(stub, store: .postgres)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world)) {
                await stub.delayAPIRequests(by: .milliseconds(150))
                await stub.delayImages(by: .milliseconds(20))
                let first = try await Self.daemon(world)
                processes.append(first)
                #expect(try await Self.takesOver(first, within: .seconds(30)))
                try await PostgresTestCluster.shared.execute(Self.writeLog, in: world.database)
                #expect(await first.awaitPages(2))
                let second = try await Self.daemon(world)
                processes.append(second)
                #expect(await second.awaitLine { $0.contains("standing by") })
                let firstEpoch = try #require(try await Self.holder(world)?.epoch)

                // WHEN the active one is stopped past its lease (SIGSTOP), the standby takes over
                // and writes, and the first comes back (SIGCONT)
                first.signal(SIGSTOP)
                #expect(try await Self.takesOver(second, within: .seconds(20)))
                #expect(await second.awaitPages(2))
                first.signal(SIGCONT)

                // THEN the first learns that it lost the lease, and stands by
                #expect(await first.awaitLine { $0.contains("writes no more") })
                #expect(
                    await first.awaitLine { $0.contains("standing by: another photosync run holds") },
                    "\(first.stderrSoFar.suffix(3_000))")
                #expect(first.isRunning)
                #expect(try await Self.holder(world)?.pid == second.pid)

                // AND not one row was written by the first after the epoch it held
                let late = try await PostgresTestCluster.shared.query(
                    """
                    SELECT count(*) FROM test_writes.log
                    WHERE application LIKE 'photosync run \(first.pid) %' AND epoch > \(firstEpoch)
                    """, in: world.database)
                #expect(late == "0", "rows written by the paused holder after it lost the lease")
                let mine = try await PostgresTestCluster.shared.query(
                    """
                    SELECT count(*) > 0 FROM test_writes.log
                    WHERE application LIKE 'photosync run \(second.pid) %' AND epoch = \(firstEpoch + 1)
                    """, in: world.database)
                #expect(mine == "t", "the log saw no write of the new holder: it logs nothing")
            }
        }

        /// A log of every row written to one of photosync's tables, with the connection's
        /// application name (the process that wrote) and the lease's epoch as it sees it.
        ///
        /// By row, not by statement: a statement trigger fires for a statement that changed
        /// nothing, and a write that fences itself in its one statement (a batch of images,
        /// tracking marks) runs and changes nothing once the lease is another's. The paused
        /// holder's first write after SIGCONT was logged so once, a late write that wrote nothing.
        static let writeLog = """
            CREATE SCHEMA test_writes;
            CREATE TABLE test_writes.log (
                application text NOT NULL, epoch bigint, at timestamptz NOT NULL DEFAULT clock_timestamp());
            CREATE FUNCTION test_writes.record() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO test_writes.log (application, epoch)
                SELECT current_setting('application_name'), (SELECT epoch FROM public.writer_lease WHERE id = 1);
                RETURN NULL;
            END $$;
            DO $$
            DECLARE name text;
            BEGIN
                FOR name IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'writer_lease'
                LOOP
                    EXECUTE format(
                        'CREATE TRIGGER test_writes AFTER INSERT OR UPDATE OR DELETE ON public.%I '
                        'FOR EACH ROW EXECUTE FUNCTION test_writes.record()', name);
                END LOOP;
            END $$;
            """

        @Test func aStoppedHolderHandsOverAtOnceAndStatusAndMetricsShowTheRoles() async throws {
            let world = try await World.start(photos: 60, store: .postgres)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world)) {
                // GIVEN an active daemon and a standby serving its metrics
                let first = try await Self.daemon(world)
                processes.append(first)
                #expect(try await Self.takesOver(first, within: .seconds(30)))
                let second = try PhotosyncProcess(
                    await world.daemonArguments(Self.lease + ["--metrics-listen", "127.0.0.1:0"]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                processes.append(second)
                var metricsURL: URL?
                #expect(
                    await second.awaitLine { line in
                        metricsURL = metricsURL ?? Self.metricsURL(in: line)
                        return line.contains("standing by: another")
                    })
                let standbyMetrics = try await Self.metrics(try #require(metricsURL))
                #expect(standbyMetrics.contains("photosync_writer_active 0"), "\(standbyMetrics)")
                #expect(
                    standbyMetrics.contains("photosync_writer_lease_holder{host=\"")
                        && standbyMetrics.contains("pid=\"\(first.pid)\"} 1"), "\(standbyMetrics)")
                let status = try await PhotosyncProcess.run(["status", "--database", world.database])
                #expect(status.stdout.contains("writer          PID \(first.pid) on "), "\(status.stdout)")

                // WHEN the active one is stopped with SIGTERM
                first.signal(SIGTERM)
                let stopped = ContinuousClock.now
                #expect(await first.result().status == 0)

                // THEN the standby takes over at once (within its look at the lease, every second)
                #expect(try await Self.takesOver(second, within: .seconds(20)))
                let handover = ContinuousClock.now - stopped
                print("handover after SIGTERM: \(handover.formatted(.units(fractionalPart: .show(length: 2))))")
                #expect(handover < .seconds(10), "a released lease was waited out: \(handover)")
                // (the active run serves its metrics anew, on a port of its own with port 0)
                var activeURL: URL?
                #expect(
                    await second.awaitLine { line in
                        activeURL = Self.metricsURL(in: line)
                        return activeURL != nil
                    })
                let activeMetrics = try await Self.metrics(try #require(activeURL))
                #expect(activeMetrics.contains("photosync_writer_active 1"), "\(activeMetrics)")
                #expect(activeMetrics.contains("pid=\"\(second.pid)\"} 1"), "\(activeMetrics)")
                let after = try await PhotosyncProcess.run(["status", "--json", "--database", world.database])
                let json = try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any]
                let writer = json?["writer"] as? [String: Any]
                #expect(writer?["pid"] as? Int == Int(second.pid), "\(after.stdout)")
                #expect(writer?["expired"] as? Bool == false, "\(after.stdout)")
            }
        }

        @Test func aHostCutOffTheNetworkIsReplacedAndStandsByOnceItIsBack() async throws {
            // GIVEN two hosts of their own, each with a daemon, and the database on this one
            let stub = UnsplashStub(
                configuration: .init(photoCount: 400, accessKey: PhotosyncEndToEndTests.key, imageSize: 2_000, seed: 9))
            let started = try await World.start(stub, store: .sqlite)
            let hosts = try await TwoHosts.create(stubPort: await stub.baseURL.port ?? 0)
            let cluster = PostgresTestCluster.own(listeningOn: [TwoHosts.address(0), TwoHosts.address(1)])
            let local = try await cluster.makeDatabase()
            let world = World(stub: started.stub, directory: started.directory, database: local)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world, hosts)) {
                await stub.delayAPIRequests(by: .milliseconds(40))
                let name = try #require(URLComponents(string: local)?.path)
                func daemon(on host: Int) async throws -> PhotosyncProcess {
                    var arguments = await world.daemonArguments(Self.lease)
                    let database = try #require(arguments.firstIndex(of: "--database")) + 1
                    arguments[database] = "postgres://postgres@\(TwoHosts.address(host))\(name)?sslmode=disable"
                    return try PhotosyncProcess(
                        arguments, environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key],
                        launcher: TwoHosts.launcher(host))
                }
                let active = try await daemon(on: 0)
                processes.append(active)
                #expect(try await Self.takesOver(active, within: .seconds(30)))
                let standby = try await daemon(on: 1)
                processes.append(standby)
                #expect(await standby.awaitLine { $0.contains("standing by") })
                #expect(await active.awaitPages(2))

                // WHEN the active host's link is cut
                try await hosts.cut(0)
                let cut = ContinuousClock.now

                // THEN the standby takes over within the lease and the server's keepalives
                #expect(try await Self.takesOver(standby, within: .seconds(40)))
                let takeover = ContinuousClock.now - cut
                print("takeover after the network cut: \(takeover.formatted(.units(fractionalPart: .show(length: 2))))")
                #expect(await standby.awaitPages(1))

                // AND once the link is back, the old active says it lost the lease and stands by
                try await hosts.restore(0)
                let back = try await withDeadline(
                    .seconds(120), failure: Hung(description: "never stood by: \(active.stderrSoFar.suffix(3_000))")
                ) {
                    await active.awaitLine { $0.contains("standing by: another photosync run holds") }
                }
                #expect(back, "\(active.stderrSoFar.suffix(3_000))")
                #expect(active.isRunning)
                let holder = try await cluster.query("SELECT pid FROM writer_lease", in: local)
                #expect(holder == "\(standby.pid)")

                // AND the mirror the standby finishes is whole
                for process in [active, standby] {
                    process.signal(SIGTERM)
                    #expect(await process.result().status == 0)
                }
                let final = try await PhotosyncProcess.run(
                    await world.runArguments(), environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(final.status == 0, "\(final.stderr)")
                let store = try await world.store()
                defer { try? store.close() }
                let statistics = try await store.catalog.statistics()
                #expect(statistics.photos == 400 && statistics.imagesStored == 400 && statistics.imagesPending == 0)
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", world.database, "--config", world.config,
                ])
                #expect(verify.status == 0 && verify.stdout.contains("problems        0"), "\(verify.stdout)")
            }
        }

        @Test(arguments: StoreSetup.postgresRoutes)
        func twoServesOnOneDatabaseShowNewPhotosAndForwardATrackingRequestOnce(_ setup: StoreSetup) async throws {
            // GIVEN a mirror in PostgreSQL (straight, or through PgBouncer), metadata only, and
            // `serve` twice on it
            let world = try await World.start(photos: 60, store: setup)
            var processes: [PhotosyncProcess] = []
            try await withTeardown(await Self.stop(processes, world)) {
                let key = ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key]
                #expect(try await world.sync(["--variant", "none"]).status == 0)
                var bases: [String] = []
                for _ in 0..<2 {
                    let serve = try PhotosyncProcess([
                        "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                    ])
                    processes.append(serve)
                    bases.append(try #require(await GalleryEndToEndTests.galleryURL(of: serve)) + "unsplash/")
                }
                for base in bases { _ = try await Self.get(base + "photos?per_page=5") }

                // WHEN `run` commits photos that arrived since
                let arrived = await world.stub.addPhotos(count: 3)
                #expect(
                    try await PhotosyncProcess.run(await world.runArguments(["--variant", "none"]), environment: key)
                        .status == 0)
                let committed = ContinuousClock.now

                // THEN both serves list them at once (each sees the commit within a second)
                for base in bases {
                    var listed = ""
                    while !listed.contains(arrived[0]) && ContinuousClock.now - committed < .seconds(5) {
                        listed = String(decoding: try await Self.get(base + "photos?per_page=5").body, as: UTF8.self)
                    }
                    let seen = ContinuousClock.now - committed
                    print(
                        "\(base) listed the new photos after \(seen.formatted(.units(fractionalPart: .show(length: 2))))"
                    )
                    #expect(listed.contains(arrived[0]), "\(base) never listed \(arrived[0])")
                }

                // AND a download asked of both for the same photo is forwarded to Unsplash once
                let photo = arrived[1]
                for base in bases {
                    #expect(try await Self.get(base + "photos/\(photo)/download").status == 200)
                }
                #expect(await world.stub.downloadTrackingCount(photoID: photo) == 0)
                for _ in 0..<2 {
                    #expect(
                        try await PhotosyncProcess.run(
                            await world.runArguments(["--variant", "none"]), environment: key
                        )
                        .status == 0)
                }
                #expect(await world.stub.downloadTrackingCount(photoID: photo) == 1)
            }
        }

        /// Status and body of a GET with a client key, as an app would ask.
        static func get(_ url: String) async throws -> (status: Int, body: Data) {
            var request = URLRequest(url: try #require(URL(string: url)))
            request.setValue("Client-ID any-key", forHTTPHeaderField: "Authorization")
            let (body, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
        }

        static func stop(_ processes: [PhotosyncProcess], _ world: World, _ hosts: TwoHosts) async {
            await stop(processes, world)
            await hosts.stop()
        }

        /// Kills what still runs (a stopped one too), awaits every process, and stops the world.
        static func stop(_ processes: [PhotosyncProcess], _ world: World) async {
            for process in processes where process.isRunning {
                process.signal(SIGCONT)
                process.signal(SIGKILL)
            }
            for process in processes { _ = await process.result() }
            await world.stop()
        }

        /// The metrics server's address, from the line that says where it serves.
        static func metricsURL(in line: String) -> URL? {
            line.range(of: "http://127.0.0.1:[0-9]+/metrics", options: .regularExpression).flatMap {
                URL(string: String(line[$0]))
            }
        }

        static func metrics(_ url: URL) async throws -> String {
            let (body, _) = try await URLSession.shared.data(from: url)
            return String(decoding: body, as: UTF8.self)
        }
    }
}

/// Two hosts on this machine for the failover test: network namespaces `psync-a` and `psync-b`,
/// each joined to this one by a veth pair (10.201.N.1 here, 10.201.N.2 there). In each, the
/// stub's `127.0.0.1:PORT` is reached as on the host itself, through socat to 10.201.N.1 and
/// socat again to the stub, so that cutting a host's link (``cut(_:)``) cuts it off from the
/// database and the API alike, as a failed switch port would.
struct TwoHosts {
    static let names = ["psync-a", "psync-b"]
    static let ip = URL(fileURLWithPath: "/usr/sbin/ip")
    static let socat = URL(fileURLWithPath: "/usr/bin/socat")
    private let relays: [PhotosyncProcess]

    /// This machine's end of host `index`'s link: where that host reaches the database.
    static func address(_ index: Int) -> String { "10.201.\(index + 1).1" }

    /// What runs a program on host `index`.
    static func launcher(_ index: Int) -> [String] { [ip.path, "netns", "exec", names[index]] }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func command(_ arguments: [String]) async throws {
        let result = try await PhotosyncProcess.run(arguments, program: ip)
        guard result.status == 0 else {
            throw Failure(description: "ip \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    /// Makes both hosts (removing any left by an earlier run), with relays to the stub's `port`.
    static func create(stubPort: Int) async throws -> TwoHosts {
        await remove()
        var relays: [PhotosyncProcess] = []
        do {
            for (index, name) in names.enumerated() {
                let (here, there) = (address(index), "10.201.\(index + 1).2")
                try await command(["netns", "add", name])
                try await command(["link", "add", "\(name)-0", "type", "veth", "peer", "name", "\(name)-1"])
                try await command(["link", "set", "\(name)-1", "netns", name])
                try await command(["addr", "add", "\(here)/24", "dev", "\(name)-0"])
                try await command(["link", "set", "\(name)-0", "up"])
                for step in [
                    ["addr", "add", "\(there)/24", "dev", "\(name)-1"], ["link", "set", "\(name)-1", "up"],
                    ["link", "set", "lo", "up"],
                ] {
                    try await command(["netns", "exec", name, ip.path] + step)
                }
                relays.append(
                    try PhotosyncProcess(
                        ["TCP-LISTEN:\(stubPort),bind=\(here),fork,reuseaddr", "TCP:127.0.0.1:\(stubPort)"],
                        program: socat))
                relays.append(
                    try PhotosyncProcess(
                        ["TCP-LISTEN:\(stubPort),bind=127.0.0.1,fork,reuseaddr", "TCP:\(here):\(stubPort)"],
                        launcher: launcher(index), program: socat))
            }
        } catch {
            for relay in relays { relay.signal(SIGKILL) }
            await remove()
            throw error
        }
        // Each relay listens once socat has started; a moment suffices, and a first request
        // that came too early is retried by photosync anyway.
        try await Task.sleep(for: .milliseconds(300))
        return TwoHosts(relays: relays)
    }

    /// Cuts host `index`'s link: its packets go nowhere, as with a failed switch port.
    func cut(_ index: Int) async throws {
        try await Self.command(["link", "set", "\(Self.names[index])-0", "down"])
    }

    func restore(_ index: Int) async throws {
        try await Self.command(["link", "set", "\(Self.names[index])-0", "up"])
    }

    /// Stops the relays and removes both hosts (their veth pairs go with them).
    func stop() async {
        for relay in relays { relay.signal(SIGKILL) }
        for relay in relays { _ = await relay.result() }
        await Self.remove()
    }

    private static func remove() async {
        for name in names {
            _ = try? await PhotosyncProcess.run(["netns", "del", name], program: ip)
            // Gone with the namespace, unless a process still holds that (then it goes now).
            _ = try? await PhotosyncProcess.run(["link", "del", "\(name)-0"], program: ip)
        }
    }
}
