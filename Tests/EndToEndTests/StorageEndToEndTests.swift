import Foundation
import GRDB
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// issue 21's storage budget and disk reserve, and issue 29's floor, through the real binary
/// against the stub.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct StorageEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World
        static let key = PhotosyncEndToEndTests.key
        static let environment = ["UNSPLASH_ACCESS_KEY": key]

        static func fileSize(_ path: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }

        @Test func aBudgetOf5MBKeepsEveryPhotoAndPrunesTheOldestImages() async throws {
            // GIVEN 300 photos of about 50 KB (15 MB of images) and a budget of 5 MB
            let world = try await World.start(.init(photoCount: 300, accessKey: Self.key, imageSize: 50_000, seed: 21))
            try await withTeardown(await world.stop()) {
                let limit: Int64 = 5_000_000
                // WHEN it syncs once
                let result = try await world.sync(["--storage-limit", "5MB", "--log-level", "debug"])

                // THEN it succeeds, every photo's metadata is kept, and the images within the budget
                #expect(result.status == 0, "\(result.stderr.suffix(2_000))")
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(stats.photos == 300 && stats.imagesPending == 0 && stats.imagesFailed == 0)
                #expect(stats.imagesStored + stats.imagesPruned == 300 && stats.imagesPruned > 150)
                #expect(stats.bytesStored <= limit, "\(stats.bytesStored)")
                // AND never went over by more than one image: every batch's stored total was logged
                // nowhere, but each commit prunes before it stores, so the largest image bounds it
                let ids = await world.stub.photoIDs()
                var prunedAt: [Date] = []
                var storedAt: [Date] = []
                for id in ids {
                    if let pruned = try await store.archive.prunedImage(photoID: id, variant: nil) {
                        prunedAt.append(pruned.fetchedAt)
                        #expect(pruned.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                    } else {
                        let image = try #require(try await store.archive.storedImage(photoID: id, variant: nil))
                        storedAt.append(image.fetchedAt)
                    }
                }
                // AND the pruned images are the oldest fetched
                #expect(try #require(prunedAt.max()) <= (try #require(storedAt.min())))
                // AND verify passes, pruned rows included
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", world.database, "--config", world.config,
                ])
                #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
                // AND the file holds the budget plus the metadata: compared with a mirror of the same
                // photos without images, it is larger by at most the budget and one batch's slack
                let metadataOnly = world.directory.appending(path: "metadata.sqlite").path
                let reference = try await PhotosyncProcess.run(
                    await world.runArguments(["--variant", "none"]).map { $0 == world.database ? metadataOnly : $0 },
                    environment: Self.environment)
                #expect(reference.status == 0, "\(reference.stderr)")
                let size = Self.fileSize(world.database) + Self.fileSize(world.database + "-wal")
                let metadata = Self.fileSize(metadataOnly)
                #expect(size <= limit + metadata + 1_000_000, "file \(size), metadata \(metadata)")

                // AND a second run downloads nothing again
                await world.stub.resetRequestLog()
                let again = try await world.sync(["--storage-limit", "5MB"])
                #expect(again.status == 0, "\(again.stderr)")
                #expect(await world.stub.imageRequestCounts().values.reduce(0, +) == 0)

                // AND query and the gallery's data say what happened to a pruned image
                let prunedID = try #require(
                    await ids.asyncFirst { try await store.archive.prunedImage(photoID: $0, variant: nil) != nil })
                let output = world.directory.appending(path: "out.jpg").path
                let query = try await world.query(["--id", prunedID, "--output", output])
                #expect(query.status == 1 && query.stderr.contains("pruned"), "\(query.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output))
                let export = try await PhotosyncProcess.run([
                    "export", "--database", world.database, "--config", world.config, "--to",
                    world.directory.appending(path: "export").path,
                ])
                #expect(export.status == 0 && export.stdout.contains("\(stats.imagesPruned) pruned"), "\(export)")
            }
        }

        @Test func onAFullDiskDownloadsPausePagesGoOnAndEverythingResumesWithRoom() async throws {
            // GIVEN 600 photos of about 50 KB (30 MB) and a file-size limit of 32 MiB, as a small
            // disk would be, with a reserve of 16 MB. Between the reserve and its floor (8 MB)
            // there is room for what may still arrive once downloads pause: the jobs already
            // handed out (about 20 images at concurrency 4, 1 MB) and, when pages lag, every
            // photo's metadata (3.4 MB). With 100 KB images and a reserve of 8 MB, pages once
            // paused too.
            let world = try await World.start(.init(photoCount: 600, accessKey: Self.key, imageSize: 50_000, seed: 5))
            try await withTeardown(await world.stop()) {
                let arguments = await world.runArguments(["--min-free-disk", "16MB", "--log-level", "debug"])
                let full = try await withDeadline(
                    .seconds(120), failure: FaultEndToEndTests.Hung(what: "photosync hung on a full disk")
                ) {
                    try await PhotosyncProcess.run(
                        arguments, environment: Self.environment,
                        launcher: ["/usr/bin/prlimit", "--fsize=\(32 << 20)", "--"])
                }

                // THEN it exits 75, saying downloads are paused and why
                #expect(full.status == 75, "\(full.stderr.suffix(2_000))")
                let errors = full.stderr.split(separator: "\n").filter { $0.hasPrefix("photosync: ") }
                #expect(errors.count == 1 && errors[0].contains("downloads paused"), "\(errors)")
                // AND every page went on: all 600 photos are stored, with part of the images
                let stats = try await world.store().catalog.statistics()
                #expect(stats.photos == 600 && stats.backfillComplete)
                #expect(stats.imagesStored > 0 && stats.imagesPending > 0, "\(stats)")
                #expect(try FaultEndToEndTests.integrityCheck(world.database) == "ok")
                // AND status says why, as the daemon would judge it
                let status = try await PhotosyncProcess.run(
                    ["status", "--json", "--database", world.database, "--config", world.config],
                    environment: ["PHOTOSYNC_MIN_FREE_DISK": "1000TB"])
                #expect(status.status == 0 && status.stdout.contains("\"downloads_paused\" : \"downloads paused"))
                #expect(status.stdout.contains("\"pages_paused\" : \"pages paused"), "\(status.stdout)")
                #expect(status.stdout.contains("\"wal_bytes\""), "\(status.stdout)")
                let storedBefore = try Set(await world.store().catalog.photoIDs(withStoredImage: true))

                // AND the unit would not restart it in a loop should even a page not fit (exit 74)
                let unit = try String(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                        .deletingLastPathComponent().appending(path: "systemd/photosync.service"),
                    encoding: .utf8)
                #expect(unit.contains("RestartPreventExitStatus=64 74 77 78"))

                // WHEN space returns
                let again = try await world.sync(["--min-free-disk", "8MB"])

                // THEN everything is stored, and no image stored before was fetched again
                #expect(again.status == 0, "\(again.stderr.suffix(2_000))")
                let after = try await world.store().catalog.statistics()
                #expect(after.photos == 600 && after.imagesStored == 600 && after.imagesPending == 0)
                for id in storedBefore {
                    #expect(await world.stub.imageRequestCount(photoID: id) == 1, "\(id) fetched again")
                }
                let verify = try await PhotosyncProcess.run([
                    "verify", "--database", world.database, "--config", world.config,
                ])
                #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            }
        }

        /// How this test mounts a file system of its own, in a mount namespace of its own: as root
        /// (CI), `unshare -m` alone; otherwise `unshare -rm`, a user namespace as well, where the
        /// kernel allows them. Nil when neither works: the test then fails, naming what is missing.
        static let tmpfsNamespace: [String]? = {
            let namespace = ["/usr/bin/unshare", geteuid() == 0 ? "-m" : "-rm"]
            guard let null = try? Spawned.open("/dev/null", writing: true) else { return nil }
            defer { try? null.close() }
            let process = try? Spawned(
                namespace[0],
                Array(namespace.dropFirst()) + ["/bin/sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
                output: null.fileDescriptor, error: null.fileDescriptor)
            return process?.waitUntilEnded().status == 0 ? namespace : nil
        }()

        struct CannotMountTmpfs: Error, CustomStringConvertible {
            var description: String {
                geteuid() == 0
                    ? "cannot mount a tmpfs: running as root, `/usr/bin/unshare -m` then `mount -t tmpfs` failed "
                        + "(util-linux's unshare missing, or no CAP_SYS_ADMIN)"
                    : "cannot mount a tmpfs: not root, and `unshare -rm` then `mount -t tmpfs` failed (user namespaces "
                        + "are off: run as root, as CI does, or allow unprivileged user namespaces)"
            }
        }

        /// Runs photosync on a tmpfs of `size` mounted over `disk` in a namespace of its own, then
        /// copies what it left there to `copyTo` (the tmpfs ends with the namespace).
        static func onTmpfs(of size: String, at disk: String, copyTo: String) throws -> [String] {
            guard let namespace = tmpfsNamespace else { throw CannotMountTmpfs() }
            let script = """
                out=$1; shift
                mount -t tmpfs -o size=\(size) tmpfs "$0" || exit 99
                "$@"; status=$?
                cp -a "$0"/. "$out"/ || exit 98
                exit $status
                """
            return namespace + ["/bin/sh", "-c", script, disk, copyTo]
        }

        @Test func onA24MBDiskPagesPauseAtHalfTheReserveAndResumeWithRoom() async throws {
            // GIVEN 1,200 photos of about 60 KB (72 MB of images, about 5 MB of metadata) and a
            // file system of 24 MB with a reserve of 8 MB: downloads pause below 8 MB free, pages
            // below 4 MB, half the reserve, which the metadata alone would cross
            let world = try await World.start(
                .init(photoCount: 1_200, accessKey: Self.key, imageSize: 60_000, seed: 29))
            try await withTeardown(await world.stop()) {
                let disk = world.directory.appending(path: "disk")
                try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
                let launcher = try Self.onTmpfs(of: "24m", at: disk.path, copyTo: world.directory.path)
                let database = disk.appending(path: URL(fileURLWithPath: world.database).lastPathComponent).path
                let arguments = await world.runArguments(["--min-free-disk", "8MB"]).map {
                    $0 == world.database ? database : $0
                }

                // WHEN it syncs once on that disk
                let full = try await withDeadline(
                    .seconds(180), failure: FaultEndToEndTests.Hung(what: "photosync hung on a small disk")
                ) {
                    try await PhotosyncProcess.run(
                        arguments, environment: Self.environment,
                        launcher: launcher)
                }

                // THEN it stops before the disk fills: exit 75 (work left), not 74, with one line
                // that says pages paused and why
                #expect(full.status == 75, "\(full.stderr.suffix(3_000))")
                let errors = full.stderr.split(separator: "\n").filter { $0.hasPrefix("photosync: ") }
                #expect(errors.count == 1 && errors[0].contains("pages paused"), "\(errors)")
                #expect(errors.first?.contains("below the 4 MB floor (half of min_free_disk)") == true, "\(errors)")
                // AND the database is whole, with part of the photos and of their images
                #expect(try FaultEndToEndTests.integrityCheck(world.database) == "ok")
                let stats = try await world.store().catalog.statistics()
                #expect(stats.photos > 0 && stats.photos < 1_200 && !stats.backfillComplete, "\(stats)")
                #expect(stats.imagesStored > 0 && stats.imagesPending > 0, "\(stats)")

                // WHEN space returns (the same database, on the test's disk)
                let again = try await world.sync(["--min-free-disk", "8MB"])

                // THEN it goes on from where it stopped and stores everything
                #expect(again.status == 0, "\(again.stderr.suffix(2_000))")
                let after = try await world.store().catalog.statistics()
                #expect(after.photos == 1_200 && after.backfillComplete && after.imagesStored == 1_200, "\(after)")
            }
        }
    }
}

extension Sequence {
    fileprivate func asyncFirst(_ predicate: (Element) async throws -> Bool) async rethrows -> Element? {
        for element in self where try await predicate(element) { return element }
        return nil
    }
}
