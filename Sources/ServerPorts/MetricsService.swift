import WireProtocol

// What the server and the metrics exporter exchange, so that neither
// depends on the other: the counts a scrape reads, and the exporter's
// rendering and latency histogram as the server calls them.

/// What a metrics scrape reads, on the server's loop: the machine's counts,
/// the clients holding a slot per transport, and the host's counts.
public struct MetricsReading: Sendable, Equatable {
    public var server: ServerStatistics
    public var clients: [ClientTransport: Int]
    public var host: HostStatistics
    /// Who the daemon is (`transitiond_info`); nil when not said.
    public var identity: DaemonIdentity?

    public init(server: ServerStatistics, clients: [ClientTransport: Int], host: HostStatistics,
                identity: DaemonIdentity? = nil) {
        self.identity = identity
        self.server = server
        self.clients = clients
        self.host = host
    }
}

/// Metrics as the server serves them (`GET /metrics`): the server knows
/// neither the metrics library nor the exposition format, only when to read
/// its counts and where the input-to-client latency starts and ends.
public struct MetricsService: Sendable {
    /// The exposition of the counts read: its content type and body. Called
    /// off the server's loop (the counts are read on it, the text is made on
    /// a queue of its own, so a scrape never holds up input), one call at a
    /// time.
    public var render: @Sendable (MetricsReading) -> (contentType: String, body: [UInt8])
    /// One input-to-first-client-write latency, in nanoseconds (on the loop).
    public var observeLatency: @Sendable (Int64) -> Void
    /// One touch-to-frame sample of a client on a transport, in nanoseconds (on the loop).
    public var observeTouchToFrame: @Sendable (ClientTransport, Int64) -> Void

    public init(render: @escaping @Sendable (MetricsReading) -> (contentType: String, body: [UInt8]),
                observeLatency: @escaping @Sendable (Int64) -> Void,
                observeTouchToFrame: @escaping @Sendable (ClientTransport, Int64) -> Void = { _, _ in }) {
        self.render = render
        self.observeLatency = observeLatency
        self.observeTouchToFrame = observeTouchToFrame
    }
}
