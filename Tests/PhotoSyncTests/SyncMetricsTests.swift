import Foundation
import MetricsTestKit
import Networking
import PhotoStore
import PhotoStoreSQLite
import Testing
import UnsplashAPI

@testable import PhotoSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct SyncMetricsTests {
    @Test func countersGrowByWhatEachProgressReportAdds() async throws {
        let metrics = TestMetrics()
        let sync = SyncMetrics(factory: metrics, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        var progress = SyncProgress()
        progress.pages = 2
        progress.imagesStored = 5
        progress.bytesStored = 1_000
        sync.record(progress)
        progress.pages = 3
        progress.imagesStored = 9
        progress.bytesStored = 1_500
        progress.rateLimit = RateLimit(limit: 50, remaining: 41)
        sync.record(progress)
        sync.record(progress)
        var depths = StageDepths()
        depths.outcomesQueued = 12
        sync.record(depths)

        #expect(try metrics.expectCounter("photosync_pages_fetched_total").totalValue == 3)
        #expect(try metrics.expectCounter("photosync_images_stored_total").totalValue == 9)
        #expect(try metrics.expectCounter("photosync_image_bytes_stored_total").totalValue == 1_500)
        #expect(try metrics.expectGauge("photosync_rate_limit_remaining").lastValue == 41)
        #expect(try metrics.expectGauge("photosync_last_page_timestamp_seconds").lastValue == 1_800_000_000)
        #expect(try metrics.expectGauge("photosync_queue_depth", [("stage", "images_to_write")]).lastValue == 12)
    }

    @Test func onlyRequestsCarryingTheKeyCountAsAPIRequests() async throws {
        let metrics = TestMetrics()
        let counting = APIRequestMetrics(factory: metrics)
        let api = TransportRequest(
            url: URL(string: "http://127.0.0.1:8080/photos")!, headers: ["Authorization": "Client-ID KEY"])
        let image = TransportRequest(url: URL(string: "http://127.0.0.1:8080/images/a.jpg")!)
        for (request, status) in [(api, 200), (api, 200), (api, 403), (image, 200)] {
            try await counting.didReceive(
                Exchange(
                    request: request, statusCode: status, headers: [:], body: nil, byteCount: 0, duration: .zero,
                    attempt: 1))
        }
        await counting.didFail(
            api, error: .transport(TransportError(.timedOut), url: "http://127.0.0.1:8080/photos"), duration: .zero)

        #expect(try metrics.expectCounter("photosync_api_requests_total", [("status", "200")]).totalValue == 2)
        #expect(try metrics.expectCounter("photosync_api_requests_total", [("status", "403")]).totalValue == 1)
        #expect(try metrics.expectCounter("photosync_api_requests_total", [("status", "error")]).totalValue == 1)
    }

    @Test func whatIsNotKnownYetIsAbsentRatherThanZero() async throws {
        // GIVEN a run that has had no API answer and stored no page, on a database without pages
        let metrics = TestMetrics()
        let sync = SyncMetrics(factory: metrics)
        sync.record(SyncProgress())
        sync.record(sources: [], images: ImageCounts(stored: 0, pending: 0, failed: 0))

        // THEN neither the budget nor the last page reads 0, which would fire an alert
        #expect(throws: (any Error).self) { try metrics.expectGauge("photosync_rate_limit_remaining") }
        #expect(throws: (any Error).self) { try metrics.expectGauge("photosync_last_page_timestamp_seconds") }
    }

    @Test func theDatabaseGivesEachSourcesAgeStallAndThePendingImages() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let metrics = TestMetrics()
        let sync = SyncMetrics(factory: metrics, now: { now })
        let feed = SourceStatistics(
            name: "feed", active: true, photos: 30, state: SyncState(lastPageAt: now.addingTimeInterval(-90)))
        var topic = SourceStatistics(
            name: "topic:nature", active: true, photos: 0,
            state: SyncState(
                lastPageAt: now.addingTimeInterval(-7_200),
                backfillStall: BackfillStall(reason: "an empty page links a next one", since: now)))
        let old = SourceStatistics(
            name: "user:gone", active: false, photos: 3, state: SyncState(lastPageAt: now.addingTimeInterval(-9)))

        // WHEN the database is read at a scrape
        sync.record(sources: [feed, topic, old], images: ImageCounts(stored: 10, pending: 7, failed: 1))

        // THEN
        #expect(try metrics.expectGauge("photosync_images_pending").lastValue == 7)
        #expect(
            try metrics.expectGauge("photosync_source_last_page_age_seconds", [("source", "feed")]).lastValue == 90)
        #expect(try metrics.expectGauge("photosync_source_stalled", [("source", "feed")]).lastValue == 0)
        #expect(try metrics.expectGauge("photosync_source_stalled", [("source", "topic:nature")]).lastValue == 1)
        #expect(throws: (any Error).self, "an inactive source is not reported") {
            try metrics.expectGauge("photosync_source_stalled", [("source", "user:gone")])
        }
        #expect(
            try metrics.expectGauge("photosync_last_page_timestamp_seconds").lastValue
                == now.addingTimeInterval(-90).timeIntervalSince1970, "the newest page of an active source")

        // WHEN the topic is removed from the configuration
        topic.active = false
        sync.record(sources: [feed, topic], images: ImageCounts(stored: 10, pending: 0, failed: 1))

        // THEN its series go away
        #expect(throws: (any Error).self) {
            try metrics.expectGauge("photosync_source_stalled", [("source", "topic:nature")])
        }
        #expect(try metrics.expectGauge("photosync_images_pending").lastValue == 0)
    }

    @Test func retriesAreCountedForImagesAndAPIRequests() async throws {
        let metrics = TestMetrics()
        let sync = SyncMetrics(factory: metrics)
        var progress = SyncProgress()
        progress.imageRetries = 3
        sync.record(progress)
        let counting = APIRequestMetrics(factory: metrics)
        let api = TransportRequest(
            url: URL(string: "http://127.0.0.1:8080/photos")!, headers: ["Authorization": "Client-ID KEY"])
        for attempt in [1, 2, 3] {
            try await counting.didReceive(
                Exchange(
                    request: api, statusCode: attempt == 3 ? 200 : 503, headers: [:], body: nil, byteCount: 0,
                    duration: .zero, attempt: attempt))
        }

        #expect(try metrics.expectCounter("photosync_image_retries_total").totalValue == 3)
        #expect(try metrics.expectCounter("photosync_api_retries_total", [("status", "503")]).totalValue == 1)
        #expect(try metrics.expectCounter("photosync_api_retries_total", [("status", "200")]).totalValue == 1)
        #expect(try metrics.expectCounter("photosync_api_requests_total", [("status", "503")]).totalValue == 2)
    }
}

