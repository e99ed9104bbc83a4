import NIOCore

/// What a metrics scrape reads, on the server's loop: the machine's counts,
/// the clients holding a slot per transport, and the host's counts.
public struct MetricsReading: Sendable, Equatable {
    public var server: ServerStatistics
    public var clients: [ClientTransport: Int]
    public var host: HostStatistics

    public init(server: ServerStatistics, clients: [ClientTransport: Int], host: HostStatistics) {
        self.server = server
        self.clients = clients
        self.host = host
    }
}

/// Metrics as the server serves them (`GET /metrics`): the server knows
/// neither the metrics library nor the exposition format, only when to read
/// its counts and where the input-to-client latency starts and ends. Both
/// closures are called on the server's loop.
public struct MetricsService: Sendable {
    /// The exposition of everything counted now: its content type and body.
    public var render: @Sendable (MetricsReading) -> (contentType: String, body: [UInt8])
    /// One input-to-first-client-write latency, in nanoseconds.
    public var observeLatency: @Sendable (Int64) -> Void

    public init(render: @escaping @Sendable (MetricsReading) -> (contentType: String, body: [UInt8]),
                observeLatency: @escaping @Sendable (Int64) -> Void) {
        self.render = render
        self.observeLatency = observeLatency
    }
}

/// Where the metrics listener of its own binds (`[metrics] listen`), or the
/// listening TCP socket the service manager passed (named `metrics`).
public struct MetricsListenOptions: Sendable, Equatable {
    /// An IPv4 or IPv6 address (no name) and a port (0: the kernel picks).
    public var host: String
    public var port: Int
    public var inheritedListener: CInt?

    public init(host: String, port: Int, inheritedListener: CInt? = nil) {
        self.host = host
        self.port = port
        self.inheritedListener = inheritedListener
    }

    /// `host:port` as a URL writes it.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension TransitionServer {
    /// The counts now (on the loop).
    var metricsReading: MetricsReading {
        loop.assertInEventLoop()
        return MetricsReading(
            server: machine.statistics,
            clients: [.unixSocket: machine.clientCount(on: .unixSocket), .webSocket: machine.clientCount(on: .webSocket)],
            host: host.statistics)
    }

    /// What `GET /metrics` answers now, nil when metrics are off (on the loop).
    func metricsResponse() -> (contentType: String, body: [UInt8])? {
        guard let metrics else { return nil }
        return metrics.render(metricsReading)
    }

    /// Whether the daemon is up for a probe (`/healthz`): serving, or
    /// waiting for its first clients; not once it is stopping.
    var isHealthy: Bool {
        switch machine.phase {
        case .waitingForClients, .serving: return true
        case .starting, .shuttingDown, .closed: return false
        }
    }
}
