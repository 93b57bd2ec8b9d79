import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// issue 29, 1: an image host that sends its headers at once and then its body one byte at a
/// time, or its headers one byte at a time, through the real binary on its production transport.
/// Short windows come from the setting, so no test waits more than a few seconds for a body's
/// trickle to be cut off.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct SlowImageHostEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        struct Hung: Error, CustomStringConvertible {
            var what: String
            var description: String { what }
        }

        /// At 5 bytes a second, a 2 KB image would take 7 minutes; a window of 1 s asks for 1 KB.
        static let minimumRate = ["--image-min-rate", "1KB/s over 1s"]

        @Test func twoTricklingImagesWaitForARetryWhileEveryOtherPhotoIsStored() async throws {
            let world = try await World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                let ids = await world.stub.photoIDs()
                let slow = [ids[5], ids[40]]
                // GIVEN a host that trickles two of the 60 images, a byte every 200 ms
                for id in slow {
                    await world.stub.trickleImage(photoID: id, every: .milliseconds(200))
                }

                // WHEN photosync runs once with a minimum rate of 1 KB/s over 1 s
                let process = try PhotosyncProcess(
                    await world.runArguments(Self.minimumRate),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                let first: PhotosyncProcess.Result
                do {
                    first = try await withDeadline(.seconds(120), failure: Hung(what: "the first run hung")) {
                        await process.result()
                    }
                } catch {
                    process.signal(SIGKILL)
                    _ = await process.result()
                    throw error
                }

                // THEN every other image is stored, the two wait for a retry, and the run exits 75
                #expect(first.status == 75, "\(first.stderr)")
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(stats.imagesStored == 58 && stats.imagesRetrying == 2 && stats.imagesFailed == 0, "\(stats)")
                for id in slow {
                    #expect(try await store.catalog.photo(id: id)?.image == nil, "\(id) has an image")
                }
                // AND the log says which host was too slow, and how slow
                let tooSlow = first.stderr.split(separator: "\n").filter { $0.contains("image host too slow") }
                #expect(!tooSlow.isEmpty, "\(first.stderr)")
                for line in tooSlow {
                    #expect(line.contains("host=127.0.0.1"), "\(line)")
                    #expect(line.contains("bytes=") && line.contains("seconds=") && line.contains("bytes_per_second="))
                    #expect(line.contains(#"minimum="1000 B/s over 1 s""#), "\(line)")
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: world.database + ".downloads").isEmpty)

                // WHEN the host is healthy again and photosync runs once more
                await world.stub.clearFaults()
                let second = try await world.sync(Self.minimumRate)

                // THEN the two are stored, byte exact
                #expect(second.status == 0, "\(second.stderr)")
                let after = try await store.catalog.statistics()
                #expect(after.imagesStored == 60 && after.imagesPending == 0, "\(after)")
                for id in slow {
                    let image = try #require(try await store.catalog.photo(id: id)?.image, "\(id) has no image")
                    #expect(image.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                }
            }
        }

        @Test func theDaemonStoresEveryOtherPhotoWhileTwoImagesTrickle() async throws {
            let world = try await World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                let ids = await world.stub.photoIDs()
                let slow = Set([ids[5], ids[40]])
                for id in slow {
                    await world.stub.trickleImage(photoID: id, every: .milliseconds(200))
                }

                // WHEN the daemon runs, at the default concurrency of 4
                let daemon = try PhotosyncProcess(
                    await world.daemonArguments(Self.minimumRate + ["--log-level", "debug"]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                let seen: (reached: Bool, stored: Set<String>)
                do {
                    seen = try await withDeadline(.seconds(90), failure: Hung(what: "the daemon never stored 58")) {
                        var stored = Set<String>()
                        var cutOff = Set<String>()
                        var retrying = Set<String>()
                        let reached = await daemon.awaitLine { line in
                            let photo = Self.photo(in: line)
                            if line.contains("image stored"), let photo { stored.insert(photo) }
                            if line.contains("image host too slow"), let photo { cutOff.insert(photo) }
                            // Logged once the failure and its retry time are committed.
                            if line.contains("image failed; will retry"), let photo { retrying.insert(photo) }
                            return stored.count == 58 && cutOff == slow && retrying == slow
                        }
                        return (reached, stored)
                    }
                } catch {
                    daemon.signal(SIGKILL)
                    _ = await daemon.result()
                    throw error
                }
                daemon.signal(SIGTERM)
                let result = await daemon.result()

                // THEN the other 58 were stored, the two were cut off and wait for their retry,
                // and the daemon stopped cleanly
                #expect(seen.reached, "\(result.stderr)")
                #expect(seen.stored.isDisjoint(with: slow))
                #expect(result.status == 0, "\(result.stderr)")
                let stats = try await world.store().catalog.statistics()
                #expect(
                    stats.imagesStored == 58 && stats.imagesRetrying == 2 && stats.imagesFailed == 0, "\(stats)")
            }
        }

        /// The value of `photo=` in a log line.
        static func photo(in line: String) -> String? {
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("photo=") }) else {
                return nil
            }
            return String(field.dropFirst("photo=".count))
        }
    }
}

