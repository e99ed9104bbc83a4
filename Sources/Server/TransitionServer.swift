#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import ServerCore
import NIOPosix
import Engine
import EventStream
import WireProtocol
import SystemSupport
import Dispatch
import ServerPorts

/// The socket server (design "Socket"): the executor of `ServerStateMachine`
/// on one event loop. It feeds the machine its inputs — connections from
/// the transports, client bytes, engine events, write results — and
/// performs the actions the machine returns: writes, closes, engine
/// commands, starting and stopping the input, removing the socket file.
/// The rules (who gets what, coalescing, back-pressure, access, shutdown
/// order) are all in the machine; this class holds only the I/O handles.
///
/// One event loop runs everything — the engine's host, encoding (once per
/// event) and the writes to every client — so no event hops between
/// threads. Create, `start()`, and `shutdown()` on SIGINT/SIGTERM.
public final class TransitionServer: @unchecked Sendable {
    public let loop: EventLoop
    public let options: ServerOptions
    let host: EngineHost
    /// Metrics (`/metrics`), or nil when they are off.
    let metrics: MetricsService?
    /// While events of input are being sent: the input's time (ns), until
    /// the first client write ends the latency measured from it.
    private var latencyStart: Int64?
    /// Which input each line came from, and the clients' frames joined to it.
    private var frames = FrameJoin()
    /// The last minute's latencies, for `state`.
    private var touchToFrame = LatencyWindow(), inputToWrite = LatencyWindow()
    private var encoder: EventEncoder
    /// Re-reads the config for a reload (nil: nothing to re-read).
    private let configReader: ConfigReader?
    let logger: Logger

    /// The rules. Touched on the loop only, by `input`.
    private(set) var machine: ServerStateMachine
    /// Actions to perform, in order; inputs that arrive while actions are
    /// being performed (a write that fails at once and closes its channel)
    /// append theirs here, so an input never runs inside another.
    private var queue: [ServerStateMachine.Action] = []
    private var performing = false
    /// Told the number of clients holding a slot when a client arrives or
    /// leaves (on the loop): the service manager's status line follows it
    /// without a timer, so an idle daemon never wakes.
    public var clientCountChanged: ((Int) -> Void)?
    var connections = ConnectionTable()
    /// The Unix socket's listening channel, once bound.
    var unixListener: Channel?
    /// The WebSocket transport's listening channel, its port once bound
    /// (the page's own origin names it), and its connections still in
    /// plain HTTP (not clients yet).
    var webSocketListener: Channel?
    var webSocketPort = 0
    let webRequests = PlainHTTPConnections(limit: 1024)
    /// The metrics listener of its own (`[metrics] listen`), once bound.
    var metricsListener: Channel?
    let metricsRequests = PlainHTTPConnections(limit: 64)
    /// Where `/metrics` is rendered, off the loop, one scrape at a time.
    let metricsQueue = DispatchQueue(label: "transitiond.metrics")
    private let writer = JSONWriter(capacity: 1 << 16)
    private var eventBuffer: [TransitionEvent] = []
    /// How many refusals the log has said lately (`RefusalLog`).
    var refusals = RefusalLog()
    /// Completed when the server has closed everything.
    public let closed: EventLoopPromise<Void>

    public init(loop: EventLoop, options: ServerOptions, host: EngineHost, logger: Logger,
                configReader: ConfigReader? = nil, metrics: MetricsService? = nil) {
        self.loop = loop
        self.metrics = metrics
        self.options = options
        self.host = host
        self.configReader = configReader
        self.encoder = EventEncoder(configuration: host.configuration, listed: host.liveTransitionCount)
        self.logger = logger
        self.machine = ServerStateMachine(settings: .init(
            maxClients: options.maxClients, maxWebSocketClients: options.maxWebSocketClients,
            maxClientsPerPeer: options.maxClientsPerPeer, backlogLimit: options.backlogLimit, lineLimit: options.lineLimit,
            startAfterClients: options.startAfterClients, closeWhenInputEnds: options.closeWhenInputEnds,
            policy: AccessPolicy(uids: options.allowUIDs, gids: options.allowGIDs),
            transitions: host.configuration.transitions.map(\.name), logClients: logger.logLevel <= .debug,
            ownsSocketFile: options.inheritedListener == nil,
            exclusionCap: EdgeExclusionCap(fraction: options.maxEdgeExclusion, configuration: host.configuration)))
        self.closed = loop.makePromise()
    }

    /// The number of clients holding a slot (call on the loop).
    public var clientCount: Int {
        loop.assertInEventLoop()
        return machine.clientCount
    }

    // MARK: Starting and stopping

