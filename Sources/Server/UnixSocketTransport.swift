#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import ServerCore
import NIOCore
import NIOPosix

// MARK: The Unix socket transport

/// The Unix socket as a transport of the server: binding (replacing a stale
/// socket file, refusing a live one) or adopting the service manager's
/// listening socket, accepting with NIO's `ServerBootstrap` on the server's
/// loop, and each connection turned into the machine's inputs — admitted
/// (by its peer's uid, `SO_PEERCRED`) or refused, active, bytes, gone. Every
/// byte a client gets goes through its channel (`TransitionServer.perform`).
///
/// Accepting is bounded per turn of the loop (`acceptsPerRead` connections
/// per readiness of the listening socket), so a connect flood waits in the
/// kernel's listen queue (4096 deep) instead of in the loop, where it
/// would use up descriptors and delay everything else, shutdown included;
/// out of descriptors, accepting backs off for 100 ms at a time.
extension TransitionServer {
    /// Connections accepted per readiness of the listening socket.
    static let acceptsPerRead: UInt = 16
    /// The listen queue's length (the kernel caps it at `somaxconn`).
    static let listenQueue: Int32 = 4096

    func bindAndListen() throws {
        let listening: CInt
        let owned = options.inheritedListener == nil
        if let inherited = options.inheritedListener {
            // Passed by the service manager: bound, its mode set and
            // listening already; it is never unlinked or chmod'ed here.
            let flags = fcntl(inherited, F_GETFL)
            guard flags >= 0, fcntl(inherited, F_SETFL, flags | O_NONBLOCK) == 0 else {
                throw SocketPathError(kind: .system, path: options.socketPath,
                                      message: "the passed listening socket: \(String(cString: strerror(errno)))")
            }
            listening = inherited
        } else {
            try SocketFile.prepare(options.socketPath)
            listening = try ListeningSocket.open(path: options.socketPath, mode: options.socketMode, backlog: Self.listenQueue)
        }
        let listener: Channel
        do {
            listener = try unixBootstrap().withBoundSocket(listening).wait()
        } catch {
            // (The bootstrap closes the socket once it made a channel of it.)
            if owned { SocketFile.remove(options.socketPath) }
            throw SocketPathError(kind: .system, path: options.socketPath, message: "cannot accept on it: \(error)")
        }
        // NIO's channel listens again on an adopted socket, with its default
        // queue of 128: a connect flood past that waits in the clients'
        // retries, not in the kernel. The deep queue again (a service
        // manager's socket too: NIO had cut its `Backlog=`).
        if listen(listening, Self.listenQueue) != 0 {
            logger.warning("cannot deepen the listen queue of \(options.socketPath): \(String(cString: strerror(errno)))")
        }
        // Accepting starts on the loop, with the machine listening, so that
        // a shutdown (a signal during start-up) comes either before — and
        // the machine stops it again at once — or after.
        do {
            try loop.submit { [self] in
                unixListener = listener
                if owned {
                    logger.info("serving \(options.socketPath) (mode \(String(options.socketMode, radix: 8)))")
                } else {
                    logger.info("serving \(options.socketPath) (passed by the service manager)")
                }
                input { $0.listening(into: &$1) }
                hostMayEmit()
                listener.setOption(.autoRead, value: true).whenSuccess { listener.read() }
                startAcceptingWebSockets()
                startAcceptingMetrics()
            }.wait()
        } catch {
            listener.close(promise: nil)
            if owned { SocketFile.remove(options.socketPath) }
            throw error
        }
    }

    /// The listener's bootstrap: not reading until the machine listens, a
    /// bounded number of accepts per turn, a back-off when out of
    /// descriptors, and each connection's channel set up for a client.
    private func unixBootstrap() -> ServerBootstrap {
        ServerBootstrap(group: loop)
            .serverChannelOption(.autoRead, value: false)
            .serverChannelOption(.maxMessagesPerRead, value: Self.acceptsPerRead)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptBackoffHandler(shouldForwardIOErrorCaught: false, backoffProvider: { _ in .milliseconds(100) }))
                }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024))
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536))
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(UnixClientHandler(server: self))
                }
            }
    }

    /// The machine listens and the input starts, with no listener bound:
    /// for connections whose channels are made elsewhere (the transport's
    /// tests, on `EmbeddedChannel`s with a `UnixClientHandler`). On the loop.
    func listenWithoutSocket() {
        loop.assertInEventLoop()
        input { $0.listening(into: &$1) }
        hostMayEmit()
    }

    /// Closes the Unix socket's listener (the service manager's socket too:
    /// its file stays).
    func stopAcceptingUnix() -> EventLoopFuture<Void> {
        closeListener(unixListener.take())
    }

    /// A connection on the Unix socket is up: admitted (by its peer's uid,
    /// before it gets anything) or refused with its line and a close.
    /// `admitted` is told its client before it gets `hello` (whose write
    /// may fail at once and close the channel: its handler must know whose
    /// it is by then).
    func unixConnectionActive(_ channel: Channel, admitted: (ClientID) -> Void) {
        let kernel = PeerCredentials.kernelCredentials(of: channel)
        switch admit(.unixSocket, from: kernel.map { PeerIdentity.uid($0.uid) }) {
        case .refuse(let line, _):
            guard let line else {
                channel.close(promise: nil)
                return
            }
            channel.writeAndFlush(line).whenComplete { _ in channel.close(promise: nil) }
        case .admit(let id):
            connections[id] = ClientConnection(id: id)
            admitted(id)
            let peer = kernel.map {
                PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid, groups: PeerCredentials.groups(of: channel, pid: $0.pid))
            }
            clientActive(id, channel: channel, peer: peer)
        }
    }
}

/// The pipeline handler of one Unix-socket connection: turns its channel's
/// events into the server's inputs (active → admitted and `hello`, bytes →
/// commands, inactive → gone).
final class UnixClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: TransitionServer
    /// Its client, once admitted.
    private var id: ClientID?

    init(server: TransitionServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        server.unixConnectionActive(context.channel) { id = $0 }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let id else { return }
        server.received(id, unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id { server.clientGone(id) }
        id = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
