#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import TestSupport
import Testing
import ServerPorts
import WireProtocol
import Engine
@testable import Server
@testable import ServerCore

// MARK: A socket that can fill up (the fake engine host is `ScriptedHost`)

/// The socket's side of the pipeline, in front of the `EmbeddedChannel`'s
/// core: passes writes through, or — while `full` — leaves them unflushed
/// in the core, the way a full socket holds them (so the channel's
/// `bufferedWritableBytes` counts them), until `drain()`; `fail()` fails
/// what it holds, as a peer that went away does.
private final class FillableSocket: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    var full = false
    /// Writes fail at once and the channel closes (a reset peer: EPIPE).
    var broken = false
    /// The promises of the writes held, by number, until written.
    private var held: [Int: EventLoopPromise<Void>?] = [:]
    private var number = 0
    private var context: ChannelHandlerContext?
    private(set) var heldBytes = 0

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if broken {
            promise?.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
        } else if full {
            number += 1
            let key = number
            held[key] = promise
            heldBytes += unwrapOutboundIn(data).readableBytes
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolatedUnsafeUnchecked().whenSuccess { [self] in
                if let promise = held.removeValue(forKey: key) { promise?.succeed(()) }
            }
            context.write(data, promise: written)
        } else {
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if !full { context.flush() }
    }

    /// The peer reads: everything held is written, in order.
    func drain() {
        full = false
        heldBytes = 0
        context?.flush()
    }

    /// The peer is gone: what is held fails.
    func fail() {
        let pending = held.sorted { $0.key < $1.key }
        held = [:]
        heldBytes = 0
        for (_, promise) in pending { promise?.fail(ChannelError.ioOnClosedChannel) }
    }
}

/// The server on an `EmbeddedEventLoop`, listening without a socket, and
/// its Unix-socket clients as `EmbeddedChannel`s.
private struct Rig {
    let loop = EmbeddedEventLoop()
    let host: ScriptedHost
    let server: TransitionServer

    init(maxClients: Int = 16, backlogLimit: Int = 1 << 20, host: ScriptedHost = ScriptedHost(),
         metrics: MetricsService? = nil) {
        self.host = host
        let options = ServerOptions(socketPath: "/nonexistent/transitiond-test.sock", maxClients: maxClients,
                                    backlogLimit: backlogLimit)
        server = TransitionServer(loop: loop, options: options, host: host, logger: Logger(label: "test"), metrics: metrics)
        server.listenWithoutSocket()
    }

    /// A client connects: its channel, with a socket that can fill up.
    func connect() throws -> (EmbeddedChannel, FillableSocket) {
        let socket = FillableSocket()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(socket)
        try channel.pipeline.syncOperations.addHandler(UnixClientHandler(server: server))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/peer")).wait()
        return (channel, socket)
    }
}

/// Everything the client has been written, as buffers (one per write).
private func writes(_ channel: EmbeddedChannel) throws -> [ByteBuffer] {
    var out: [ByteBuffer] = []
    while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out.append(buffer) }
    return out
}

/// Everything the client has been written, as lines.
private func lines(_ channel: EmbeddedChannel) throws -> [String] {
    try writes(channel).flatMap { String(buffer: $0).split(separator: "\n").map(String.init) }
}

private func seq(_ line: String) -> UInt64? {
    guard let range = line.range(of: "\"seq\":") else { return nil }
    return UInt64(line[range.upperBound...].prefix { $0.isNumber })
}

// MARK: Tests

