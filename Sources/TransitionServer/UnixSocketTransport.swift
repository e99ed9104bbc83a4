#if canImport(Glibc)
import Glibc
#endif
import Clocks
import NIOCore
import NIOPosix

// MARK: The Unix socket transport

/// The Unix socket as a transport of the server: binding (replacing a stale
/// socket file, refusing a live one), the acceptor thread, and each
/// connection turned into the machine's inputs — admitted or refused, set
/// up as a NIO channel (which reads its commands) with a duplicate
/// descriptor for direct writes, active, bytes, gone.
extension TransitionServer {
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
            listening = try ListeningSocket.open(path: options.socketPath, mode: options.socketMode, backlog: 4096)
        }
        let acceptor: ConnectionAcceptor
        do {
            acceptor = try ConnectionAcceptor(listening: listening, path: options.socketPath, logger: logger) { [self] fds in
                loop.execute { [self] in
                    fds.forEach(connectionArrived)
                    self.acceptor?.registered(fds.count)
                }
            }
        } catch {
            Glibc.close(listening)
            if owned { SocketFile.remove(options.socketPath) }
            throw error
        }
        // Installed and started on the loop, so that a shutdown (a signal
        // during start-up) comes either before — and the machine stops it
        // again at once — or after.
        do {
            try loop.submit { [self] in
                try acceptor.start(on: loop)
                self.acceptor = acceptor
                if owned {
                    logger.info("serving \(options.socketPath) (mode \(String(options.socketMode, radix: 8)))")
                } else {
                    logger.info("serving \(options.socketPath) (passed by the service manager)")
                }
                input { $0.listening(into: &$1) }
                hostMayEmit()
                startAcceptingWebSockets()
                startAcceptingMetrics()
            }.wait()
        } catch {
            _ = acceptor.stop(on: loop)
            if owned { SocketFile.remove(options.socketPath) }
            throw error
        }
    }

    /// A connection from the Unix socket's acceptor: admitted (wrapped in a
    /// NIO channel that reads its commands, with a duplicate descriptor for
    /// direct writes) or refused with one `send` and a close.
    func connectionArrived(_ fd: CInt) {
        // Its uid (one `getsockopt`), for the per-peer limit before it costs a channel.
        switch admit(.unixSocket, from: ConnectionDescriptor.peerUID(of: fd).map(PeerIdentity.uid)) {
        case .refuse(let line, _):
            let refused = ConnectionDescriptor(fd)
            if let line { _ = refused.send(line) }
            refused.close()
        case .admit(let id):
            let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard duplicate >= 0 else {
                logger.warning("dropped a connection: cannot duplicate its descriptor: \(String(cString: strerror(errno)))")
                Glibc.close(fd)
                input { $0.clientGone(id, into: &$1) }
                return
            }
            let connection = ClientConnection(id: id, direct: ConnectionDescriptor(duplicate))
            connections[id] = connection
            ClientBootstrap(group: loop)
                .channelOption(.writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024))
                .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536))
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ClientHandler(server: self, id: id))
                    }
                }
                .withConnectedSocket(fd)
                .whenFailure { [self] error in
                    logger.warning("dropped a connection: \(error)")
                    clientGone(id)
                }
        }
    }

}

/// The pipeline handler of one Unix-socket client: turns its channel's
/// events into the server's inputs (active → `hello`, bytes → commands,
/// inactive → gone).
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: TransitionServer
    private let id: ClientID

    init(server: TransitionServer, id: ClientID) {
        self.server = server
        self.id = id
    }

    func channelActive(context: ChannelHandlerContext) {
        server.clientActive(id, channel: context.channel, peer: server.connections[id]?.direct?.peerCredentials())
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        server.received(id, unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.clientGone(id)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}


