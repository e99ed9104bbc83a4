/// The config's `[metrics]` table: whether Prometheus metrics are served, and a listener of their own.
///
/// With `enabled` (the default) the daemon serves `/metrics` on the
/// WebSocket transport's HTTP listener when that is on (`[server] websocket`,
/// `--websocket`), and on `listen` when it is set. `listen` is a listener of
/// its own serving `/metrics` and `/healthz` over HTTP, for when the
/// WebSocket transport is off or listens more widely than metrics should.
/// `enabled = false` with `listen` set is a config error. An absent table
/// gives `MetricsSettings.standard`.
public struct MetricsSettings: Sendable, Equatable {
    /// `enabled`: whether `/metrics` is served at all (default true).
    public var enabled: Bool
    /// `listen`: where the metrics' own listener binds (an IPv4 address,
    /// `localhost` or a bracketed IPv6 address, as `[server] websocket`), or
    /// nil for none (the default).
    public var listen: ListenAddress?

    /// Settings with the given values; every argument defaults to the design's.
    public init(enabled: Bool = true, listen: ListenAddress? = nil) {
        self.enabled = enabled
        self.listen = listen
    }

    /// The settings of a config without `[metrics]`: metrics on, no listener of their own.
    public static let standard = MetricsSettings()
}
