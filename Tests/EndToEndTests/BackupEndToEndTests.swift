import Foundation
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `photosync backup --to FILE` while the daemon writes and the gallery reads.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct BackupEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        static func status(_ database: String, _ world: World) async throws -> [String: Any] {
            let result = try await PhotosyncProcess.run([
                "status", "--json", "--database", database, "--config", world.config,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }

        static func mode(_ path: String) -> mode_t? {
            var status = stat()
            return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
        }

        @Test func aBackupDuringASyncIsConsistentVerifiesAndIsOwnerOnly() async throws {
            // GIVEN a daemon backfilling 900 photos, and the gallery serving the same database
            let world = try await World.start(photos: 900)
            try await withTeardown(await world.stop()) {
                let socket = try NotifySocket()
                defer { socket.close() }
                let daemon = try await world.daemon(notifying: socket)
                var stopped = false
                defer { if !stopped { daemon.signal(SIGKILL) } }
                let backfilling = await socket.awaitMessage {
                    $0.hasPrefix("STATUS=backfilling") && !$0.contains(" 0 pages")
                }
                try #require(backfilling != nil, "the daemon never started backfilling")
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                defer { serve.signal(SIGKILL) }
                let gallery = try #require(await GalleryEndToEndTests.galleryURL(of: serve))
                let before = try await Self.status(world.database, world)
                let backupPath = world.directory.appending(path: "backup.sqlite").path

                // WHEN it is backed up, with the gallery asked for its grid meanwhile
                async let answered = URLSession.shared.data(from: URL(string: gallery)!)
                let backup = try await PhotosyncProcess.run([
                    "backup", "--database", world.database, "--config", world.config, "--to", backupPath,
                ])
                let (_, galleryResponse) = try await answered
                daemon.signal(SIGTERM)
                let daemonResult = await daemon.result()
                stopped = true

                // THEN the copy is complete, owner-only, verifies, and holds at least what was there before
                #expect(backup.status == 0, "\(backup.stderr)")
                #expect(backup.stdout.contains("backed up \(world.database) to \(backupPath)"), "\(backup.stdout)")
                #expect(Self.mode(backupPath) == 0o600)
                #expect(!FileManager.default.fileExists(atPath: backupPath + ".partial"))
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", backupPath, "--config", world.config,
                ])
                #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
                let copy = try await Self.status(backupPath, world)
                for key in ["photos", "images_stored"] {
                    let copied = try #require(copy[key] as? Int)
                    #expect(
                        copied >= (before[key] as? Int ?? .max),
                        "\(key): \(copied) in the copy, \(before[key] ?? "-") before")
                }
                #expect((galleryResponse as? HTTPURLResponse)?.statusCode == 200)
                #expect(daemonResult.status == 0, "\(daemonResult.stderr)")

                // AND photosync can run on the copy: it migrates nothing and syncs on where it was
                let resumed = try await PhotosyncProcess.run(
                    await world.runArguments().map { $0 == world.database ? backupPath : $0 },
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(try await Self.status(backupPath, world)["photos"] as? Int == 900)
            }
        }

        @Test func aKilledBackupNeverLeavesAPartialCopyUnderTheFinalName() async throws {
            // GIVEN a synced database and a good backup of it
            let world = try await World.start(photos: 300)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let backupPath = world.directory.appending(path: "backup.sqlite").path
                let arguments = ["backup", "--database", world.database, "--config", world.config, "--to", backupPath]
                #expect(try await PhotosyncProcess.run(arguments).status == 0)

                // WHEN backups to the same file are killed at different moments
                for delay in [0, 2, 5, 10, 20, 40, 80] {
                    let backup = try PhotosyncProcess(arguments)
                    try await Task.sleep(for: .milliseconds(delay))
                    backup.signal(SIGKILL)
                    _ = await backup.result()

                    // THEN the file under the final name is always a whole backup that verifies
                    let verify = try await PhotosyncProcess.run([
                        "verify", "--database", backupPath, "--config", world.config,
                    ])
                    #expect(verify.status == 0, "killed after \(delay) ms: \(verify.stdout) \(verify.stderr)")
                }

                // AND the next backup replaces what a killed one left
                #expect(try await PhotosyncProcess.run(arguments).status == 0)
                #expect(!FileManager.default.fileExists(atPath: backupPath + ".partial"))
            }
        }

        @Test func aBackupOntoTheDatabaseItselfIsRefused() async throws {
            let world = try await World.start(photos: 30)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let result = try await PhotosyncProcess.run([
                    "backup", "--database", world.database, "--config", world.config, "--to", world.database,
                ])
                #expect(result.status == 64, "\(result.stderr)")
                #expect(try await Self.status(world.database, world)["photos"] as? Int == 30)
            }
        }
    }
}
