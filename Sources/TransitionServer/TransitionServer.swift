#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import TransitionEngine
import EventStream

/// The socket server (design "Socket"): clients connect to a Unix stream
/// socket, get `hello` and then the event stream; allowed clients send
/// commands. One event loop runs everything — the engine's host, encoding
/// (once per event) and the writes to every client — so no event hops
/// between threads. Create, `start()`, and `shutdown()` on SIGINT/SIGTERM.
public final class TransitionServer: @unchecked Sendable {
    public let loop: EventLoop
    public let options: ServerOptions
    private let host: EngineHost
    private let encoder: EventEncoder
    private let policy: AccessPolicy
    private let logger: Logger
    private let names: [String: Int]

    private var acceptor: ConnectionAcceptor?
    /// Connected clients, in the order they came.
    private var clients: [ClientSession] = []
    private var nextClient = 1
    private let writer = JSONWriter(capacity: 1 << 16)
    private var isShuttingDown = false
    private let allocator = ByteBufferAllocator()
    /// Completed when the server has closed everything.
    public let closed: EventLoopPromise<Void>
    /// Called (on the loop) when the host has no more input.
    public var onInputFinished: (() -> Void)?

    public init(loop: EventLoop, options: ServerOptions, host: EngineHost, logger: Logger) {
        self.loop = loop
        self.options = options
        self.host = host
        self.encoder = EventEncoder(configuration: host.configuration)
        self.policy = AccessPolicy(uids: options.allowUIDs, gids: options.allowGIDs)
        self.logger = logger
        var names: [String: Int] = [:]
        for (i, spec) in host.configuration.transitions.enumerated() { names[spec.name] = i }
        self.names = names
        self.closed = loop.makePromise()
    }

    /// The number of connected clients.
    public var clientCount: Int { clients.count }

    // MARK: Starting

    /// Binds the socket (replacing a stale one, refusing a live one), sets
    /// its mode, starts accepting and starts the host. Call on any thread;
    /// returns when bound.
    public func start() throws {
        try SocketFile.prepare(options.socketPath)
        let listening = try ListeningSocket.open(path: options.socketPath, mode: options.socketMode, backlog: 4096)
        let acceptor: ConnectionAcceptor
        do {
            acceptor = try ConnectionAcceptor(listening: listening, path: options.socketPath, logger: logger) { [self] fds in
                loop.execute { [self] in
                    fds.forEach(register)
                    self.acceptor?.registered(fds.count)
                }
            }
        } catch {
            Glibc.close(listening)
            SocketFile.remove(options.socketPath)
            throw error
        }
        // Installed and started on the loop, so that a shutdown (a signal
        // during start-up) comes either before — and nothing is served — or
        // after, and stops it.
        let installed: Bool
        do {
            installed = try loop.submit { [self] () -> Bool in
                guard !isShuttingDown else { return false }
                self.acceptor = acceptor
                acceptor.start()
                return true
            }.wait()
        } catch {
            _ = acceptor.stop(on: loop)
            SocketFile.remove(options.socketPath)
            throw error
        }
        guard installed else {
            _ = acceptor.stop(on: loop)
            SocketFile.remove(options.socketPath)
            return
        }
        logger.info("serving \(options.socketPath) (mode \(String(options.socketMode, radix: 8)))")
        loop.execute { [self] in startHostIfReady() }
    }

    private var hostStarted = false

    /// Starts the host once enough clients are connected.
    private func startHostIfReady() {
        guard !hostStarted, !isShuttingDown, acceptor != nil, clients.count >= options.startAfterClients else { return }
        hostStarted = true
        if options.startAfterClients > 0 {
            logger.info("\(clients.count) clients connected: starting")
        }
        host.start(emit: { [self] events in broadcast(events) },
                   finished: { [self] in onInputFinished?() })
    }

    // MARK: Events

    /// Encodes each event once and hands the same bytes to every client
    /// that wants them; flushes each client once per batch. A client that
    /// is caught up and takes every transition gets the whole batch as one
    /// write (several events when the loop catches up after a busy moment,
    /// so falling behind costs fewer writes and wake-ups, not more); any
    /// other gets each line it wants through its outbox.
    func broadcast(_ events: [TransitionEvent]) {
        guard !clients.isEmpty, !events.isEmpty else { return }
        let lines = events.map(encodeLine)
        var joined: ByteBuffer? = lines.count == 1 ? lines[0].line : nil
        for client in clients {
            if client.filter == nil && client.isCaughtUp && !client.closing {
                if joined == nil {
                    var all = allocator.buffer(capacity: lines.reduce(0) { $0 + $1.line.readableBytes })
                    for entry in lines { all.writeImmutableBuffer(entry.line) }
                    joined = all
                }
                client.sendInOrder(joined!)
                continue
            }
            for entry in lines where client.wants(entry.transition) {
                if !client.send(entry.line, entry.priority) {
                    overflow(client)
                    break
                }
            }
        }
        for client in clients { client.flush() }
    }