@Suite struct StorageMetricsTests {
    @Test func storageDiskAndWALAreGauges() throws {
        let metrics = TestMetrics()
        let sync = SyncMetrics(factory: metrics)
        var progress = SyncProgress()
        progress.imagesPruned = 7
        sync.record(progress)
        sync.record(
            StorageReport(
                storedBytes: 4_000, storageLimit: 5_000, databaseBytes: 9_000, walBytes: 300, freeDisk: 10,
                diskReserve: 20, downloadsPaused: true, pagesPaused: true))

        #expect(try metrics.expectCounter("photosync_images_pruned_total").totalValue == 7)
        #expect(try metrics.expectGauge("photosync_storage_used_bytes").lastValue == 4_000)
        #expect(try metrics.expectGauge("photosync_storage_limit_bytes").lastValue == 5_000)
        #expect(try metrics.expectGauge("photosync_wal_bytes").lastValue == 300)
        #expect(try metrics.expectGauge("photosync_database_bytes").lastValue == 9_000)
        #expect(try metrics.expectGauge("photosync_disk_free_bytes").lastValue == 10)
        #expect(try metrics.expectGauge("photosync_disk_reserve_bytes").lastValue == 20)
        #expect(try metrics.expectGauge("photosync_downloads_paused").lastValue == 1)
        #expect(try metrics.expectGauge("photosync_pages_paused").lastValue == 1)
    }
}