extension EndToEnd {
    /// issue 29, 1: an image host that trickles the head of its answer. Its own suite for its
    /// time: each attempt waits out the head's bound (the connect and read timeouts, which have no
    /// setting), five attempts in a run.
    @Suite(.serialized, .timeLimit(.minutes(8))) struct SlowImageHeadEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World
        typealias Hung = SlowImageHostEndToEndTests.Hung

        @Test func twoImagesWhoseHostTricklesItsHeadersWaitForARetryWhileEveryOtherPhotoIsStored() async throws {
            // GIVEN an image host (a CDN node the stub's image URLs redirect to, as Unsplash's
            // do) that sends the head of its answer one byte every 200 ms: 2 KB of headers, which
            // would take 7 minutes, each byte soon enough to reset a read timeout. The stub's own
            // server writes its heads whole, so this host is a scripted one.
            let head = ScriptedHTTPServer.headBytes(
                status: 200,
                headers: [
                    ("Content-Type", "image/jpeg"), ("Content-Length", "4"),
                    ("X-Padding", String(repeating: "p", count: 2_000)),
                ])
            let cdn = try await ScriptedHTTPServer { _ in [.trickle(head, every: .milliseconds(200))] }
            let world = try await World.start(photos: 60)
            try await withTeardown(await Self.stop(world, cdn)) {
                let ids = await world.stub.photoIDs()
                let slow = [ids[7], ids[33]]
                for id in slow {
                    await world.stub.redirectImage(photoID: id, to: .origin(cdn.url("/")), times: 100)
                }

                // WHEN photosync runs once
                let process = try PhotosyncProcess(
                    await world.runArguments(), environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                let first: PhotosyncProcess.Result
                do {
                    // Each attempt's head is bounded by connect + read timeouts (40 s at most), and
                    // run --once makes 5 attempts at an image, a few seconds apart: 210 s at most.
                    first = try await withDeadline(.seconds(300), failure: Hung(what: "the run hung on a slow head")) {
                        await process.result()
                    }
                } catch {
                    process.signal(SIGKILL)
                    let killed = await process.result()
                    throw Hung(what: "\(error): \(killed.stderr.suffix(3_000))")
                }

                // THEN the host was asked for the two, every other image is stored, the two wait
                // for a retry (never failed for good), and the run exits 75
                #expect(Set(cdn.requests.map(\.path)).count == 2, "\(cdn.requests.map(\.target))")
                #expect(first.status == 75, "\(first.stderr.suffix(2_000))")
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(stats.imagesStored == 58 && stats.imagesRetrying == 2 && stats.imagesFailed == 0, "\(stats)")
                for id in slow {
                    #expect(try await store.catalog.photo(id: id)?.image == nil, "\(id) has an image")
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: world.database + ".downloads").isEmpty)
                // AND the log says which host was too slow
                let tooSlow = first.stderr.split(separator: "\n").filter { $0.contains("image host too slow") }
                #expect(!tooSlow.isEmpty && tooSlow.allSatisfy { $0.contains("host=127.0.0.1") }, "\(first.stderr)")

                // WHEN the images are served whole again and photosync runs once more
                await world.stub.clearFaults()
                let second = try await world.sync()

                // THEN the two are stored, byte exact
                #expect(second.status == 0, "\(second.stderr.suffix(2_000))")
                let after = try await store.catalog.statistics()
                #expect(after.imagesStored == 60 && after.imagesPending == 0, "\(after)")
                for id in slow {
                    let image = try #require(try await store.catalog.photo(id: id)?.image, "\(id) has no image")
                    #expect(image.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                }
            }
        }

        static func stop(_ world: World, _ host: ScriptedHTTPServer) async {
            await world.stop()
            await host.stop()
        }
    }
}
