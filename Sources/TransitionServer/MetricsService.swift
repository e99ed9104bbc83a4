import Dispatch
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
/// its counts and where the input-to-client latency starts and ends.
public struct MetricsService: Sendable {
    /// The exposition of the counts read: its content type and body. Called
    /// off the server's loop (the counts are read on it, the text is made on
    /// a queue of its own, so a scrape never holds up input), one call at a
    /// time.
    public var render: @Sendable (MetricsReading) -> (contentType: String, body: [UInt8])
    /// One input-to-first-client-write latency, in nanoseconds (on the loop).
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
    public var authority: String { WebSocketOptions.authority(host: host, port: port) }
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

    /// Answers `GET /metrics`: reads the counts now (on the loop), renders
    /// them on the metrics queue, and calls `done` back on the loop. False
    /// (and no call) when metrics are off.
    func renderMetrics(then done: @escaping @Sendable (_ contentType: String, _ body: [UInt8]) -> Void) -> Bool {
        loop.assertInEventLoop()
        guard let metrics else { return false }
        let reading = metricsReading
        let loop = self.loop
        metricsQueue.async {
            let response = metrics.render(reading)
            loop.execute { done(response.contentType, response.body) }
        }
        return true
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
