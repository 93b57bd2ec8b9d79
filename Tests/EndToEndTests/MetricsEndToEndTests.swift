import Foundation
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `photosync run --metrics-listen`: what `/metrics` says after a sync.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct MetricsEndToEndTests {
        @Test func metricsReportWhatTheSyncDid() async throws {
            // GIVEN a daemon serving metrics on a free loopback port
            let world = try await PhotosyncEndToEndTests.World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                let socket = try NotifySocket()
                defer { socket.close() }
                let daemon = try await world.daemon(["--metrics-listen", "127.0.0.1:0"], notifying: socket)
                var metricsURL: URL?
                _ = await daemon.awaitLine { line in
                    guard let range = line.range(of: "http://127.0.0.1:[0-9]+/metrics", options: .regularExpression)
                    else { return false }
                    metricsURL = URL(string: String(line[range]))
                    return true
                }
                let url = try #require(metricsURL, "the daemon never said where it serves metrics")

                // WHEN it has backfilled the feed and gone idle
                #expect(await socket.awaitMessage { $0.hasPrefix("STATUS=idle") } != nil)
                let (body, response) = try await URLSession.shared.data(from: url)
                daemon.signal(SIGTERM)
                let result = await daemon.result()

                // THEN /metrics says so, in Prometheus' text format
                #expect(
                    (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain")
                        == true)
                let text = String(decoding: body, as: UTF8.self)
                let metrics = Self.samples(text)
                #expect(metrics["photosync_pages_fetched_total"] == 3, "2 pages of 30, then the head check")
                #expect(metrics["photosync_images_stored_total"] == 60)
                #expect(
                    metrics["photosync_image_bytes_stored_total"]
                        == Double(try await world.store().catalog.statistics().bytesStored))
                #expect(metrics["photosync_images_failed_total"] ?? 0 == 0)
                #expect(metrics["photosync_downloads_tracked_total"] == 60)
                #expect(
                    metrics[#"photosync_api_requests_total{status="200"}"#] == 63, "3 pages and 60 tracking requests")
                // Tracking answers arrive out of order (4 at once): the last one recorded may not be the
                // lowest.
                let remaining = try #require(metrics["photosync_rate_limit_remaining"])
                #expect((Double(5_000 - 63)...Double(5_000 - 63 + 4)).contains(remaining))
                #expect(metrics[#"photosync_queue_depth{stage="api_in_flight"}"#] == 0, "idle: nothing in flight")
                #expect(metrics[#"photosync_queue_depth{stage="jobs_queued"}"#] == 0)
                let lastPage = try #require(metrics["photosync_last_page_timestamp_seconds"])
                #expect(abs(lastPage - Date().timeIntervalSince1970) < 600)
                // The storage facts (docs/STORAGE.md): no budget set, room on the disk, a WAL
                #expect(
                    metrics["photosync_storage_used_bytes"]
                        == Double(try await world.store().catalog.statistics().bytesStored))
                #expect(metrics["photosync_storage_limit_bytes"] == nil)
                #expect(metrics["photosync_downloads_paused"] == 0)
                #expect(metrics["photosync_wal_bytes"] != nil && metrics["photosync_database_bytes"] ?? 0 > 0)
                let (free, reserve) = (metrics["photosync_disk_free_bytes"], metrics["photosync_disk_reserve_bytes"])
                #expect(free ?? 0 > reserve ?? .infinity)
                #expect(metrics["photosync_images_pending"] == 0)
                #expect(metrics[#"photosync_source_stalled{source="feed"}"#] == 0)
                let age = try #require(metrics[#"photosync_source_last_page_age_seconds{source="feed"}"#])
                #expect((0..<600).contains(age))
                // What promtool checks: each family announced by HELP and TYPE before its samples.
                var announced: Set<String> = []
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    if words.count > 3, words[0] == "#", words[1] == "HELP" { announced.insert(String(words[2])) }
                    if !line.hasPrefix("#") {
                        let name = String(line.prefix { $0 != "{" && $0 != " " })
                        #expect(announced.contains(name), "\(name) has no HELP line before its samples")
                    }
                }
                #expect(result.status == 0, "\(result.stderr)")
            }
        }

        @Test func aMetricsAddressInUseIsOneLineAndExit78() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 1)
            try await withTeardown(await world.stop()) {
                let taken = await world.stub.baseURL
                let result = try await world.sync(["--metrics-listen", "127.0.0.1:\(taken.port ?? 0)"])
                #expect(result.status == 78, "\(result.stderr)")
                #expect(result.stderr.contains("photosync: cannot serve metrics on 127.0.0.1:\(taken.port ?? 0)"))
                // Refused before anything was created.
                for leftover in ["", ".lock", ".downloads", "-wal", "-shm"] {
                    #expect(
                        !FileManager.default.fileExists(atPath: world.database + leftover),
                        "photosync.sqlite\(leftover) was created")
                }
            }
        }

        @Test func aDatabasePathThatIsADirectoryLeavesNoLockBesideIt() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 1)
            try await withTeardown(await world.stop()) {
                let directory = world.directory.appending(path: "d").path
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)

                let result = try await PhotosyncProcess.run(
                    await world.runArguments().map { $0 == world.database ? directory : $0 },
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])

                #expect(result.status == 74, "\(result.stderr)")
                #expect(result.stderr.contains("it is a directory"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: directory + ".lock"))
                #expect(!FileManager.default.fileExists(atPath: directory + ".downloads"))
            }
        }

        /// `name{labels} value` lines, by `name{labels}`.
        static func samples(_ text: String) -> [String: Double] {
            var samples: [String: Double] = [:]
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: " ")
                if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
            }
            return samples
        }
    }
}