    /// Binds the socket (replacing a stale one, refusing a live one), sets
    /// its mode, starts accepting and starts the input. Call on any thread;
    /// returns when bound. If it throws, `closed` fails with the error.
    public func start() throws {
        if let problem = options.problem {
            let error = ServerOptionsError(message: problem)
            closed.fail(error)
            throw error
        }
        do {
            // The TCP listeners are bound first (a port in use fails before
            // a socket file is made) but said only once the Unix socket is
            // bound too: no "serving ws://…" before a path that cannot be.
            var announcements: [() -> Void] = []
            if let webSocket = options.webSocket { announcements.append(try bindWebSocket(webSocket)) }
            if let listen = options.metricsListen { announcements.append(try bindMetrics(listen)) }
            try bindAndListen()
            for announce in announcements { announce() }
        } catch {
            let listeners = try? loop.submit({ [self] in [webSocketListener.take(), metricsListener.take(), unixListener.take()] }).wait()
            for listener in (listeners ?? []).compactMap({ $0 }) {
                try? listener.close().wait()
            }
            closed.fail(error)
            throw error
        }
    }

    /// Ends everything in flight (`ended` cancel/shutdown + `cancelled` to
    /// every client), closes every connection (giving each a moment to
    /// take its last lines), stops listening and removes the socket file.
    public func shutdown() -> EventLoopFuture<Void> {
        loop.execute { [self] in input { $0.shutdownRequested(into: &$1) } }
        return closed.futureResult
    }

    /// Re-reads the config (SIGHUP): see `ConfigReader`.
    public func reload() {
        loop.execute { [self] in input { $0.reloadRequested(into: &$1) } }
    }

    // MARK: Inputs

    /// Applies one input to the machine and performs its actions (or, when
    /// called while actions are being performed, queues them behind).
    func input(_ apply: (inout ServerStateMachine, inout [ServerStateMachine.Action]) -> Void) {
        loop.assertInEventLoop()
        apply(&machine, &queue)
        guard !performing else { return }
        performing = true
        var next = 0
        while next < queue.count {
            let action = queue[next]
            next += 1
            perform(action)
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 4096)
        performing = false
    }

    /// A connection arrived on a transport, from `peer` if the transport
    /// can tell already: admitted (it holds a slot until `clientGone`) or
    /// refused (the transport sends the line, if any, and closes it). A
    /// transport that learns who the peer is only later says so to
    /// `clientActive` (its peer's credentials, else its address).
    func admit(_ transport: ClientTransport, from peer: PeerIdentity? = nil) -> ServerStateMachine.Admission {
        loop.assertInEventLoop()
        var admission = ServerStateMachine.Admission.refuse(nil, full: false)
        input { admission = $0.connectionArrived(transport, from: peer, into: &$1) }
        if case .admit = admission { clientCountChanged?(machine.clientCount) }
        return admission
    }

    /// The client's channel is active (`peer`: who it is, if the transport
    /// can tell): it gets `hello`.
    func clientActive(_ id: ClientID, channel: Channel, peer: PeerCredentials?) {
        guard let connection = connections[id] else {
            channel.close(promise: nil)
            return
        }
        connection.channel = channel
        if connection.closeWhenActive {
            channel.close(promise: nil)
            return
        }
        writer.reset()
        writeHello()
        let hello = ReplyLines.buffer(writer)
        // Who it is for the per-peer limit: its uid, else (a WebSocket peer
        // the kernel could not tell) its address. A Unix socket's client
        // was told at arrival.
        let identity = peer.map { PeerIdentity.uid($0.uid) } ?? channel.remoteAddress.flatMap(PeerIdentity.init(address:))
        input { $0.clientReady(id, peer: peer, identity: identity, hello: hello, into: &$1) }
    }

    func received(_ id: ClientID, _ data: ByteBuffer) {
        guard connections[id] != nil else { return }
        input { $0.bytesReceived(id, data.readableBytesView, into: &$1) }
    }

    /// The client's connection is gone (once per admitted client).
    func clientGone(_ id: ClientID) {
        guard let connection = connections.remove(id) else { return }
        connection.closeDeadline?.cancel()
        frames.forget(id)
        input { $0.clientGone(id, into: &$1) }
        clientCountChanged?(machine.clientCount)
    }

    // MARK: Performing actions

