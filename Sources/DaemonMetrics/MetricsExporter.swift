#if canImport(Glibc)
import Glibc
#endif
import CoreMetrics
import Prometheus
import Engine
import ServerPorts
import WireProtocol

/// The daemon's Prometheus metrics, through swift-metrics with the
/// swift-prometheus backend: a registry of its own (no global bootstrap,
/// so several daemons in one process, as in tests, keep theirs apart), the
/// metrics of `MetricNames`, and the server's `MetricsService`.
///
/// The counts themselves live where they happen, as plain numbers in value
/// types (the server machine's `ServerStatistics`, the engine's
/// `EngineTally`, the host's counters): nothing on the input path calls
/// into a metrics library. At each scrape, on the server's loop, `publish`
/// brings the swift-metrics counters up to those numbers (by the
/// difference since the last scrape) and sets the gauges; only the latency
/// histogram is recorded as it happens. The counts are read on the server's
/// loop; publishing and rendering run on the server's metrics queue, one
/// scrape at a time (the histogram's recording is thread-safe).
public final class MetricsExporter: @unchecked Sendable {
    /// The exposition's content type (Prometheus text format 0.0.4).
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let registry = PrometheusCollectorRegistry()
    private let factory: DeclaredMetricsFactory
    private let live: Bool
    private let latency: CoreMetrics.Timer
    /// Touch to frame, per transport.
    private let touchToFrame: [ClientTransport: CoreMetrics.Timer]
    /// Counters by series, and the value each was last brought up to.
    private var counters: [Series: (counter: CoreMetrics.Counter, published: Int)] = [:]
    private var gauges: [Series: CoreMetrics.Gauge] = [:]
    /// The panels' gauges: a panel's go when it does (labelled by its
    /// path, so that one panel replugged as another node leaves no series behind).
    private var panelGauges: [Series: CoreMetrics.Gauge] = [:]
    /// `transitiond_info`, replaced when a reload changes what it says.
    private var info: (series: Series, gauge: CoreMetrics.Gauge)?
    private let version: String

    /// One time series: a metric and its labels, in order.
    private struct Series: Hashable {
        var name: String
        var labels: [Label]
    }

    private struct Label: Hashable {
        var name: String
        var value: String
    }

