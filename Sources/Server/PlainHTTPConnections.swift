import NIOCore
import NIOPosix
import ServerCore

/// The plain-HTTP connections of one listener (page and probe requests, and
/// WebSocket connections until they upgrade): not clients, so they hold no
/// slot, but bounded anyway. At most `limit` are held — a newcomer closes
/// the oldest — and each has 5 s to be done, so idle connections cannot
/// lock anyone out (a request or an upgrade takes milliseconds). Confined to
/// the server's loop.
final class PlainHTTPConnections {
    let limit: Int
    private var open: [ObjectIdentifier: (channel: Channel, order: UInt64, deadline: Scheduled<Void>)] = [:]
    private var arrivals: UInt64 = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Holds a new connection until it closes or is `released`.
    @discardableResult
    func hold(_ channel: Channel) -> ObjectIdentifier {
        if open.count >= limit, let oldest = open.min(by: { $0.value.order < $1.value.order }) {
            release(oldest.key)
            oldest.value.channel.close(promise: nil)
        }
        let key = ObjectIdentifier(channel)
        arrivals &+= 1
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        open[key] = (channel, arrivals, deadline)
        channel.closeFuture.whenComplete { [self] _ in release(key) }
        return key
    }

    /// The connection is no longer plain HTTP (it upgraded), or is closed.
    func release(_ key: ObjectIdentifier) {
        open.removeValue(forKey: key)?.deadline.cancel()
    }

    /// Closes every connection held.
    func closeAll() {
        let channels = open.values.map(\.channel)
        for key in Array(open.keys) { release(key) }
        for channel in channels { channel.close(promise: nil) }
    }
}

extension TransitionServer {
    /// A TCP listener of the HTTP side (WebSocket, metrics) bound to
    /// `host:port`, or the one the service manager passed; not accepting
    /// until `startAccepting`.
    func tcpListener(_ bootstrap: ServerBootstrap, host: String, port: Int, inherited: CInt?) throws -> Channel {
        if let inherited { return try bootstrap.withBoundSocket(inherited).wait() }
        return try bootstrap.bind(host: host, port: port).wait()
    }

    /// Starts accepting on a listener once the machine listens (on the loop).
    func startAccepting(_ listener: Channel?) {
        loop.assertInEventLoop()
        listener?.setOption(.autoRead, value: true).whenSuccess { listener?.read() }
    }

    /// Closes a listening channel (if any); succeeds when it is closed.
    func closeListener(_ listener: Channel?) -> EventLoopFuture<Void> {
        guard let listener else { return loop.makeSucceededVoidFuture() }
        let closed = loop.makePromise(of: Void.self)
        listener.close(promise: closed)
        return closed.futureResult.recover { _ in }
    }
}