    private func perform(_ action: ServerStateMachine.Action) {
        switch action {
        case .send(let ids, let bytes):
            for id in ids {
                guard let connection = connections[id] else { continue }
                write(bytes, to: connection, caughtUp: true)
                if latencyStart != nil { latencyMeasured() }
            }
        case .handToChannel(let id, let bytes):
            guard let connection = connections[id] else { return }
            write(bytes, to: connection, caughtUp: false)
            if latencyStart != nil { latencyMeasured() }
        case .flush(let id):
            guard let connection = connections[id], connection.needsFlush else { return }
            connection.needsFlush = false
            connection.channel?.flush()
        case .closeAfterWriting(let id, let lines):
            guard let connection = connections[id] else { return }
            closeAfterWriting(connection, lines)
        case .close(let id):
            guard let connection = connections[id] else { return }
            if let channel = connection.channel {
                channel.close(promise: nil)
            } else {
                connection.closeWhenActive = true
            }
        case .perform(let request):
            eventBuffer.removeAll(keepingCapacity: true)
            let outcome = host.perform(request.command, transition: request.transition, into: &eventBuffer)
            if case .setEnabled = request.command {
                // `hello` and `state` list what is enabled.
                encoder = EventEncoder(configuration: host.configuration, listed: host.liveTransitionCount)
            }
            let lines = eventBuffer.map(encodeLine)
            input { $0.commandCompleted(request, outcome: outcome, events: lines, into: &$1) }
        case .reload(let client, let requestID):
            reload(requestedBy: client, id: requestID)
        case .setExclusions(let rects):
            host.setExclusions(rects)
        case .setFilterRegions(let regions):
            host.setFilterRegions(regions)
        case .sendState(let id, let requestID):
            let now = MonotonicClock.nanoseconds
            let latency = LatencyStatus(touchToFrame: touchToFrame.summary(at: now), inputToWrite: inputToWrite.summary(at: now))
            writer.reset()
            writeHello(type: .state, latency: latency, id: requestID)
            let line = ReplyLines.buffer(writer)
            input { $0.answered(id, command: "state", result: nil, line, into: &$1) }
        case .sendClock(let id, let requestID):
            let line = ReplyLines.line(.clock(monotonic: Double(MonotonicClock.nanoseconds) / 1e9, id: requestID))
            input { $0.reply(id, line, into: &$1) }
        case .joinFrames(let id, let transport, let reports):
            guard let metrics else { return }
            let now = MonotonicClock.nanoseconds
            for sample in frames.join(reports, from: id, now: now) {
                metrics.observeTouchToFrame(transport, Int64(sample * 1e9))
                touchToFrame.add(sample, at: now)
            }
        case .sendDump(let id, let requestID):
            guard let recordings = host.flightRecordings() else {
                let line = ReplyLines.error(.unavailable, "no flight recorder here: it records a live panel ([input] flight_recorder, on by default in run)", cmd: "dump", id: requestID)
                input { $0.answered(id, command: "dump", result: .unavailable, line, into: &$1) }
                return
            }
            let line = ReplyLines.line(.dump(recordings.map {
                DumpRecording(source: $0.source, path: $0.path, events: $0.events, evemu: $0.evemu)
            }, id: requestID))
            input { $0.answered(id, command: "dump", result: nil, line, into: &$1) }
        case .startInput:
            host.start(emit: { [self] events in engineEmitted(events) },
                       finished: { [self] in input { $0.inputFinished(into: &$1) } })
        case .stopInput:
            eventBuffer.removeAll(keepingCapacity: true)
            host.shutdown(into: &eventBuffer)
            let lines = eventBuffer.map(encodeLine)
            input { $0.inputStopped(lines, into: &$1) }
        case .stopAccepting:
            let stopped = stopAcceptingUnix().and(stopAcceptingWebSockets()).and(stopAcceptingMetrics())
            stopped.whenComplete { [self] _ in input { $0.acceptorStopped(into: &$1) } }
        case .removeSocketFile:
            SocketFile.remove(options.socketPath)
            logger.info("stopped; removed \(options.socketPath)")
        case .closed:
            if options.inheritedListener != nil {
                logger.info("stopped; \(options.socketPath) stays with the service manager")
            }
            closed.succeed(())
        case .log(let level, let message):
            logger.log(level: level, "\(message)")
        case .logRefusal(let level, let peer, let message):
            switch refusals.note(peer, at: MonotonicClock.nanoseconds) {
            case .suppress:
                break
            case .log(let suppressed):
                if suppressed > 0 { logger.notice("\(refusals.summary(suppressed))") }
                logger.log(level: level, "\(message)")
            }
        }
    }