    /// `live`: the input is panels (the device metrics are exported), not
    /// a replay. `version`: the daemon's, for `transitiond_build_info`.
    public init(live: Bool, version: String) {
        factory = DeclaredMetricsFactory(registry: registry)
        self.live = live
        self.version = version
        latency = CoreMetrics.Timer(label: MetricNames.inputToWrite.name, factory: factory)
        var touchToFrame: [ClientTransport: CoreMetrics.Timer] = [:]
        for transport in [ClientTransport.unixSocket, .webSocket] {
            touchToFrame[transport] = CoreMetrics.Timer(label: MetricNames.touchToFrame.name,
                                                        dimensions: [("transport", transport.rawValue)], factory: factory)
        }
        self.touchToFrame = touchToFrame
        CoreMetrics.Gauge(label: MetricNames.buildInfo.name, dimensions: [("version", version)], factory: factory).record(1)
        // Made with the exporter, which the daemon makes as it starts.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        CoreMetrics.Gauge(label: MetricNames.processStartTime.name, factory: factory)
            .record(Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
        // Series without labels exist from the start, at 0: a rate over the
        // first scrapes is right, and a dashboard shows 0, not "no data".
        publish(MetricsReading(server: ServerStatistics(), clients: [.unixSocket: 0, .webSocket: 0], host: HostStatistics()))
    }

    /// The service the server calls at each scrape and for each latency.
    public var service: MetricsService {
        MetricsService(
            render: { [self] reading in
                publish(reading)
                return (Self.contentType, registry.emitToBuffer())
            },
            observeLatency: { [latency] nanoseconds in latency.recordNanoseconds(nanoseconds) },
            observeTouchToFrame: { [touchToFrame] transport, nanoseconds in
                touchToFrame[transport]?.recordNanoseconds(nanoseconds)
            })
    }

    /// The exposition now (without reading new counts).
    public func exposition() -> String { registry.emitToString() }

    // MARK: Publishing

    /// Brings every metric up to `reading`.
    public func publish(_ reading: MetricsReading) {
        publishInfo(reading.identity)
        let host = reading.host
        let server = reading.server
        for (transition, count) in host.engine.began {
            self.count(MetricNames.transitionsBegan, [("transition", transition)], count)
        }
        for (outcome, count) in host.engine.ended {
            self.count(MetricNames.transitionsEnded, [("transition", outcome.transition), ("decision", outcome.decision.rawValue),
                                                      ("reason", outcome.reason.rawValue)], count)
        }
        for (rejected, count) in host.engine.rejected {
            self.count(MetricNames.candidatesRejected, [("transition", rejected.transition), ("reason", rejected.reason)], count)
        }
        count(MetricNames.inputEvents, [], host.inputEvents)
        count(MetricNames.inputFrames, [], host.frames)
        if live {
            count(MetricNames.inputResyncs, [], host.resyncs)
            count(MetricNames.ghostTouches, [], host.ghostTouches)
            count(MetricNames.stuckContacts, [], host.stuckContacts)
            count(MetricNames.touchesWithheld, [("reason", "max_contacts")], host.touchesWithheldForMaxContacts)
            count(MetricNames.touchesWithheld, [("reason", "palm")], host.palmsWithheld)
            count(MetricNames.touchesWithheld, [("reason", "block")], host.touchesWithheldForBlock)
            count(MetricNames.devicesLost, [], host.devicesLost)
            gauge(MetricNames.devicesAttached, [], host.devicesAttached)
            gauge(MetricNames.inputWaiting, [], host.devicesAttached == 0 ? 1 : 0)
            gauge(MetricNames.flightRecorderBytes, [], host.flightRecorderBytes)
            publishPanels(host.panels)
        }
        for transport in [ClientTransport.unixSocket, .webSocket] {
            let labels = [("transport", transport.rawValue)]
            gauge(MetricNames.clients, labels, reading.clients[transport] ?? 0)
            count(MetricNames.connections, labels, server.admitted[transport] ?? 0)
        }
        count(MetricNames.connectionsRefused, [], server.refusedFull)
        count(MetricNames.linesCoalesced, [], server.coalescedLines)
        count(MetricNames.backlogDisconnects, [], server.backlogDisconnects)
        for (command, count) in server.commands {
            self.count(MetricNames.commands, [("command", command.name), ("result", command.result)], count)
        }
    }

    /// `transitiond_info{kiosk,site,config_hash,version,…}`: one series, with
    /// the config's free labels after the fixed ones; the old one goes when
    /// a reload changes them. Without an identity (a daemon that read no
    /// config of its own does have one: the embedded config's hash) nothing.
    private func publishInfo(_ identity: DaemonIdentity?) {
        guard let identity else { return }
        var labels = [("kiosk", identity.kiosk ?? ""), ("site", identity.site ?? ""),
                      ("config_hash", identity.configHash), ("version", version)]
        labels += identity.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let series = Series(name: MetricNames.info.name, labels: labels.map { Label(name: $0.0, value: $0.1) })
        if info?.series == series { return }
        info?.gauge.destroy()
        let gauge = CoreMetrics.Gauge(label: series.name, dimensions: labels, factory: factory)
        gauge.record(1)
        info = (series, gauge)
    }

    /// Each attached panel's health gauges; those of panels gone, or of
    /// values not measured yet, are removed.
    private func publishPanels(_ panels: [PanelStatus]) {
        var now: [Series: Double] = [:]
        func set(_ metric: MetricDeclaration, _ labels: [(String, String)], _ value: Double?) {
            guard let value else { return }
            now[Series(name: metric.name, labels: labels.map { Label(name: $0.0, value: $0.1) })] = value
        }
        for panel in panels {
            let name = ("panel", panel.path)
            set(MetricNames.panelReportRate, [name, ("quantile", "0.5")], panel.reportRate)
            set(MetricNames.panelReportRate, [name, ("quantile", "0.05")], panel.reportRateP5)
            set(MetricNames.panelReportJitter, [name], panel.jitterMilliseconds.map { $0 / 1000 })
            set(MetricNames.panelDegraded, [name], panel.degraded ? 1 : 0)
        }
        for (series, gauge) in panelGauges where now[series] == nil {
            gauge.destroy()
            panelGauges[series] = nil
        }
        for (series, value) in now {
            let gauge = panelGauges[series]
                ?? CoreMetrics.Gauge(label: series.name, dimensions: series.labels.map { ($0.name, $0.value) }, factory: factory)
            panelGauges[series] = gauge
            gauge.record(value)
        }
    }

    /// The counter of this series, raised to `total` (counts only rise; a
    /// lower total, which would be a bug, leaves it as it is).
    private func count(_ metric: MetricDeclaration, _ labels: [(String, String)], _ total: Int) {
        let series = Series(name: metric.name, labels: labels.map { Label(name: $0.0, value: $0.1) })
        var entry = counters[series]
            ?? (CoreMetrics.Counter(label: metric.name, dimensions: labels, factory: factory), 0)
        if total > entry.published {
            entry.counter.increment(by: total - entry.published)
            entry.published = total
        }
        counters[series] = entry
    }

    private func gauge(_ metric: MetricDeclaration, _ labels: [(String, String)], _ value: Int) {
        let series = Series(name: metric.name, labels: labels.map { Label(name: $0.0, value: $0.1) })
        let gauge = gauges[series] ?? CoreMetrics.Gauge(label: metric.name, dimensions: labels, factory: factory)
        gauges[series] = gauge
        gauge.record(value)
    }
}
