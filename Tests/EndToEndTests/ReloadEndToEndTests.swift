import Foundation
import TestSupport
import Testing
import UnsplashStub

/// SIGHUP (`systemctl reload photosync`): the daemon rereads its configuration file.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ReloadEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        static let collection = "collection:3773378"

        static func write(_ text: String, to world: World) throws {
            try text.write(toFile: world.config, atomically: true, encoding: .utf8)
        }

        /// Sends SIGHUP and waits for the reload to end, as systemd hears it.
        static func reload(_ daemon: PhotosyncProcess, _ socket: NotifySocket) async throws {
            daemon.signal(SIGHUP)
            try #require(await socket.awaitMessage { $0.hasPrefix("RELOADING=1") } != nil)
            try #require(await socket.awaitMessage { $0 == "READY=1" } != nil)
        }

        /// Lines of the daemon's log at `level` (the plain format: time, level, message).
        static func lines(_ stderr: String, level: String) -> [String] {
            stderr.split(separator: "\n").map(String.init).filter {
                $0.split(separator: " ").dropFirst().first == Substring(level)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aSIGHUPAddsASourceAndRaisesConcurrencyWithoutFetchingAnythingTwice(_ store: StoreKind) async throws {
            // GIVEN a daemon backfilling the feed, one image at a time
            let world = try await World.start(photos: 300, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                try Self.write("per_page: 30\nsources:\n  - feed\nconcurrency: 1\npoll_interval: 10\n", to: world)
                let socket = try NotifySocket()
                defer { socket.close() }
                let daemon = try await world.daemon(notifying: socket)
                var stopped = false
                defer { if !stopped { daemon.signal(SIGKILL) } }
                try #require(
                    await socket.awaitMessage { $0.hasPrefix("STATUS=backfilling") && !$0.contains(" 0 pages") } != nil)

                // WHEN the file gains a collection and a concurrency of 4, and the daemon is told
                // The short poll stays, so that an idle daemon reports itself every 10 s.
                try Self.write(
                    "per_page: 30\nsources:\n  - feed\n  - \(Self.collection)\nconcurrency: 4\npoll_interval: 10\n",
                    to: world)
                try await Self.reload(daemon, socket)
                let beforeReload = socket.received.prefix { !$0.hasPrefix("RELOADING=1") }
                #expect(!beforeReload.contains { $0.hasPrefix("STATUS=idle") }, "the reload came after the backfill")

                // THEN the collection is synced: each idle moment of the daemon is a chance to look
                let premium = Set(await world.stub.premiumPhotoIDs())
                let wanted = Set(try #require(await world.stub.photoIDs(ofSource: Self.collection)))
                var synced = false
                var idleMoments = 0
                while !synced, idleMoments < 4, await socket.awaitMessage({ $0.hasPrefix("STATUS=idle") }) != nil {
                    idleMoments += 1
                    let source = try await SourcesEndToEndTests.statusSources(world)[Self.collection]
                    let stored = try await world.store().catalog.photoIDs(withStoredImage: true)
                    synced =
                        source?["backfill_complete"] as? Bool == true
                        && wanted.subtracting(premium).isSubset(of: Set(stored))
                }
                #expect(synced, "the collection added by SIGHUP was never synced")

                // WHEN the file is broken and the daemon told again
                try Self.write("per_page: 30\nsources: [feed\n", to: world)
                try await Self.reload(daemon, socket)
                daemon.signal(SIGTERM)
                let result = await daemon.result()
                stopped = true

                // THEN one error line names the file, the daemon went on, and stopped cleanly
                #expect(result.status == 0, "\(result.stderr)")
                let errors = Self.lines(result.stderr, level: "error") + Self.lines(result.stderr, level: "critical")
                #expect(errors.count == 1, "\(errors)")
                #expect(errors.first?.contains("configuration not reloaded") == true)
                #expect(errors.first?.contains(world.config) == true, "\(errors)")
                let reloaded = result.stderr.split(separator: "\n").filter { $0.contains("configuration reloaded") }
                #expect(reloaded.count == 1)
                #expect(reloaded.first?.contains("concurrency=4") == true, "\(reloaded)")
                #expect(reloaded.first?.contains(Self.collection) == true, "\(reloaded)")
                #expect(Self.lines(result.stderr, level: "warning").isEmpty, "\(result.stderr)")
                // No image was fetched twice, across the reload.
                let fetchedTwice = await world.stub.imageRequestCounts().filter { $0.value > 1 }
                #expect(fetchedTwice.isEmpty, "\(fetchedTwice)")
                // status says the configuration was reloaded; the broken file did not count.
                try Self.write("per_page: 30\n", to: world)
                let status = try await PhotosyncProcess.run([
                    "status", "--json", "--database", world.database, "--config", world.config,
                ])
                let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
                let loaded = try #require(object?["configuration_loaded"] as? [String: Any], "\(status.stdout)")
                #expect(loaded["reload"] as? Bool == true)
            }
        }

        @Test func aSIGHUPRereadsTheEnvironmentFile() async throws {
            // GIVEN a daemon whose environment file sets its concurrency
            let world = try await World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                try Self.write("per_page: 30\nsources:\n  - feed\npoll_interval: 10\n", to: world)
                let file = world.config + ".environment"
                try "# the unit's environment\nPHOTOSYNC_CONCURRENCY=2\n".write(
                    toFile: file, atomically: true, encoding: .utf8)
                let socket = try NotifySocket()
                defer { socket.close() }
                let daemon = try await world.daemon(
                    environment: ["PHOTOSYNC_ENVIRONMENT_FILE": file], notifying: socket)
                var stopped = false
                defer { if !stopped { daemon.signal(SIGKILL) } }
                try #require(await socket.awaitMessage { $0 == "READY=1" } != nil)

                // WHEN the file changes (written anew and renamed into place) and the daemon is told
                try "PHOTOSYNC_CONCURRENCY=3\nPHOTOSYNC_POLL_INTERVAL='20'\n".write(
                    toFile: file, atomically: true, encoding: .utf8)
                try await Self.reload(daemon, socket)
                // AND then it is broken, and the daemon told again
                try "PHOTOSYNC_CONCURRENCY=4\nthis is not an assignment\n".write(
                    toFile: file, atomically: true, encoding: .utf8)
                try await Self.reload(daemon, socket)
                daemon.signal(SIGTERM)
                let result = await daemon.result()
                stopped = true

                // THEN the first reload took the file's new values, the second kept them and named the line
                #expect(result.status == 0, "\(result.stderr)")
                let reloaded = result.stderr.split(separator: "\n").filter { $0.contains("configuration reloaded") }
                #expect(reloaded.count == 1, "\(result.stderr)")
                #expect(reloaded.first?.contains("concurrency=3") == true, "\(reloaded)")
                #expect(reloaded.first?.contains("poll_interval_s=20") == true, "\(reloaded)")
                let errors = Self.lines(result.stderr, level: "error")
                #expect(errors.count == 1, "\(errors)")
                #expect(errors.first?.contains("\(file): line 2 is not NAME=VALUE") == true, "\(errors)")
            }
        }
    }
}
