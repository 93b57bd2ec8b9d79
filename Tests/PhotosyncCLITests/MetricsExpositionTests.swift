import Foundation
import Networking
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Prometheus
import Testing
import UnsplashAPI

@testable import PhotosyncCLI

/// What `promtool check metrics` asks of `/metrics`: every metric family has `# HELP` and
/// `# TYPE` lines before its samples.
@Suite struct MetricsExpositionTests {
    /// Every metric `run` serves, each with a value.
    static func exposition() async throws -> String {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedMetricsFactory(registry: registry)
        let metrics = SyncMetrics(factory: factory)
        var progress = SyncProgress()
        progress.pages = 1
        progress.imagesStored = 1
        progress.imageRetries = 1
        progress.rateLimit = RateLimit(limit: 50, remaining: 40)
        metrics.record(progress)
        metrics.record(StageDepths())
        metrics.record(
            StorageReport(
                storedBytes: 1_000, storageLimit: 5_000, databaseBytes: 8_192, walBytes: 0, freeDisk: 1 << 30,
                diskReserve: 1 << 20, downloadsPaused: false))
        metrics.record(
            sources: [
                SourceStatistics(
                    name: "feed", active: true, photos: 1, state: SyncState(lastPageAt: Date(timeIntervalSince1970: 0)))
            ], images: ImageCounts(stored: 1, pending: 2, failed: 0))
        let api = APIRequestMetrics(factory: factory)
        try await api.didReceive(
            Exchange(
                request: TransportRequest(
                    url: URL(string: "http://127.0.0.1/photos")!, headers: ["Authorization": "Client-ID K"]),
                statusCode: 200, headers: [:], body: nil, byteCount: 0, duration: .zero, attempt: 2))
        var text: [UInt8] = []
        registry.emit(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// For each metric name, its HELP text and TYPE, and whether a sample came before them.
    static func families(_ text: String) -> (help: [String: String], type: [String: String], unannounced: [String]) {
        var help: [String: String] = [:]
        var type: [String: String] = [:]
        var unannounced: [String] = []
        for line in text.split(separator: "\n").map(String.init) {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            if words.count >= 4, words[0] == "#", words[1] == "HELP" {
                help[words[2]] = words[3]
            } else if words.count == 4, words[0] == "#", words[1] == "TYPE" {
                type[words[2]] = words[3]
            } else if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                if help[name] == nil || type[name] == nil { unannounced.append(name) }
            }
        }
        return (help, type, unannounced)
    }

    @Test func everyFamilyHasHelpAndTypeBeforeItsSamples() async throws {
        let (help, type, unannounced) = Self.families(try await Self.exposition())

        #expect(unannounced.isEmpty, "samples without HELP and TYPE before them: \(unannounced)")
        for name in SyncMetrics.descriptions.keys.sorted() {
            #expect(help[name] == SyncMetrics.descriptions[name], "\(name)")
            #expect(type[name] != nil, "\(name) was not served")
        }
        #expect(type["photosync_api_requests_total"] == "counter")
        #expect(type["photosync_images_pending"] == "gauge")
    }

    @Test func aMetricWithoutADescriptionStillHasHelp() async throws {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedMetricsFactory(registry: registry, descriptions: [:])
        factory.makeCounter(label: "photosync_new_total", dimensions: []).increment(by: 1)
        var text: [UInt8] = []
        registry.emit(into: &text)

        #expect(Self.families(String(decoding: text, as: UTF8.self)).help["photosync_new_total"] != nil)
    }
}