@Suite("Write path (in-process, EmbeddedChannel)")
struct WritePathTests {
    @Test func aClientGetsHelloThenOneWritePerBatchAndCommandsAreFramedByLine() throws {
        let rig = Rig()
        let (channel, _) = try rig.connect()
        let hello = try lines(channel)
        #expect(hello.count == 1 && hello[0].contains("\"type\":\"hello\""), "\(hello)")
        // A command split across reads, and two in one read.
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"pi"))
        #expect(try writes(channel).isEmpty, "no line yet")
        try channel.writeInbound(ByteBuffer(string: "ng\",\"id\":1}\n{\"cmd\":\"ping\",\"id\":2}\r\n"))
        let pongs = try lines(channel)
        #expect(pongs.count == 2 && pongs.allSatisfy { $0.contains("\"type\":\"pong\"") }, "\(pongs)")
        #expect(pongs.first?.contains("\"id\":1") == true && pongs.last?.contains("\"id\":2") == true)
        // A batch of three events: one write of three lines.
        rig.host.emit(.began)
        _ = try writes(channel)
        let sent = rig.host.emit(.changed, 3)
        let batch = try writes(channel)
        #expect(batch.count == 1, "one writeAndFlush per batch")
        let batchLines = batch.flatMap { String(buffer: $0).split(separator: "\n").map(String.init) }
        #expect(batchLines.map(seq) == sent.map(Optional.some))
        #expect(batch.first.map { String(buffer: $0).hasSuffix("\n") } == true)
        #expect(rig.server.machine.writeMode(of: ClientID(1, slot: 0)) == .direct, "written at once: still caught up")
    }

    /// Filter mode: `hello` and `state` carry what the host says of its
    /// filter, read when each is written; without one, no `filter`.
    @Test func helloAndStateCarryTheFiltersStatus() throws {
        let rig = Rig()
        let (plain, _) = try rig.connect()
        let plainHello = try #require(try lines(plain).first)
        #expect(plainHello.contains("\"type\":\"hello\"") && !plainHello.contains("\"filter\""), "\(plainHello)")
        var status = FilterStatus(hold: 0.08, maxContacts: 1,
                                  regions: [FilterStatus.Region(x0: 0, x1: 0.5, y0: 0.5, y1: 1, maxContacts: 2)],
                                  ghostTouches: "quarantine", stuckAfter: 600, palmMillimetres: 30, transform: true)
        rig.host.filterStatus = status
        let (channel, _) = try rig.connect()
        let hello = try #require(try lines(channel).first)
        #expect(hello.contains(#","filter":{"hold":0.08,"max_contacts":1,"regions":[{"x":[0,0.5],"y":[0.5,1],"max_contacts":2}],"ghost_touches":"quarantine","stuck_after":600,"palm_mm":30,"transform":true}"#), "\(hello)")
        guard case .hello(let snapshot) = try StreamMessage.decode(line: hello) else {
            Issue.record("not a hello: \(hello)")
            return
        }
        #expect(snapshot.filter == status)
        // A pattern confirmed since: `state` says it (no new hello is sent).
        status.ghostPatterns = [FilterStatus.GhostPattern(period: 12.9, xMillimetres: 128, yMillimetres: 72, taps: 3)]
        rig.host.filterStatus = status
        #expect(try lines(channel).isEmpty)
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"state\",\"id\":4}\n"))
        let state = try #require(try lines(channel).first)
        guard case .state(let current, let id) = try StreamMessage.decode(line: state) else {
            Issue.record("not a state: \(state)")
            return
        }
        #expect(id == 4 && current.filter == status)
        #expect(state.contains(#""ghost_patterns":[{"period":12.9,"x_mm":128,"y_mm":72,"taps":3}]"#))
    }

    /// Snap points: `hello` and `state` say each transition's points and
    /// where it rests, read when each is written.
    @Test func helloAndStateSayWhereATransitionRests() throws {
        let host = ScriptedHost()
        host.configuration = EngineConfiguration(frameRate: 60, transitions: [
            TransitionSpec(name: "carousel", gesture: .swipe(direction: .left, fingers: 1),
                           snap: SnapSettings(points: SnapPoints(pages: 3)!, bidirectional: true)),
            TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05)),
        ])
        host.rests = [0.5, nil]
        let rig = Rig(host: host)
        let (channel, _) = try rig.connect()
        let hello = try #require(try lines(channel).first)
        #expect(hello.contains(#"{"name":"carousel","gesture":"swipe","fingers":1,"direction":"left","snap_points":[0,0.5,1],"rest":0.5}"#), "\(hello)")
        #expect(hello.contains(#"{"name":"back","gesture":"edge-pan","fingers":1,"edge":"left"}"#), "\(hello)")
        rig.host.rests = [1, nil]
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"state\",\"id\":1}\n"))
        let state = try #require(try lines(channel).first)
        guard case .state(let snapshot, _) = try StreamMessage.decode(line: state) else {
            Issue.record("not a state: \(state)")
            return
        }
        #expect(snapshot.transitions.map(\.rest) == [1, nil] && snapshot.transitions[0].snapPoints == [0, 0.5, 1])
    }

    /// Touch to frame: `clock` answers with the daemon's monotonic time; a
    /// frame report of a line that input made becomes a sample of the
    /// client's transport, from that input's time to the frame.
    @Test func clockAndFrameReportsMakeTouchToFrameSamples() throws {
        final class Samples: @unchecked Sendable {
            var taken: [(ClientTransport, Int64)] = []
        }
        let samples = Samples()
        let metrics = MetricsService(render: { _ in ("text/plain", []) }, observeLatency: { _ in },
                                     observeTouchToFrame: { samples.taken.append(($0, $1)) })
        let rig = Rig(metrics: metrics)
        let (channel, _) = try rig.connect()
        _ = try lines(channel)
        let before = monotonicSeconds()
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"clock\",\"id\":1}\n"))
        let reply = try #require(try lines(channel).first)
        guard case .clock(let daemonTime, let id) = try StreamMessage.decode(line: reply) else {
            Issue.record("not a clock reply: \(reply)")
            return
        }
        #expect(id == 1 && daemonTime >= before - 1e-6 && daemonTime <= monotonicSeconds() + 1e-6, "\(reply)")
        // A line input made 30 ms ago, and one an animation frame made (no input).
        rig.host.emittingInputTime = Int64((monotonicSeconds() - 0.030) * 1e9)
        let touched = rig.host.emit(.changed)
        rig.host.emittingInputTime = nil
        let animated = rig.host.emit(.animating)
        _ = try lines(channel)
        let presented = monotonicSeconds()
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"frames\",\"frames\":[[\(touched[0]),\(presented)],[\(animated[0]),\(presented)]]}\n"))
        #expect(try lines(channel).isEmpty, "no reply without an id")
        #expect(samples.taken.count == 1 && samples.taken[0].0 == .unixSocket, "\(samples.taken)")
        #expect(samples.taken.first.map { abs(Double($0.1) / 1e9 - 0.030) < 0.001 } == true, "\(samples.taken)")
        // `state` says the last minute's: this one sample.
        try channel.writeInbound(ByteBuffer(string: "{\"cmd\":\"state\"}\n"))
        let state = try #require(try lines(channel).first)
        guard case .state(let snapshot, _) = try StreamMessage.decode(line: state) else {
            Issue.record("not a state: \(state)")
            return
        }
        let touch = try #require(snapshot.latency?.touchToFrame, "\(state)")
        #expect(touch.samples == 1 && abs(touch.p50 - 0.030) < 0.001 && touch.p95 == touch.p50, "\(state)")
    }

    @Test func aFullSocketHoldsTheBatchThenLaterLinesFollowItInOrder() throws {
        let rig = Rig()
        let (channel, socket) = try rig.connect()
        _ = try writes(channel)
        socket.full = true
        let first = rig.host.emit(.began)
        let id = ClientID(1, slot: 0)
        guard case .channel(let held, _)? = rig.server.machine.writeMode(of: id) else {
            Issue.record("the machine did not hear the batch is held: \(String(describing: rig.server.machine.writeMode(of: id)))")
            return
        }
        #expect(held == 1)
        #expect(rig.server.machine.writeMode(of: id) == .channel(writes: 1, bytes: socket.heldBytes),
                "the bytes the channel holds, as the machine counts them")
        let rest = rig.host.emit(.changed, 3) + rig.host.emit(.ended)
        #expect(try writes(channel).isEmpty, "nothing overtakes the held batch")
        socket.drain()
        let got = try lines(channel)
        #expect(got.map(seq) == (first + rest).map(Optional.some), "\(got)")
        #expect(rig.server.machine.writeMode(of: id) == .direct, "caught up again")
        let next = rig.host.emit(.finished)
        #expect(try lines(channel).map(seq) == next.map(Optional.some))
    }

    @Test func aSlowClientsChangedLinesCoalesceToTheNewestAndEssentialOnesStay() throws {
        let rig = Rig()
        let (channel, socket) = try rig.connect()
        _ = try writes(channel)
        socket.full = true
        var essential = rig.host.emit(.began)
        essential += rig.host.emit(.began, transition: 1)
        // Past the machine's high water mark (64 KiB in the channel), the
        // rest waits in the outbox, where `changed` lines coalesce.
        var changed: [UInt64] = []
        func channelBytes() -> Int {
            if case .channel(_, let bytes)? = rig.server.machine.writeMode(of: ClientID(1, slot: 0)) { return bytes }
            return 0
        }
        while channelBytes() < 64 * 1024 { changed += rig.host.emit(.changed, 10) }
        #expect(socket.heldBytes == channelBytes(), "the machine counts what the channel holds")
        let queuedFrom = changed.count - 10
        for _ in 0..<50 { changed += rig.host.emit(.changed, 5) }
        let newestHome = rig.host.emit(.changed, transition: 1)
        essential += rig.host.emit(.ended)
        let newestBack = rig.host.emit(.animating)
        #expect(rig.server.machine.statistics.coalescedLines > 0)
        socket.drain()
        let seqs = try lines(channel).compactMap(seq)
        #expect(seqs == seqs.sorted(), "seq order is kept")
        #expect(Set(essential).isSubset(of: Set(seqs)), "began and ended are never dropped")
        #expect(Set(changed[..<queuedFrom]).isSubset(of: Set(seqs)), "what the channel held is written")
        #expect(seqs.count < changed.count + essential.count + 2, "the waiting ones coalesced")
        #expect(seqs.contains(newestHome[0]) && seqs.last == newestBack[0], "the newest of each transition arrives")
    }

    @Test func pastTheBacklogTheClientGetsAFinalErrorLineThenIsClosed() throws {
        let rig = Rig(backlogLimit: 16 * 1024)
        let (channel, socket) = try rig.connect()
        _ = try writes(channel)
        socket.full = true
        // Essential lines (nothing to coalesce) until the backlog is over.
        for _ in 0..<2000 where channel.isActive && rig.server.machine.phase(of: ClientID(1, slot: 0)) == .open {
            rig.host.emit(.began, 4)
        }
        #expect(rig.server.machine.phase(of: ClientID(1, slot: 0)) == .closing)
        #expect(rig.server.machine.statistics.backlogDisconnects == 1)
        #expect(channel.isActive, "its last lines are on their way")
        socket.drain()
        let got = try lines(channel)
        #expect(got.last?.contains("\"code\":\"backlog\"") == true, "\(got.suffix(2))")
        #expect(!channel.isActive, "closed once written")
        #expect(rig.server.clientCount == 0)
        rig.host.emit(.changed)   // nobody to write to
    }

    @Test func aClientThatNeverReadsIsClosedOneSecondAfterItsFinalLine() throws {
        let rig = Rig(backlogLimit: 16 * 1024)
        let (channel, socket) = try rig.connect()
        _ = try writes(channel)
        socket.full = true
        while rig.server.machine.phase(of: ClientID(1, slot: 0)) == .open { rig.host.emit(.began, 4) }
        rig.loop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        rig.loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(rig.server.clientCount == 0)
    }

    @Test func aClientThatGoesAwayMidWriteIsGoneAndTheOthersGoOn() throws {
        let rig = Rig()
        let (leaving, leavingSocket) = try rig.connect()
        let (staying, _) = try rig.connect()
        _ = try writes(leaving)
        _ = try writes(staying)
        leavingSocket.full = true
        rig.host.emit(.began)
        rig.host.emit(.changed, 3)
        #expect(rig.server.clientCount == 2)
        // The peer goes: its held writes fail, and the channel closes.
        leavingSocket.fail()
        _ = try? leaving.close().wait()
        #expect(rig.server.clientCount == 1)
        let next = rig.host.emit(.ended)
        #expect(try lines(staying).compactMap(seq).suffix(1) == next[...])
        // A write that fails at once (a reset peer) closes the channel: the
        // client is gone, and the batch goes on to the others.
        let (abrupt, abruptSocket) = try rig.connect()
        _ = try writes(abrupt)
        #expect(rig.server.clientCount == 2)
        abruptSocket.broken = true
        let last = rig.host.emit(.finished)
        #expect(!abrupt.isActive)
        #expect(rig.server.clientCount == 1)
        #expect(try lines(staying).compactMap(seq) == last)
    }

    /// Connect and close at once: the `hello` fails as it is written, and
    /// the channel closes inside its own activation. The slot comes back.
    @Test func aClientGoneBeforeItsHelloIsWrittenFreesItsSlot() throws {
        let rig = Rig(maxClients: 1)
        for _ in 0..<3 {
            let socket = FillableSocket()
            socket.broken = true
            let channel = EmbeddedChannel(loop: rig.loop)
            try channel.pipeline.syncOperations.addHandler(socket)
            try channel.pipeline.syncOperations.addHandler(UnixClientHandler(server: rig.server))
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/peer")).wait()
            #expect(!channel.isActive)
            #expect(rig.server.clientCount == 0)
        }
        let (late, _) = try rig.connect()
        #expect(try lines(late).first?.contains("\"type\":\"hello\"") == true)
    }

    @Test func aConnectionOverTheLimitGetsItsErrorLineAndIsClosed() throws {
        let rig = Rig(maxClients: 1)
        let (first, _) = try rig.connect()
        #expect(try lines(first).first?.contains("\"type\":\"hello\"") == true)
        let (second, _) = try rig.connect()
        let got = try lines(second)
        #expect(got.count == 1 && got[0].contains("\"code\":\"too-many-clients\""), "\(got)")
        #expect(!second.isActive)
        #expect(rig.server.clientCount == 1)
    }
}

