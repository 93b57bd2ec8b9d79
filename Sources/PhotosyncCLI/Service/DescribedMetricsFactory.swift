import CoreMetrics
import PhotoSync
import Prometheus

/// swift-metrics' factory for swift-prometheus, giving each metric its `# HELP` text.
///
/// `PrometheusMetricsFactory` registers every metric with an empty help, and the exposition then
/// has no HELP lines (`promtool check metrics` fails). This one registers counters and gauges
/// through the registry's own API with the help of ``SyncMetrics/descriptions``; a name missing
/// there gets its name as help. Every metric of one name goes through here, so its help is the
/// same each time, as the registry requires. Histograms and timers, which photosync does not
/// use, are left to `PrometheusMetricsFactory`.
struct DescribedMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let descriptions: [String: String]
    private let plain: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry, descriptions: [String: String] = SyncMetrics.descriptions) {
        self.registry = registry
        self.descriptions = descriptions
        plain = PrometheusMetricsFactory(registry: registry)
    }

    /// `label` as the whole name (no unit is appended), with its help.
    func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: descriptions[label] ?? label)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard !aggregate else { return plain.makeRecorder(label: label, dimensions: dimensions, aggregate: true) }
        return registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        plain.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        plain.destroyFloatingPointCounter(handler)
    }
    func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
