import DaemonMetrics
import TransitionConfig
import ServerPorts
import Server
import ServerCore

/// Prometheus metrics for a served run (`run`, `replay --socket`): on unless
/// `[metrics] enabled = false`, at `/metrics` of the WebSocket listener and
/// of a listener of their own at `[metrics] listen` (or `--metrics`, which
/// also turns them on).
enum MetricsSetup {
    /// `--metrics ADDR:PORT` read as the config's `[metrics] listen` is.
    static func parseFlag(_ text: String?) throws -> ListenAddress? {
        try parseListenFlag(text, flag: "--metrics")
    }

    /// The server's metrics (nil when they are off), with the listener of
    /// their own set in `options` (unless the service manager passed one,
    /// which `options` has already).
    static func prepare(_ settings: MetricsSettings, flag: ListenAddress?, live: Bool,
                        options: inout ServerOptions) -> MetricsService? {
        guard settings.enabled || flag != nil || options.metricsListen != nil else {
            options.metricsListen = nil
            return nil
        }
        if options.metricsListen == nil, let listen = flag ?? settings.listen {
            options.metricsListen = MetricsListenOptions(host: listen.host, port: listen.port)
        }
        return MetricsExporter(live: live, version: Transitiond.configuration.version).service
    }
}
