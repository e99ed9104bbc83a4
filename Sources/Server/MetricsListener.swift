#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import ServerCore
import NIOHTTP1
import NIOPosix

/// What the HTTP side of a listener answers besides its pages: `/healthz`
/// (200 while the daemon serves, 503 once it stops) and `/metrics` (when
/// the daemon has metrics: `TransitionServer.renderMetrics`). Called on the
/// server's loop.
struct HTTPProbes {
    var healthy: () -> Bool
    var metrics: (@escaping @Sendable (_ contentType: String, _ body: [UInt8]) -> Void) -> Bool
}

// MARK: The metrics listener of its own

/// `[metrics] listen`: plain HTTP serving `/metrics` and `/healthz` only,
/// for when the WebSocket transport is off (or listens more widely than the
/// metrics should). Like the WebSocket listener's plain-HTTP side, one
/// request is answered and the connection closed, and its connections are
/// bounded (`PlainHTTPConnections`: 64, 5 s each), so idle connections lock
/// no scraper out.
extension TransitionServer {
    var probes: HTTPProbes {
        HTTPProbes(healthy: { [self] in isHealthy }, metrics: { [self] done in renderMetrics(then: done) })
    }

    /// Binds the listener (or adopts the passed one), not yet accepting.
    /// Returns what to log once every listener is bound.
    func bindMetrics(_ options: MetricsListenOptions) throws -> () -> Void {
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.autoRead, value: false)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try configureMetricsChannel(channel) }
            }
        let listener = try tcpListener(bootstrap, host: options.host, port: options.port, inherited: options.inheritedListener)
        var bound = options
        bound.port = listener.localAddress?.port ?? options.port
        try loop.submit { [self] in metricsListener = listener }.wait()
        let how = options.inheritedListener == nil ? "" : " (passed by the service manager)"
        let logger = logger
        return {
            logger.info("serving metrics at http://\(bound.authority)/metrics\(how)")
            if options.inheritedListener == nil, !Self.isLoopbackAddress(options.host) {
                logger.warning("the metrics listener is on \(bound.authority), which is not loopback: other machines can read the daemon's counts")
            }
        }
    }

    /// The bound port of the metrics listener (0 when there is none).
    public var metricsPort: Int {
        loop.assertInEventLoop()
        return metricsListener?.localAddress?.port ?? 0
    }

    func startAcceptingMetrics() {
        startAccepting(metricsListener)
    }

    func stopAcceptingMetrics() -> EventLoopFuture<Void> {
        loop.assertInEventLoop()
        metricsRequests.closeAll()
        return closeListener(metricsListener.take())
    }

    private func configureMetricsChannel(_ channel: Channel) throws {
        loop.assertInEventLoop()
        metricsRequests.hold(channel)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        // No upgrade here: a WebSocket request is "not a valid upgrade" (400).
        try channel.pipeline.syncOperations.addHandler(
            WebPageHandler(pages: [:], probes: probes, refusedOrigin: { _ in false }))
    }
}