    /// One event's line (with the `sent` stamp when measuring), and how a
    /// client that falls behind may treat it.
    private func encodeLine(_ event: TransitionEvent) -> (line: ByteBuffer, priority: ClientOutbox.Priority, transition: Int) {
        writer.reset()
        encoder.encode(event, into: writer)
        var line = allocator.buffer(capacity: writer.count + 32)
        writer.withBytes { bytes in
            if options.stampSent {
                line.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 2)]))
                var ts = timespec()
                clock_gettime(CLOCK_MONOTONIC, &ts)
                line.writeStaticString(",\"sent\":")
                line.writeDecimal(UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
                line.writeStaticString("}\n")
            } else {
                line.writeBytes(bytes)
            }
        }
        switch event.kind {
        case .changed, .animating: return (line, .coalescible(transition: event.transition), event.transition)
        case .began, .ended, .finished, .cancelled: return (line, .essential(transition: event.transition), event.transition)
        }
    }

    private func overflow(_ client: ClientSession) {
        logger.warning("\(client.label) fell behind by more than \(options.backlogLimit) bytes: disconnecting")
        closeWithError(client, errorLine("backlog", "you fell behind by more than \(options.backlogLimit) bytes; reconnect", id: nil))
    }

    // MARK: Clients

    /// A connection from the acceptor: wraps it in a NIO channel (which
    /// reads its commands) and keeps a duplicate descriptor for writing.
    private func register(_ fd: CInt) {
        if isShuttingDown {
            Glibc.close(fd)
            return
        }
        if clients.count >= options.maxClients {
            // Refused before any work (no channel, no /proc read), so that a
            // connect flood costs little; said in the log now and then.
            let refused = ConnectionDescriptor(fd)
            _ = refused.send(tooManyClientsLine())
            refused.close()
            noteRefusal()
            return
        }
        let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            logger.warning("dropped a connection: cannot duplicate its descriptor: \(String(cString: strerror(errno)))")
            Glibc.close(fd)
            return
        }
        let descriptor = ConnectionDescriptor(duplicate)
        ClientBootstrap(group: loop)
            .channelOption(.writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024))
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ClientHandler(server: self, descriptor: descriptor))
                }
            }
            .withConnectedSocket(fd)
            .whenFailure { [self] error in
                logger.warning("dropped a connection: \(error)")
                descriptor.close()
            }
    }

    func accepted(_ channel: Channel, descriptor: ConnectionDescriptor) -> ClientSession {
        let client = ClientSession(channel: channel, descriptor: descriptor, number: nextClient,
                                   peer: descriptor.peerCredentials(),
                                   lineLimit: options.lineLimit, backlogLimit: options.backlogLimit)
        nextClient += 1
        if isShuttingDown {
            close(client)
            return client
        }
        if clients.count >= options.maxClients {
            noteRefusal()
            closeWithError(client, tooManyClientsLine())
            return client
        }
        clients.append(client)
        writer.reset()
        encoder.hello(active: host.snapshot(), seq: host.lastSeq, extra: host.helloExtra, into: writer)
        _ = client.send(bytes(writer), .essential(transition: nil))
        client.flush()
        logger.debug("\(client.label) connected (\(clients.count) clients)")
        startHostIfReady()
        return client
    }

    func received(_ data: ByteBuffer, from client: ClientSession) {
        for output in client.framer.feed(data.readableBytesView) {
            switch output {
            case .line(let line):
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                handle(line, from: client)
            case .tooLong:
                logger.notice("\(client.label) sent a line over \(options.lineLimit) bytes: closing")
                closeWithError(client, errorLine("line-too-long", "a command line is at most \(options.lineLimit) bytes", id: nil))
                return
            }
            if client.closing { return }
        }
        client.flush()
    }

    func writabilityChanged(_ client: ClientSession) {
        client.drain()
    }

    func disconnected(_ client: ClientSession) {
        client.closing = true
        client.descriptor.close()
        if remove(client) {
            logger.debug("\(client.label) disconnected (\(clients.count) clients)")
        }
    }

    @discardableResult
    private func remove(_ client: ClientSession) -> Bool {
        guard let i = clients.firstIndex(where: { $0 === client }) else { return false }
        clients.remove(at: i)
        return true
    }

    /// Sends a last line (an error) after what the client already has in
    /// flight, then closes the connection once the line is written, or after
    /// 1 s. Lines still in its outbox are dropped: it is being cut off.
    private func closeWithError(_ client: ClientSession, _ line: ByteBuffer) {
        client.closing = true
        remove(client)
        let written = client.writeFinal(line)
        let deadline = loop.scheduleTask(in: .seconds(1)) { client.channel.close(promise: nil) }
        written.whenComplete { _ in
            deadline.cancel()
            client.channel.close(promise: nil)
            client.descriptor.close()
        }
    }

    private func tooManyClientsLine() -> ByteBuffer {
        errorLine("too-many-clients", "the daemon serves at most \(options.maxClients) clients", id: nil)
    }

    private var refusals = 0
    private var lastRefusalReport: NIODeadline? = nil

    /// Logs refusals for max_clients: the first, then at most every 10 s.
    private func noteRefusal() {
        refusals += 1
        let now = NIODeadline.now()
        if let last = lastRefusalReport, now - last < .seconds(10) { return }
        lastRefusalReport = now
        logger.warning("refused \(refusals == 1 ? "a connection" : "\(refusals) connections"): already \(clients.count) clients (max_clients)")
        refusals = 0
    }

    private func close(_ client: ClientSession) {
        client.closing = true
        remove(client)
        client.channel.close(promise: nil)
        client.descriptor.close()
    }

    // MARK: Commands

    private func handle(_ line: [UInt8], from client: ClientSession) {
        switch CommandDecoder.decode(line) {
        case .failure(let error):
            reply(client, errorLine(error.code, error.message, id: error.id))
        case .success(let (command, id)):
            execute(command, id: id, from: client)
        }
    }

    private func execute(_ command: ClientCommand, id: RequestID?, from client: ClientSession) {
        if command.changesState {
            let peer = client.peer ?? PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
            guard policy.allowsChanges(by: peer) else {
                logger.notice("refused '\(command.name)' from pid \(peer.pid) uid \(peer.uid): not root and not in [server] allow_uids/allow_groups")
                reply(client, errorLine("forbidden", "'\(command.name)' changes state: uid \(peer.uid) is not allowed (see [server] allow_uids / allow_groups)", id: id))
                return
            }
        }
        switch command {
        case .ping:
            reply(client, simpleLine("pong", cmd: nil, id: id))
        case .state:
            writer.reset()
            encoder.hello(type: "state", active: host.snapshot(), seq: host.lastSeq, extra: host.helloExtra, into: writer)
            var line = bytes(writer)
            if let id { line = withID(line, id) }
            reply(client, line)
        case .subscribe(let transitions):
            var filter = Set<Int>()
            for name in transitions {
                guard let i = names[name] else {
                    reply(client, errorLine("unknown-transition", "no transition named '\(name)' (configured: \(host.configuration.transitions.map(\.name).joined(separator: ", ")))", id: id))
                    return
                }
                filter.insert(i)
            }
            client.filter = transitions.isEmpty ? nil : filter
            reply(client, simpleLine("ok", cmd: "subscribe", id: id))
        case .run(let name, let to):
            perform(.run(to), on: name, command: command, id: id, client: client)
        case .drive(let name, let progress):
            perform(.drive(progress: progress), on: name, command: command, id: id, client: client)
        case .release(let name, let velocity):
            perform(.release(velocity: velocity), on: name, command: command, id: id, client: client)
        case .cancel(let name):
            perform(.cancel, on: name, command: command, id: id, client: client)
        }
    }

    private func perform(_ engineCommand: TransitionEngine.Command, on name: String, command: ClientCommand,
                         id: RequestID?, client: ClientSession) {
        guard let i = names[name] else {
            reply(client, errorLine("unknown-transition", "no transition named '\(name)'", id: id))
            return
        }
        var events: [TransitionEvent] = []
        switch host.perform(engineCommand, transition: i, into: &events) {
        case .done:
            reply(client, simpleLine("ok", cmd: command.name, id: id))
            broadcast(events)
        case .refused(let code, let message):
            broadcast(events)
            reply(client, errorLine(code, message, id: id))
        }
    }

    private func reply(_ client: ClientSession, _ line: ByteBuffer) {
        if !client.send(line, .essential(transition: nil)) { overflow(client) }
    }

    // MARK: Lines

    private func bytes(_ w: JSONWriter) -> ByteBuffer {
        var line = allocator.buffer(capacity: w.count)
        w.withBytes { line.writeBytes($0) }
        return line
    }

    private func simpleLine(_ type: StaticString, cmd: String?, id: RequestID?) -> ByteBuffer {
        let w = JSONWriter(capacity: 64)
        w.raw("{\"type\":\"")
        w.raw(type)
        w.raw("\"")
        if let cmd {
            w.raw(",\"cmd\":")
            w.string(cmd)
        }
        appendID(id, w)
        w.raw("}\n")
        return bytes(w)
    }

    func errorLine(_ code: String, _ message: String, id: RequestID?) -> ByteBuffer {
        let w = JSONWriter(capacity: 128)
        w.raw("{\"type\":\"error\",\"code\":")
        w.string(code)
        w.raw(",\"message\":")
        w.string(message)
        appendID(id, w)
        w.raw("}\n")
        return bytes(w)
    }

    private func appendID(_ id: RequestID?, _ w: JSONWriter) {
        guard let id else { return }
        w.raw(",\"id\":")
        switch id {
        case .number(let n): w.integer(n)
        case .text(let s): w.string(s)
        }
    }

    /// Adds `"id":…` before the closing brace of a line.
    private func withID(_ line: ByteBuffer, _ id: RequestID) -> ByteBuffer {
        var copy = line
        copy.moveWriterIndex(to: line.writerIndex - 2)
        let w = JSONWriter(capacity: 32)
        appendID(id, w)
        w.raw("}\n")
        w.withBytes { copy.writeBytes($0) }
        return copy
    }

    // MARK: Shutdown

    /// Ends everything in flight (`ended` cancel/shutdown + `cancelled` to
    /// every client), closes every connection (giving each a moment to
    /// take its last lines), stops listening and removes the socket file.
    public func shutdown() -> EventLoopFuture<Void> {
        loop.execute { [self] in
            guard !isShuttingDown else { return }
            isShuttingDown = true
            var events: [TransitionEvent] = []
            host.shutdown(into: &events)
            broadcast(events)
            let stopListening = acceptor?.stop(on: loop) ?? loop.makeSucceededVoidFuture()
            acceptor = nil
            let goodbyes = clients.map { client -> EventLoopFuture<Void> in
                client.closing = true
                while let line = client.outbox.next() { client.channel.write(line, promise: nil) }
                let done = client.channel.writeAndFlush(allocator.buffer(capacity: 0))
                let deadline = loop.scheduleTask(in: .seconds(1)) { client.channel.close(promise: nil) }
                return done.flatMap { client.channel.close() }
                    .always { _ in
                        deadline.cancel()
                        client.descriptor.close()
                    }
                    .recover { _ in }
            }
            clients.removeAll()
            EventLoopFuture.andAllComplete(goodbyes + [stopListening.recover { _ in }], on: loop).whenComplete { [self] _ in
                SocketFile.remove(options.socketPath)
                logger.info("stopped; removed \(options.socketPath)")
                closed.succeed(())
            }
        }
        return closed.futureResult
    }
}

/// The pipeline handler of one client connection: bytes in → the server;
/// writability and close → the server.
final class ClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let server: TransitionServer
    private let descriptor: ConnectionDescriptor
    private var client: ClientSession?

    init(server: TransitionServer, descriptor: ConnectionDescriptor) {
        self.server = server
        self.descriptor = descriptor
    }

    func channelActive(context: ChannelHandlerContext) {
        client = server.accepted(context.channel, descriptor: descriptor)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client, !client.closing else { return }
        server.received(unwrapInboundIn(data), from: client)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let client, context.channel.isWritable { server.writabilityChanged(client) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { server.disconnected(client) } else { descriptor.close() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

extension ByteBuffer {
    /// Writes `value` in decimal ASCII, without building a String.
    mutating func writeDecimal(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { raw -> Int in
            var n = value
            var i = raw.count
            repeat {
                i -= 1
                raw[i] = UInt8(truncatingIfNeeded: n % 10) &+ 0x30
                n /= 10
            } while n > 0
            return raw.count - i
        }
        _ = withUnsafeBytes(of: &digits) { raw in
            writeBytes(UnsafeRawBufferPointer(rebasing: raw[(raw.count - count)...]))
        }
    }
}
