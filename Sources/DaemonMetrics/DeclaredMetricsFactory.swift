import CoreMetrics
import Prometheus

/// A swift-metrics factory onto a Prometheus registry that gives each
/// metric its declared help line (`MetricNames`), so the exposition has a
/// `# HELP` for every family, and the latency histogram its buckets. A
/// metric that is not declared is a bug: it is still made, without help.
struct DeclaredMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    private let help: [String: String]

    /// The name and help line the registry registers `label` with.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        var help: [String: String] = [:]
        for declaration in MetricNames.all { help[declaration.name] = declaration.help }
        self.help = help
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        // Only gauges are recorded here (`Gauge`, which does not aggregate).
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions,
                                       buckets: MetricNames.latencyBuckets)
    }

    func destroyCounter(_ handler: CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyMeter(_ handler: MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