// MARK: The Unix socket, accepted by NIO

@Suite("Unix socket transport (real socket)")
struct UnixSocketTransportTests {
    private func connect(_ path: String) throws -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let rc = SocketFile.withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard rc == 0 else {
            close(fd)
            throw SocketPathError(kind: .system, path: path, message: "connect: \(errno)")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Reads until a line break; the line.
    private func readLine(_ fd: CInt) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func run(inherited: Bool) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let path = temporarySocketPath()
        defer { unlink(path) }
        var options = ServerOptions(socketPath: path, socketMode: 0o600, maxClients: 300)
        if inherited { options.inheritedListener = try ListeningSocket.open(path: path, mode: 0o600, backlog: 16) }
        let host = ScriptedHost()
        let server = TransitionServer(loop: group.next(), options: options, host: host, logger: Logger(label: "test"))
        try server.start()
        // More connections at once than one turn of the loop accepts.
        var clients: [CInt] = []
        defer { clients.forEach { close($0) } }
        for _ in 0..<40 { clients.append(try connect(path)) }
        for fd in clients { #expect(readLine(fd).contains("\"type\":\"hello\"")) }
        // Who the peer is: the kernel's uid (root may command).
        let fd = clients[0]
        _ = "{\"cmd\":\"ping\",\"id\":7}\n".withCString { write(fd, $0, strlen($0)) }
        #expect(readLine(fd).contains("\"id\":7"))
        let peer = try group.next().submit { server.machine.clientCount(on: .unixSocket) }.wait()
        #expect(peer == 40)
        _ = try group.next().submit { host.emit(.began) }.wait()
        for fd in clients { #expect(readLine(fd).contains("\"type\":\"began\"")) }
        try server.shutdown().wait()
        #expect(inherited == (access(path, F_OK) == 0), "the socket file is removed only when the server made it")
        #expect((try? connect(path)) == nil, "nobody listens after shutdown")
    }

    @Test func acceptsOnItsOwnSocketAndRemovesItsFile() throws { try run(inherited: false) }

    @Test func acceptsOnAPassedListeningSocketAndLeavesItsFile() throws { try run(inherited: true) }
}

/// `CLOCK_MONOTONIC` now, in seconds (the daemon's clock for `clock` and frames).
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
