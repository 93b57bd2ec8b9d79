import Foundation
import GRDB
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// The writer lock, `verify`, and the command line's rough edges, through the real binary.
extension EndToEnd.PhotosyncEndToEndTests {
    @Test(arguments: StoreKind.allCases) func aSecondRunExits73NamingTheWriterWhileReadersGoOn(_ store: StoreKind)
        async throws
    {
        let world = try await World.start(photos: 60, store: StoreSetup(store))
        try await withTeardown(await world.stop()) {
            await world.stub.delayImages(by: .milliseconds(20))
            // GIVEN a daemon that has stored its first page, so it holds the lock
            let daemonArguments = await world.runArguments().filter { $0 != "--once" }
            let daemon = try PhotosyncProcess(daemonArguments, environment: ["UNSPLASH_ACCESS_KEY": Self.key])
            #expect(await daemon.awaitPages(1))

            // WHEN a second run starts on the same database
            let second = try await world.sync()

            // THEN it exits at once with one line naming the daemon's PID (and, on PostgreSQL,
            // whose lease any host sees, its host)
            #expect(second.status == 73, "\(second.stderr)")
            let holder =
                store == .sqlite ? "PID \(daemon.pid)" : "PID \(daemon.pid) on \(ProcessInfo.processInfo.hostName)"
            #expect(
                second.stderr.hasPrefix("photosync: another photosync run (\(holder)) is writing this database"),
                "\(second.stderr)")
            #expect(second.stderr.filter(\.isNewline).count == 1)
            // AND readers are not blocked
            let status = try await PhotosyncProcess.run([
                "status", "--database", world.database, "--config", world.config,
            ])
            #expect(status.status == 0, "\(status.stderr)")
            let verify = try await PhotosyncProcess.run([
                "verify", "--database", world.database, "--config", world.config,
            ])
            #expect(verify.status == 0, "\(verify.stderr)")

            // AND once the daemon is killed, the kernel has released the lock for the next run (on
            // PostgreSQL: the lease of a process of this host that is gone is free at once)
            daemon.signal(SIGKILL)
            _ = await daemon.result()
            await world.stub.delayImages(by: nil)
            let third = try await world.sync()
            #expect(third.status == 0, "\(third.stderr)")
        }
    }

    @Test(arguments: StoreKind.allCases) func verifyPassesASyncedDatabaseAndNamesACorruptedImage(_ store: StoreKind)
        async throws
    {
        let world = try await World.start(photos: 30, store: StoreSetup(store))
        try await withTeardown(await world.stop()) {
            #expect(try await world.sync().status == 0)
            let verifyArguments = ["verify", "--database", world.database, "--config", world.config]

            let clean = try await PhotosyncProcess.run(verifyArguments)
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.stdout.contains("images checked  30"))
            #expect(clean.stdout.contains("problems        0"))

            // One stored image's bytes zeroed, its length kept, as a failing disk might leave them.
            let victim = try #require(await world.stub.photoIDs().dropFirst(7).first)
            switch store {
            case .sqlite:
                try await DatabaseQueue(path: world.database).write { db in
                    try db.execute(
                        sql: """
                            UPDATE image_data SET bytes = zeroblob(length(bytes))
                            WHERE image_id = (SELECT id FROM image WHERE photo_id = ?)
                            """, arguments: [victim])
                }
            case .postgres:
                try await PostgresTestCluster.shared.execute(
                    """
                    UPDATE image_chunk SET bytes = decode(repeat('00', length(bytes)), 'hex')
                    WHERE image_id = (SELECT id FROM image WHERE photo_id = '\(victim)')
                    """, in: world.database)
            }

            let damaged = try await PhotosyncProcess.run(verifyArguments)
            #expect(damaged.status == 65, "\(damaged.stderr)")
            #expect(damaged.stdout.contains("sha256_mismatch \(victim) (regular)"), "\(damaged.stdout)")
            #expect(damaged.stderr == "photosync: verify found 1 problem in \(world.database)\n")

            let json = try await PhotosyncProcess.run(verifyArguments + ["--json"])
            #expect(json.status == 65)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["ok"] as? Bool == false && object["integrity"] as? String == "ok")
            let problems = try #require(object["problems"] as? [[String: Any]])
            #expect(problems.map { $0["photo"] as? String } == [victim])
        }
    }

    @Test func anIdThatBeginsWithADashIsTakenAsTyped() async throws {
        let world = try await World.start(photos: 3)
        try await withTeardown(await world.stop()) {
            #expect(try await world.sync().status == 0)

            let result = try await world.query(["--id", "-R6xwObznIX"])

            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr == "photosync: no photo with id -R6xwObznIX in \(world.database)\n")
        }
    }

    @Test func outputDashWritesTheImageToStandardOutput() async throws {
        let world = try await World.start(photos: 5)
        try await withTeardown(await world.stop()) {
            #expect(try await world.sync().status == 0)
            let id = try #require(await world.stub.photoIDs().first)

            let result = try await world.query(["--id", id, "--output", "-"])

            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutData == world.stub.imageBytes(photoID: id, variant: "regular"))
            #expect(!FileManager.default.fileExists(atPath: "-"))
        }
    }

    @Test func aUsageErrorIsOneLineWithAHintToHelp() async throws {
        let unknown = try await PhotosyncProcess.run(["query", "--id", "x", "--bogus"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr == "photosync: Unknown option '--bogus' (see 'photosync query --help')\n",
            "\(unknown.stderr)")

        let missing = try await PhotosyncProcess.run(["status", "--database"])
        #expect(missing.status == 64)
        #expect(
            missing.stderr.hasPrefix("photosync: ") && missing.stderr.hasSuffix(" (see 'photosync status --help')\n"))
        #expect(missing.stderr.filter(\.isNewline).count == 1, "\(missing.stderr)")

        let journal = try await PhotosyncProcess.run(["frobnicate"], journal: true)
        #expect(journal.status == 64)
        #expect(
            journal.stderr.hasPrefix("<3>photosync: ") && journal.stderr.hasSuffix("(see 'photosync --help')\n"),
            "\(journal.stderr)")
        #expect(journal.stderr.filter(\.isNewline).count == 1)

        let help = try await PhotosyncProcess.run(["--help"])
        #expect(
            help.status == 0 && help.stdout.contains("EXIT CODES") && help.stdout.contains("73") && help.stderr.isEmpty)
    }

    @Test func plainHttpToARemoteApiIsRefused() async throws {
        let world = try await World.start(photos: 1)
        try await withTeardown(await world.stop()) {
            let arguments = ["run", "--once", "--database", world.database, "--config", world.config]

            let flag = try await PhotosyncProcess.run(
                arguments + ["--api-base", "http://example.com"], environment: ["UNSPLASH_ACCESS_KEY": Self.key])
            #expect(flag.status == 64, "\(flag.stderr)")
            #expect(flag.stderr.contains("must use https") && flag.stderr.filter(\.isNewline).count == 1)

            let environment = try await PhotosyncProcess.run(
                arguments, environment: ["UNSPLASH_ACCESS_KEY": Self.key, "PHOTOSYNC_API_BASE": "http://example.com"])
            #expect(environment.status == 78, "\(environment.stderr)")
            #expect(environment.stderr.hasPrefix("photosync: PHOTOSYNC_API_BASE: "))
            #expect(!FileManager.default.fileExists(atPath: world.database))
        }
    }
}