    /// Events the host made on its own (input, animation frames), to every
    /// client that wants them.
    private func engineEmitted(_ events: [TransitionEvent]) {
        // With no client the lines would be dropped unread: not made at all
        // (a kiosk's daemon runs without one while its UI starts or restarts).
        guard !events.isEmpty, machine.hasClients else { return }
        let lines = events.map(encodeLine)
        if metrics != nil, !performing { latencyStart = host.emittingInputTime }
        if metrics != nil, let input = host.emittingInputTime {
            // Only what input made: an animation frame in the same batch is time's.
            for event in events {
                switch event.kind {
                case .began, .changed, .ended: frames.note(seq: event.seq, inputTime: input)
                case .animating, .finished, .cancelled: continue
                }
            }
        }
        input { $0.engineEvents(lines, into: &$1) }
        latencyStart = nil
    }

    /// The first client write of input's events is done: the latency from
    /// the input event to it goes to the metrics.
    private func latencyMeasured() {
        guard let start = latencyStart, let metrics else { return }
        latencyStart = nil
        let now = MonotonicClock.nanoseconds
        metrics.observeLatency(max(0, now - start))
        inputToWrite.add(Double(max(0, now - start)) / 1e9, at: now)
    }

    /// The server listens: what the host makes before its input starts (a
    /// command's animation while a replay waits for clients) has somewhere
    /// to go.
    func hostMayEmit() {
        host.prepare(emit: { [self] events in engineEmitted(events) })
    }

    /// Re-reads the config, off the loop; see `reloadRead`.
    private func reload(requestedBy client: ClientID?, id requestID: RequestID?) {
        guard let configReader else {
            input { $0.reloadFailed("there is no config file to re-read", by: client, id: requestID, into: &$1) }
            return
        }
        configReader { [self] result in
            loop.execute { [self] in reloadRead(result, by: client, id: requestID) }
        }
    }

    /// The config as read: a usable one goes to the engine for new gestures
    /// and to the machine (names, limits, access, a new `hello`) — unless
    /// the daemon began to stop while it was read.
    private func reloadRead(_ result: Result<ReloadedConfiguration, ConfigReadFailure>, by client: ClientID?,
                            id requestID: RequestID?) {
        loop.assertInEventLoop()
        switch machine.phase {
        case .shuttingDown, .closed:
            logger.notice("reload: the config was read after the shutdown began; not used")
            return
        case .starting, .waitingForClients, .serving:
            break
        }
        switch result {
        case .failure(let failure):
            input { $0.reloadFailed(failure.message, by: client, id: requestID, into: &$1) }
        case .success(let config):
            let moved = host.reload(config.engine)
            host.identity = config.identity
            encoder = EventEncoder(configuration: host.configuration, listed: host.liveTransitionCount)
            if config.options.socketPath != options.socketPath || config.options.socketMode != options.socketMode {
                logger.notice("reload: the socket's path and mode take effect at the next start")
            }
            writer.reset()
            writeHello()
            // In flight, and no transition of the new config has its name
            // (its events go by its own index): the machine ends them.
            let orphans = (host.liveTransitionCount..<host.configuration.transitions.count).filter { host.streamIndex(of: $0) == $0 }
            let change = ServerStateMachine.Reloaded(
                transitions: host.configuration.transitions.prefix(host.liveTransitionCount).map(\.name), moved: moved,
                orphans: orphans, maxClients: config.options.maxClients,
                maxWebSocketClients: config.options.maxWebSocketClients,
                maxClientsPerPeer: config.options.maxClientsPerPeer, backlogLimit: config.options.backlogLimit,
                policy: AccessPolicy(uids: config.options.allowUIDs, gids: config.options.allowGIDs),
                hello: ReplyLines.buffer(writer),
                exclusionCap: EdgeExclusionCap(fraction: config.options.maxEdgeExclusion, configuration: host.configuration))
            input { $0.reloaded(change, by: client, id: requestID, into: &$1) }
        }
    }

    /// The one write path, for both transports: `bytes` go to the client's
    /// channel, after whatever it holds, so no bookkeeping keeps their
    /// order.
    ///
    /// A caught-up client's batch (`send`) is one `writeAndFlush` with no
    /// promise (a promise and its callback for every batch to every client
    /// were most of the write's cost), and the machine hears of it only if
    /// the channel could not write it at once: then the bytes the channel
    /// holds (`bufferedWritableBytes`) are reported with `sendFellShort`,
    /// and an empty write after them, whose promise completes once they are
    /// written (or failed), reports them with `channelWrote`. A write that
    /// fails at once closes the channel, and `clientGone` follows. Any other
    /// write (`handToChannel`) the machine counted already: it is flushed by
    /// a later `flush`, and reported with `channelWrote`.
    private func write(_ bytes: ByteBuffer, to connection: ClientConnection, caughtUp: Bool) {
        guard let channel = connection.channel else { return }
        let id = connection.id
        guard caughtUp else {
            connection.needsFlush = true
            channel.write(bytes, promise: reportWhenWritten(id, bytes: bytes.readableBytes))
            return
        }
        channel.writeAndFlush(bytes, promise: nil)
        connection.needsFlush = false
        // Written at once, or failed at once and closed (the option throws),
        // unless the channel holds bytes now.
        guard let held = try? channel.syncOptions?.getOption(.bufferedWritableBytes), held > 0 else { return }
        // Held by the channel: from now on the client's lines go after it.
        input { $0.sendFellShort(id, bytes: held, into: &$1) }
        channel.writeAndFlush(ByteBuffer(), promise: reportWhenWritten(id, bytes: held))
    }

