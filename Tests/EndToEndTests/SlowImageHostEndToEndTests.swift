import Foundation
import PhotoStore
import TestSupport
import Testing
import UnsplashStub

/// issue 29, 1: an image host that sends its headers at once and then its body one byte at a
/// time, through the real binary on its production transport. Short windows come from the
/// setting, so no test waits more than a few seconds for a trickle to be cut off.
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
                let store = try world.store()
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
