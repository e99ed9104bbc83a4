import Dispatch
import NIOCore
import ServerCore
import ServerPorts

extension TransitionServer {
    /// The counts now (on the loop).
    var metricsReading: MetricsReading {
        loop.assertInEventLoop()
        return MetricsReading(
            server: machine.statistics,
            clients: [.unixSocket: machine.clientCount(on: .unixSocket), .webSocket: machine.clientCount(on: .webSocket)],
            host: host.statistics, identity: host.identity)
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