    /// A promise that reports `bytes` bytes of the client's as written (or
    /// failed) with `channelWrote` when it completes.
    private func reportWhenWritten(_ id: ClientID, bytes count: Int) -> EventLoopPromise<Void> {
        let written = loop.makePromise(of: Void.self)
        written.futureResult.assumeIsolatedUnsafeUnchecked().whenComplete { [self] result in
            let ok: Bool
            switch result {
            case .success: ok = true
            case .failure: ok = false
            }
            input { $0.channelWrote(id, bytes: count, ok: ok, into: &$1) }
        }
        return written
    }

    /// Writes the last lines after whatever the channel holds, then closes
    /// the connection once they are written, or after 1 s.
    private func closeAfterWriting(_ connection: ClientConnection, _ lines: [ByteBuffer]) {
        guard let channel = connection.channel else {
            connection.closeWhenActive = true
            return
        }
        var rest = ByteBuffer()
        for line in lines { rest.writeImmutableBuffer(line) }
        let written = channel.writeAndFlush(rest)
        connection.needsFlush = false
        connection.closeDeadline = loop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        written.assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            connection.closeDeadline?.cancel()
            channel.close(promise: nil)
        }
    }

    // MARK: Lines

    /// One event's line (with the `sent` stamp when measuring).
    private func encodeLine(_ event: TransitionEvent) -> EventLine {
        writer.reset()
        encoder.encode(event, into: writer)
        var line = ByteBuffer()
        line.reserveCapacity(writer.count + 32)
        writer.withBytes { bytes in
            if options.stampSent {
                line.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 2)]))
                line.writeStaticString(",\"sent\":")
                line.writeDecimal(UInt64(max(0, MonotonicClock.nanoseconds)))
                line.writeStaticString("}\n")
            } else {
                line.writeBytes(bytes)
            }
        }
        let essential: Bool
        switch event.kind {
        case .changed, .animating: essential = false
        case .began, .ended, .finished, .cancelled: essential = true
        }
        return EventLine(bytes: line, transition: host.streamIndex(of: event.transition), essential: essential)
    }
}

/// The executor's connections by client, in an array indexed by the
/// client's slot (a slot's entry is checked to be that client's).
struct ConnectionTable {
    private var slots: [ClientConnection?] = []

    subscript(id: ClientID) -> ClientConnection? {
        get {
            guard id.slot >= 0, id.slot < slots.count, let connection = slots[id.slot], connection.id == id else { return nil }
            return connection
        }
        set {
            guard id.slot >= 0 else { return }
            if id.slot >= slots.count { slots.append(contentsOf: repeatElement(nil, count: id.slot - slots.count + 1)) }
            slots[id.slot] = newValue
        }
    }

    /// Removes and returns the client's connection.
    mutating func remove(_ id: ClientID) -> ClientConnection? {
        guard let connection = self[id] else { return nil }
        slots[id.slot] = nil
        return connection
    }
}

/// The I/O handle of one client, as the executor holds it: its NIO
/// channel, which reads its commands and writes everything it gets.
/// Confined to the server's event loop.
final class ClientConnection {
    let id: ClientID
    var channel: Channel?
    var needsFlush = false
    /// Closed before its channel was active (shutdown during set-up).
    var closeWhenActive = false
    var closeDeadline: Scheduled<Void>?

    init(id: ClientID) {
        self.id = id
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

extension TransitionServer {
    /// `hello` (or `state`) as the host and the machine picture it now, into `writer`.
    func writeHello(type: EventEncoder.HelloType = .hello, latency: LatencyStatus? = nil, id: RequestID? = nil) {
        encoder.hello(type: type, active: host.snapshot(), seq: host.lastSeq, input: host.inputStatus, geometry: host.geometry,
                      devices: host.inputDevices, exclusions: machine.exclusionsInForce, filter: host.filterStatus,
                      rests: host.rests, latency: latency, identity: host.identity, id: id, into: writer)
    }
}
