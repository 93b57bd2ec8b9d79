import Foundation
import MetricsTestKit
import Networking
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
                diskReserve: 20, downloadsPaused: true))

        #expect(try metrics.expectCounter("photosync_images_pruned_total").totalValue == 7)
        #expect(try metrics.expectGauge("photosync_storage_used_bytes").lastValue == 4_000)
        #expect(try metrics.expectGauge("photosync_storage_limit_bytes").lastValue == 5_000)
        #expect(try metrics.expectGauge("photosync_wal_bytes").lastValue == 300)
        #expect(try metrics.expectGauge("photosync_database_bytes").lastValue == 9_000)
        #expect(try metrics.expectGauge("photosync_disk_free_bytes").lastValue == 10)
        #expect(try metrics.expectGauge("photosync_disk_reserve_bytes").lastValue == 20)
        #expect(try metrics.expectGauge("photosync_downloads_paused").lastValue == 1)
    }
}
