import Logging
import EventStream
import NIOCore
import Engine
import WireProtocol
import ServerPorts

/// A client of the server, as the state machine and its executor name it.
/// Numbers rise from 1 in the order connections arrive and are never
/// reused; `slot` is a small index, reused once its client is gone, where
/// the executor keeps the client's connection (no hashing per write).
public struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let number: Int
    public let slot: Int
    public init(_ number: Int, slot: Int = 0) {
        self.number = number
        self.slot = slot
    }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.number < b.number }
    public var description: String { "client \(number)" }
}

/// One engine event's line, encoded once for every client.
public struct EventLine: Sendable, Equatable {
    public var bytes: ByteBuffer
    public var transition: Int
    /// `began`, `ended`, `finished`, `cancelled`: never coalesced away.
    public var essential: Bool

    public init(bytes: ByteBuffer, transition: Int, essential: Bool) {
        self.bytes = bytes
        self.transition = transition
        self.essential = essential
    }
}

/// A command for the engine that a client line (or a client going away)
/// turned into; the executor carries it out and reports the outcome with
/// `commandCompleted(_:outcome:events:)`.
public struct EngineRequest: Sendable, Equatable {
    /// Who asked: nil when the server itself asks (a driving client left).
    public var client: ClientID?
    public var command: TransitionEngine.Command
    public var transition: Int
    /// The command's name on the wire (for the `ok` reply).
    public var name: String
    public var id: RequestID?
}

/// The socket server's rules as a value: which clients there are and what
/// each wants, what every input means for each of them, and when the server
/// starts, shuts down and is closed. No I/O and no clock: each input is a
/// `mutating func` that appends `Action`s for the executor
/// (`TransitionServer`) to perform, in order; the executor reports what
/// happened (a short write, a completed channel write, a client gone) as
/// further inputs. An input that makes no sense in the current state is
/// logged at error level with the state and otherwise ignored.
///
/// Every write to a client goes through its channel, on either transport.
/// While it is caught up (nothing handed to its channel unwritten, nothing
/// queued), a batch of lines is one `send` action: the executor writes and
/// flushes it at once and reports it only if the channel could not write
/// it all (`sendFellShort`: the channel holds it). Every later line is
/// handed to the channel (`handToChannel`), which waits for the socket to
/// drain; each of those writes is reported when done (`channelWrote`). While the channel holds `highWater` bytes or more,
/// lines wait in the client's outbox, where `changed`/`animating` lines of
/// a transition coalesce to the newest; past `backlogLimit` bytes the
/// client gets a final `backlog` error and is closed.
public struct ServerStateMachine: Sendable {
    // MARK: Settings

    /// What the rules depend on (the config's `[server]`, the transitions).
    public struct Settings: Sendable {
        /// Clients on the Unix socket at once (`max_clients`).
        public var maxClients: Int
        /// Clients on the WebSocket at once (`max_websocket_clients`): a
        /// limit of its own, so that WebSocket clients (any local user may
        /// connect to loopback) never take the Unix socket's slots.
        public var maxWebSocketClients: Int
        /// Clients of one peer (uid, or address when the uid is not known)
        /// on one transport at once (`max_clients_per_peer`); nil: all but
        /// a quarter of the transport's limit (`perPeerLimit(on:)`).
        public var maxClientsPerPeer: Int?
        public var backlogLimit: Int
        public var lineLimit: Int
        /// Bytes a client's channel may hold before lines wait in its outbox.
        public var highWater: Int
        /// Start the input once this many clients are connected.
        public var startAfterClients: Int
        /// Shut down when the input has no more (a replay that is not held).
        public var closeWhenInputEnds: Bool
        public var policy: AccessPolicy
        /// Transition names, by index.
        public var transitions: [String]
        /// Log (at debug level) each client that connects and leaves; off,
        /// a connect flood costs no log text.
        public var logClients: Bool
        /// The server made its socket file (and removes it when closed);
        /// false for a socket passed by the service manager, which keeps it.
        public var ownsSocketFile: Bool
        /// How much of each edge the exclusion regions in force may cover
        /// (`[input] max_edge_exclusion`, with the edge-pans' margins).
        public var exclusionCap: EdgeExclusionCap

        public init(maxClients: Int = 256, maxWebSocketClients: Int = 64, maxClientsPerPeer: Int? = nil,
                    backlogLimit: Int = 1 << 20, lineLimit: Int = 64 * 1024,
                    highWater: Int = 64 * 1024, startAfterClients: Int = 0, closeWhenInputEnds: Bool = false,
                    policy: AccessPolicy = AccessPolicy(uids: [], gids: []), transitions: [String],
                    logClients: Bool = false, ownsSocketFile: Bool = true,
                    exclusionCap: EdgeExclusionCap = EdgeExclusionCap(fraction: 0.5)) {
            self.exclusionCap = exclusionCap
            self.logClients = logClients
            self.ownsSocketFile = ownsSocketFile
            self.maxClients = maxClients
            self.maxWebSocketClients = maxWebSocketClients
            self.maxClientsPerPeer = maxClientsPerPeer
            self.backlogLimit = backlogLimit
            self.lineLimit = lineLimit
            self.highWater = highWater
            self.startAfterClients = startAfterClients
            self.closeWhenInputEnds = closeWhenInputEnds
            self.policy = policy
            self.transitions = transitions
        }

        /// The transport's own limit.
        public func limit(on transport: ClientTransport) -> Int {
            switch transport {
            case .unixSocket: return maxClients
            case .webSocket: return maxWebSocketClients
            }
        }

        /// The most clients one peer may have on the transport: the
        /// configured number, else all but a quarter (rounded down) of the
        /// transport's limit — 192 of 256, 48 of 64 — so that one peer
        /// never holds every slot. A limit under 4 has no quarter to keep:
        /// one peer may have it all (a test's `max_clients = 2`).
        public func perPeerLimit(on transport: ClientTransport) -> Int {
            let limit = limit(on: transport)
            return maxClientsPerPeer ?? limit - limit / 4
        }

        /// The transport as the log names it.
        static func transportName(_ transport: ClientTransport) -> String {
            switch transport {
            case .unixSocket: return "Unix socket"
            case .webSocket: return "WebSocket"
            }
        }

        /// The limit's key in the config, for messages.
        static func limitKey(_ transport: ClientTransport) -> String {
            switch transport {
            case .unixSocket: return "max_clients"
            case .webSocket: return "max_websocket_clients"
            }
        }
    }

    // MARK: State

    /// The server's phase.
    public enum Phase: String, Sendable, Equatable {
        /// Binding; not accepting yet.
        case starting
        /// Accepting, the input not started until enough clients are here.
        case waitingForClients = "waiting-for-clients"
        /// Accepting, the input running.
        case serving
        /// Stopping the input, then saying goodbye to every client.
        case shuttingDown = "shutting-down"
        case closed
    }

    /// A client's phase.
    public enum ClientPhase: String, Sendable, Equatable {
        /// Admitted (it holds a slot); its connection is being set up.
        case settingUp = "setting-up"
        /// Has its `hello`; gets the stream and may send commands.
        case open
        /// Its last lines are on their way; it gets nothing more.
        case closing
    }

    /// How a client's lines are written now.
    public enum WriteMode: Sendable, Equatable {
        /// Its channel holds nothing: a batch may go out as one `send`.
        case direct
        /// Its channel holds `writes` buffers of `bytes` bytes not yet
        /// written: later lines go after them (through the channel, or the
        /// outbox while the channel holds `highWater` bytes or more).
        case channel(writes: Int, bytes: Int)
    }

    struct Client: Sendable {
        let id: ClientID
        let transport: ClientTransport
        var phase: ClientPhase = .settingUp
        var peer: PeerCredentials? = nil
        /// Who it is for the per-peer limit and the refusal log, once known.
        var identity: PeerIdentity? = nil
        /// Transition indices it wants; nil = all.
        var filter: Set<Int>? = nil
        var framer: LineFramer
        var outbox: ClientOutbox
        var writeMode: WriteMode = .direct
        /// Its exclusion regions (`exclude`), in force while it is open.
        var exclusions: [ScreenRect] = []

        var label: String {
            let via = transport == .unixSocket ? "" : "\(transport.rawValue), "
            return peer.map { "\(id) (\(via)\($0))" } ?? (via.isEmpty ? id.description : "\(id) (\(transport.rawValue))")
        }
        /// Its lines may go out as one `send` a batch: nothing pending.
        var isCaughtUp: Bool { writeMode == .direct && outbox.isEmpty }
        /// Bytes its channel holds, not yet written.
        var channelBytes: Int {
            switch writeMode {
            case .direct: return 0
            case .channel(_, let bytes): return bytes
            }
        }
        func wants(_ transition: Int) -> Bool { filter?.contains(transition) ?? true }
    }

    public private(set) var settings: Settings
    public private(set) var phase: Phase = .starting
    /// Counts for metrics (commands, connections, coalescing, backlog).
    public private(set) var statistics = ServerStatistics()
    /// Clients by rising id (arrival order).
    private var clients: [Client] = []
    private var nextClient = 1
    /// Slots of clients that are gone, for the next ones.
    private var freeSlots: [Int] = []
    private var slotCount = 0
    private var accepting = false
    private var inputStopped = false
    /// Per transition, the client whose `drive` commands drive it.
    private var drivers: [Int: ClientID] = [:]
    private var names: [String: Int] = [:]
    /// A config is being read (`reload`), and the reloads asked for since.
    private var reloadReading = false
    private var reloadsWaiting: [(requester: ClientID?, requestID: RequestID?)] = []

    public init(settings: Settings) {
        self.settings = settings
        for (i, name) in settings.transitions.enumerated() { names[name] = i }
    }

    // MARK: What it holds

    /// Clients that hold a slot (setting up or open).
    /// Whether anyone may be sent the engine's events: without a client the
    /// server does not encode them (`engineEvents` would drop them unread).
    public var hasClients: Bool { !clients.isEmpty }
    public var clientCount: Int { clients.reduce(0) { $0 + ($1.phase == .closing ? 0 : 1) } }
    /// Clients known at all (closing ones included).
    public var knownClients: Int { clients.count }
    /// Clients that hold a slot, by transport (for metrics).
    public func clientCount(on transport: ClientTransport) -> Int {
        clients.reduce(0) { $0 + ($1.phase != .closing && $1.transport == transport ? 1 : 0) }
    }

    public func phase(of client: ClientID) -> ClientPhase? { index(of: client).map { clients[$0].phase } }

    /// How a client's lines are written now.
    public func writeMode(of client: ClientID) -> WriteMode? { index(of: client).map { clients[$0].writeMode } }

    /// The client whose commands drive `transition`, if any.
    public func driver(of transition: Int) -> ClientID? { drivers[transition] }

    /// The exclusion regions in force: every open client's, in the order
    /// the clients came (a rectangle two clients declared, once). `hello`
    /// and `state` show them; `setExclusions` gives them to the engine.
    public private(set) var exclusionsInForce: [ScreenRect] = []

    /// A client's own exclusion regions.
    public func exclusions(of client: ClientID) -> [ScreenRect]? { index(of: client).map { clients[$0].exclusions } }

    /// The client whose `filter_regions` are in force (nil: the config's
    /// are): when it goes, the config's come back.
    public private(set) var filterRegionsOwner: ClientID? = nil

    // MARK: Actions

    /// What the executor is to do.
    public enum Action: Sendable, Equatable {
        /// Write and flush these bytes to each of these clients' channels
        /// (one write each); report one the channel could not write at once
        /// with `sendFellShort`.
        case send([ClientID], ByteBuffer)
        /// Queue these bytes on the client's channel; report with `channelWrote`.
        case handToChannel(ClientID, ByteBuffer)
        /// Flush what was handed to the client's channel.
        case flush(ClientID)
        /// Write these last lines after whatever the channel holds, then close the
        /// connection once written or after a bound. The client gets nothing more.
        case closeAfterWriting(ClientID, [ByteBuffer])
        /// Close the connection now.
        case close(ClientID)
        /// Carry out an engine command; report with `commandCompleted`.
        case perform(EngineRequest)
        /// Re-read the config and report with `reloaded` or `reloadFailed`
        /// (asked by a client, or by SIGHUP when nil).
        case reload(ClientID?, RequestID?)
        /// Encode the engine's snapshot as a `state` line (with the id) and
        /// hand it back with `reply`.
        case sendState(ClientID, RequestID?)
        /// Reply to `dump` with the host's flight recordings.
        case sendDump(ClientID, RequestID?)
        /// Reply to `clock` with the daemon's monotonic time.
        case sendClock(ClientID, RequestID?)
        /// A client's presented frames: join them to the input behind their
        /// lines (`FrameJoin`) for the touch-to-frame histogram of its transport.
        case joinFrames(ClientID, ClientTransport, [FrameReport])
        /// Give the engine these exclusion regions (the union of every open
        /// client's), replacing those it has.
        case setExclusions([ScreenRect])
        /// Filter mode: these regions replace the `[[filter.region]]` ones
        /// in force (nil: the config's again).
        case setFilterRegions([FilterStatus.Region]?)
        /// Start feeding the engine (once).
        case startInput
        /// Stop the input, ending what is in flight; report with `inputStopped`.
        case stopInput
        /// Stop accepting connections; report with `acceptorStopped`.
        case stopAccepting
        /// Remove the socket file: the server is closing.
        case removeSocketFile
        /// Everything is closed.
        case closed
        case log(Logger.Level, String)
        /// A refusal (a connection, a command, an over-long line) about this
        /// peer, for the log: the executor logs it unless its `RefusalLog`
        /// says the peer, or everyone, has had enough lines this minute.
        case logRefusal(Logger.Level, PeerIdentity?, String)
    }

    /// What to do with a connection that has just arrived.
    public enum Admission: Sendable, Equatable {
        /// Set it up as this client.
        case admit(ClientID)
        /// Send it this line (if any) and close it: it holds no slot and
        /// costs no channel. `full` when refused for a limit (the
        /// transport's, or its peer's).
        case refuse(ByteBuffer?, full: Bool)
    }

    // MARK: Inputs: the server

    /// The listening socket is bound and accepting.
    public mutating func listening(into actions: inout [Action]) {
        switch phase {
        case .starting:
            accepting = true
            if settings.startAfterClients > 0 {
                phase = .waitingForClients
            } else {
                phase = .serving
                actions.append(.startInput)
            }
        case .shuttingDown where !accepting:
            // Shut down while it was being bound: stop what just started.
            accepting = true
            actions.append(.stopAccepting)
        case .waitingForClients, .serving, .shuttingDown, .closed:
            bug("listening", &actions)
        }
    }

    /// SIGINT/SIGTERM (or the end of a replay that is not held).
    public mutating func shutdownRequested(into actions: inout [Action]) {
        switch phase {
        case .starting:
            // Nothing is served yet and no input runs; `listening` stops
            // the acceptor as soon as it is there.
            phase = .shuttingDown
            inputStopped = true
        case .waitingForClients, .serving:
            phase = .shuttingDown
            if accepting { actions.append(.stopAccepting) }
            actions.append(.stopInput)
        case .shuttingDown, .closed:
            actions.append(.log(.debug, "shutdown requested again while \(phase.rawValue): already under way"))
        }
    }

    /// The input has no more (a replay's end).
    public mutating func inputFinished(into actions: inout [Action]) {
        switch phase {
        case .serving:
            if settings.closeWhenInputEnds {
                actions.append(.log(.info, "the replay has ended: closing"))
                shutdownRequested(into: &actions)
            } else {
                actions.append(.log(.info, "the input has ended; serving until stopped"))
            }
        case .shuttingDown, .closed:
            return
        case .starting, .waitingForClients:
            bug("input finished", &actions)
        }
    }

    /// The input stopped (after `stopInput`), with the events that ended
    /// what was in flight: they go to every client, then every client is
    /// closed after its last lines.
    public mutating func inputStopped(_ lines: [EventLine], into actions: inout [Action]) {
        switch phase {
        case .shuttingDown:
            inputStopped = true
            broadcast(lines, into: &actions)
            for i in clients.indices {
                switch clients[i].phase {
                case .settingUp:
                    clients[i].phase = .closing
                    actions.append(.close(clients[i].id))
                case .open:
                    clients[i].phase = .closing
                    var rest: [ByteBuffer] = []
                    while let line = clients[i].outbox.next() { rest.append(line) }
                    actions.append(.closeAfterWriting(clients[i].id, rest))
                case .closing:
                    continue
                }
            }
            closeIfDone(into: &actions)
        case .starting, .waitingForClients, .serving, .closed:
            bug("input stopped", &actions)
        }
    }

    /// The acceptor has stopped (after `stopAccepting`).
    public mutating func acceptorStopped(into actions: inout [Action]) {
        guard accepting else { return bug("acceptor stopped", &actions) }
        accepting = false
        closeIfDone(into: &actions)
    }

    // MARK: Inputs: engine events

    /// Events of the engine (input, animation frames): each line goes to
    /// every open client that wants its transition.
    public mutating func engineEvents(_ lines: [EventLine], into actions: inout [Action]) {
        switch phase {
        case .serving, .waitingForClients, .shuttingDown:
            broadcast(lines, into: &actions)
        case .starting, .closed:
            bug("engine events", &actions)
        }
    }

    /// An engine command was carried out (`perform`), with the events it caused.
    public mutating func commandCompleted(_ request: EngineRequest, outcome: TransitionEngine.CommandOutcome,
                                          events: [EventLine], into actions: inout [Action]) {
        if request.client != nil {
            switch outcome {
            case .done: statistics.count(request.name, nil)
            case .refused(let code, _): statistics.count(request.name, ErrorCode(code))
            }
        }
        switch outcome {
        case .done:
            switch request.command {
            case .drive: if let client = request.client { drivers[request.transition] = client }
            case .release, .cancel, .driverLost, .orphaned, .run: drivers[request.transition] = nil
            case .setEnabled: break   // whoever drives it still does
            }
            if let client = request.client {
                reply(client, ReplyLines.ok(request.name, id: request.id), into: &actions)
            }
            broadcast(events, into: &actions)
        case .refused(let code, let message):
            switch request.command {
            case .driverLost, .orphaned: drivers[request.transition] = nil
            case .run, .drive, .release, .cancel, .setEnabled: break
            }
            broadcast(events, into: &actions)
            if let client = request.client {
                reply(client, ReplyLines.error(ErrorCode(code), message, cmd: request.name, id: request.id), into: &actions)
            }
        }
        if let client = request.client { actions.append(.flush(client)) }
    }

    // MARK: Inputs: clients

    /// A connection arrived on a transport, from `peer` when the transport
    /// can tell already (a Unix socket's uid): admitted (it holds a slot
    /// from now until `clientGone`) or refused. Each transport has its own
    /// limit, so one never takes the other's slots, and one peer may hold
    /// at most `perPeerLimit` of a transport's (a peer told only at
    /// `clientReady` is checked there).
    public mutating func connectionArrived(_ transport: ClientTransport, from peer: PeerIdentity? = nil,
                                           into actions: inout [Action]) -> Admission {
        switch phase {
        case .waitingForClients, .serving:
            let (onTransport, ofPeer) = slotsHeld(on: transport, by: peer, besides: nil)
            let limit = settings.limit(on: transport)
            guard onTransport < limit else {
                statistics.refusedFull += 1
                let key = Settings.limitKey(transport)
                actions.append(.logRefusal(.warning, peer, "refused a connection to the \(Settings.transportName(transport))\(peer.map { " from \($0)" } ?? ""): \(key) (\(limit)) are connected"))
                return .refuse(ReplyLines.error(.tooManyClients, "the daemon serves at most \(limit) clients on this transport (\(key))", id: nil),
                               full: true)
            }
            if let peer, ofPeer >= settings.perPeerLimit(on: transport) {
                statistics.refusedFull += 1
                actions.append(.logRefusal(.warning, peer, perPeerRefusal(transport, peer)))
                return .refuse(perPeerError(transport), full: true)
            }
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
            } else {
                slot = slotCount
                slotCount += 1
            }
            let id = ClientID(nextClient, slot: slot)
            nextClient += 1
            statistics.admitted[transport, default: 0] += 1
            clients.append(Client(id: id, transport: transport, identity: peer, framer: LineFramer(limit: settings.lineLimit),
                                  outbox: ClientOutbox(backlogLimit: settings.backlogLimit)))
            return .admit(id)
        case .starting, .shuttingDown, .closed:
            return .refuse(nil, full: false)
        }
    }

    /// An admitted client's connection is set up: it gets `hello` (encoded
    /// by the executor just now, so that the stream goes on from its `seq`).
    /// `identity`: who it is, when the transport could not tell at arrival
    /// (a WebSocket peer: its uid, else its address); a peer that holds its
    /// transport's per-peer limit already is refused now, before `hello`.
    public mutating func clientReady(_ id: ClientID, peer: PeerCredentials?, identity: PeerIdentity? = nil,
                                     hello: ByteBuffer, into actions: inout [Action]) {
        guard let i = index(of: id) else { return bug("client ready for unknown \(id)", &actions) }
        switch clients[i].phase {
        case .settingUp:
            if clients[i].identity == nil, let identity {
                clients[i].identity = identity
                let transport = clients[i].transport
                if slotsHeld(on: transport, by: identity, besides: id).ofPeer >= settings.perPeerLimit(on: transport) {
                    statistics.refusedFull += 1
                    actions.append(.logRefusal(.warning, identity, perPeerRefusal(transport, identity)))
                    clients[i].phase = .closing
                    actions.append(.closeAfterWriting(id, [perPeerError(transport)]))
                    return
                }
            }
            clients[i].peer = peer
            clients[i].phase = .open
            actions.append(.send([id], hello))
            if settings.logClients { actions.append(.log(.debug, "\(clients[i].label) connected (\(clientCount) clients)")) }
            if phase == .waitingForClients && clientCount(in: .open) >= settings.startAfterClients {
                phase = .serving
                actions.append(.log(.info, "\(clientCount(in: .open)) clients connected: starting"))
                actions.append(.startInput)
            }
        case .closing:
            // Shutdown came while it was being set up.
            return
        case .open:
            bug("client ready for \(clients[i].label)", &actions)
        }
    }

    /// Bytes from a client: complete lines are commands.
    public mutating func bytesReceived<C: Collection>(_ id: ClientID, _ bytes: C, into actions: inout [Action])
    where C.Element == UInt8 {
        guard let i = index(of: id) else { return bug("bytes from unknown \(id)", &actions) }
        switch clients[i].phase {
        case .open:
            break
        case .closing:
            return
        case .settingUp:
            return bug("bytes from \(clients[i].label)", &actions)
        }
        for output in clients[i].framer.feed(bytes) {
            switch output {
            case .line(let line):
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                handle(line, from: id, into: &actions)
            case .tooLong:
                statistics.count("invalid", .lineTooLong)
                actions.append(.logRefusal(.notice, clients[i].identity, "\(clients[i].label) sent a line over \(settings.lineLimit) bytes: closing"))
                closeWithError(at: i, ReplyLines.error(.lineTooLong, "a command line is at most \(settings.lineLimit) bytes", id: nil),
                               into: &actions)
            }
            // A command may have closed it (backlog).
            guard let j = index(of: id), clients[j].phase == .open else { return }
        }
        actions.append(.flush(id))
    }

    /// The executor's answer to a command it carried out (`state`, `dump`):
    /// counted, then sent like `reply`. `result`: nil for success, else the
    /// `error` code the line carries.
    public mutating func answered(_ id: ClientID, command: String, result: ErrorCode?, _ line: ByteBuffer,
                                  into actions: inout [Action]) {
        statistics.count(command, result)
        reply(id, line, into: &actions)
    }

    /// A line for one client (the executor's `state` reply).
    public mutating func reply(_ id: ClientID, _ line: ByteBuffer, into actions: inout [Action]) {
        guard let i = index(of: id) else { return }   // gone while the command ran
        guard clients[i].phase == .open else { return }
        let mode = clients[i].writeMode
        deliver(line, essential: true, transition: nil, at: i, into: &actions)
        // Handed to the channel (a client that writes through it): out now.
        if clients[i].writeMode != mode && clients[i].phase == .open { actions.append(.flush(id)) }
    }

    /// A `send`'s write is held by the client's channel (`bytes`: what the
    /// channel holds now): the socket could not take it all at once. From
    /// now on the client's lines go after it; `channelWrote` reports as
    /// many bytes done.
    public mutating func sendFellShort(_ id: ClientID, bytes: Int, into actions: inout [Action]) {
        guard let i = index(of: id) else { return bug("short send to unknown \(id)", &actions) }
        switch clients[i].phase {
        case .open, .closing:
            recordChannelWrite(bytes, at: i)
        case .settingUp:
            bug("short send to \(clients[i].label)", &actions)
        }
    }

    /// The channel has written (or failed to write) one handed-over buffer
    /// of `bytes` bytes. A failed write means the connection is closing.
    public mutating func channelWrote(_ id: ClientID, bytes: Int, ok: Bool, into actions: inout [Action]) {
        guard let i = index(of: id) else { return }   // late news of a client already gone
        switch clients[i].writeMode {
        case .direct:
            return bug("channel write of \(clients[i].label) with none pending", &actions)
        case .channel(let writes, let pending):
            clients[i].writeMode = writes > 1 ? .channel(writes: writes - 1, bytes: pending - bytes) : .direct
        }
        switch clients[i].phase {
        case .open:
            if !ok {
                // The connection failed: it closes, and `clientGone` follows.
                clients[i].phase = .closing
                actions.append(.close(id))
                if !clients[i].exclusions.isEmpty { refreshExclusions(into: &actions) }
                dropFilterRegions(of: id, into: &actions)
                return
            }
            drain(at: i, into: &actions)
        case .closing:
            return
        case .settingUp:
            bug("channel write of \(clients[i].label)", &actions)
        }
    }

    /// The client's connection is closed (by the peer, by an error, or
    /// after a `close` action); its slot is free. A transition its commands
    /// were driving ends with a cancel (reason `client-lost`).
    public mutating func clientGone(_ id: ClientID, into actions: inout [Action]) {
        guard let i = index(of: id) else { return bug("unknown \(id) gone", &actions) }
        let client = clients.remove(at: i)
        freeSlots.append(client.id.slot)
        if settings.logClients { actions.append(.log(.debug, "\(client.label) disconnected (\(clientCount) clients)")) }
        // Its exclusion regions go with it.
        if !client.exclusions.isEmpty { refreshExclusions(into: &actions) }
        dropFilterRegions(of: id, into: &actions)
        for (transition, driver) in drivers.sorted(by: { $0.key < $1.key }) where driver == id {
            drivers[transition] = nil
            switch phase {
            case .waitingForClients, .serving:
                actions.append(.log(.info, "\(client.label) went away while driving \(transitionName(transition)): cancelling it"))
                actions.append(.perform(EngineRequest(client: nil, command: .driverLost, transition: transition,
                                                      name: "cancel", id: nil)))
            case .starting, .shuttingDown, .closed:
                continue   // shutdown ends it anyway
            }
        }
        closeIfDone(into: &actions)
    }

    // MARK: Reload

    /// SIGHUP: re-read the config (while accepting; ignored when shutting down).
    public mutating func reloadRequested(into actions: inout [Action]) {
        switch phase {
        case .waitingForClients, .serving:
            requestReload(by: nil, id: nil, into: &actions)
        case .starting, .shuttingDown, .closed:
            actions.append(.log(.notice, "reload ignored while \(phase.rawValue)"))
        }
    }

    /// The config is read off the loop, one reload at a time: one asked
    /// for while another is read waits for it, so that each reads the file
    /// as it is after it was asked for and answers its own requester.
    /// Signals that wait are one: a second would read the same file again.
    private mutating func requestReload(by requester: ClientID?, id requestID: RequestID?, into actions: inout [Action]) {
        guard reloadReading else {
            reloadReading = true
            actions.append(.reload(requester, requestID))
            return
        }
        if requester == nil, reloadsWaiting.contains(where: { $0.requester == nil }) { return }
        reloadsWaiting.append((requester, requestID))
    }

    /// A reload was answered: the next waiting one is read now.
    private mutating func nextReload(into actions: inout [Action]) {
        guard !reloadsWaiting.isEmpty else {
            reloadReading = false
            return
        }
        let next = reloadsWaiting.removeFirst()
        actions.append(.reload(next.requester, next.requestID))
    }

    /// What a reload changes for the server: the transitions' names (by
    /// their new index), and the limits and access that apply from now on.
    public struct Reloaded: Sendable {
        public var transitions: [String]
        /// For each old engine index, its new one (a transition in flight)
        /// or nil (`TransitionEngine.reload`).
        public var moved: [Int?]
        /// The new indices of the transitions in flight that the new config
        /// has no transition of the same name for (dropped or renamed).
        public var orphans: [Int]
        public var maxClients: Int
        public var maxWebSocketClients: Int
        public var maxClientsPerPeer: Int?
        public var backlogLimit: Int
        public var policy: AccessPolicy
        /// The new `hello`, for every open client.
        public var hello: ByteBuffer
        /// The new cap on the exclusion regions (nil: unchanged). Regions
        /// in force stay; it applies to later `exclude` commands.
        public var exclusionCap: EdgeExclusionCap?

        public init(transitions: [String], moved: [Int?], orphans: [Int] = [], maxClients: Int,
                    maxWebSocketClients: Int = 64, maxClientsPerPeer: Int? = nil, backlogLimit: Int,
                    policy: AccessPolicy, hello: ByteBuffer, exclusionCap: EdgeExclusionCap? = nil) {
            self.exclusionCap = exclusionCap
            self.transitions = transitions
            self.moved = moved
            self.orphans = orphans
            self.maxWebSocketClients = maxWebSocketClients
            self.maxClientsPerPeer = maxClientsPerPeer
            self.maxClients = maxClients
            self.backlogLimit = backlogLimit
            self.policy = policy
            self.hello = hello
        }
    }

    /// The engine runs the new config: every open client gets the new
    /// `hello` (after what it was sent before), filters and drivers follow
    /// their transitions by name — a transition in flight whose name is
    /// gone, by its new index, so that its subscribers see it end — and
    /// whoever asked gets `ok`. Each orphan (in flight, its name gone)
    /// then ends (`orphaned`: reason `reload`): nothing could end it later.
    public mutating func reloaded(_ change: Reloaded, by requester: ClientID?, id requestID: RequestID?,
                                  into actions: inout [Action]) {
        let oldNames = settings.transitions
        var newIndex: [String: Int] = [:]
        for (i, name) in change.transitions.enumerated() where newIndex[name] == nil { newIndex[name] = i }
        func follow(_ old: Int) -> Int? { old < oldNames.count ? newIndex[oldNames[old]] : nil }
        var newDrivers: [Int: ClientID] = [:]
        for (old, client) in drivers {
            // The transition of the same name (the engine sends its commands
            // to the one in flight), else the one in flight itself.
            if let t = follow(old) ?? (old < change.moved.count ? change.moved[old] : nil) { newDrivers[t] = client }
        }
        drivers = newDrivers
        for i in clients.indices {
            if let filter = clients[i].filter {
                clients[i].filter = Set(filter.compactMap { old in
                    follow(old) ?? (old < change.moved.count && change.orphans.contains { $0 == change.moved[old] } ? change.moved[old] : nil)
                })
            }
        }
        names = newIndex
        settings.transitions = change.transitions
        settings.maxClients = change.maxClients
        settings.maxWebSocketClients = change.maxWebSocketClients
        settings.maxClientsPerPeer = change.maxClientsPerPeer
        settings.backlogLimit = change.backlogLimit
        settings.policy = change.policy
        if let cap = change.exclusionCap { settings.exclusionCap = cap }
        for i in clients.indices where clients[i].phase == .open {
            let mode = clients[i].writeMode
            deliver(change.hello, essential: true, transition: nil, at: i, into: &actions)
            if clients[i].writeMode != mode && clients[i].phase == .open { actions.append(.flush(clients[i].id)) }
        }
        actions.append(.log(.info, "reloaded the config: \(change.transitions.count) transition\(change.transitions.count == 1 ? "" : "s") (\(change.transitions.joined(separator: ", ")))"))
        if let requester {
            statistics.count("reload", nil)
            reply(requester, ReplyLines.ok("reload", id: requestID), into: &actions)
            actions.append(.flush(requester))
        }
        for orphan in change.orphans {
            let name = change.moved.firstIndex { $0 == orphan }.flatMap { $0 < oldNames.count ? oldNames[$0] : nil }
            actions.append(.log(.info, "reload: \(name ?? "transition \(orphan) of an earlier config") is in flight and the new config has no transition of its name: ending it"))
            actions.append(.perform(EngineRequest(client: nil, command: .orphaned, transition: orphan, name: "cancel", id: nil)))
        }
        nextReload(into: &actions)
    }

    /// The config could not be used: the old one stays; whoever asked gets
    /// an `error` (`bad-config`) saying where it broke.
    public mutating func reloadFailed(_ message: String, by requester: ClientID?, id requestID: RequestID?,
                                      into actions: inout [Action]) {
        actions.append(.log(.error, "reload: \(message); keeping the config in use"))
        if let requester {
            statistics.count("reload", .badConfig)
            reply(requester, ReplyLines.error(.badConfig, "\(message); the config in use is unchanged", cmd: "reload", id: requestID), into: &actions)
            actions.append(.flush(requester))
        }
        nextReload(into: &actions)
    }

    // MARK: Commands

    private mutating func handle(_ line: [UInt8], from id: ClientID, into actions: inout [Action]) {
        switch CommandDecoder.decode(line) {
        case .failure(let error):
            statistics.count("invalid", error.code)
            reply(id, ReplyLines.error(error.code, error.message, cmd: error.cmd, id: error.id), into: &actions)
        case .success(let (command, requestID)):
            execute(command, id: requestID, from: id, into: &actions)
        }
    }

    private mutating func execute(_ command: ClientCommand, id requestID: RequestID?, from id: ClientID,
                                  into actions: inout [Action]) {
        guard let i = index(of: id) else { return }
        if command.changesState {
            guard let peer = clients[i].peer else {
                statistics.count(command.name, .forbidden)
                logRefusal("refused '\(command.name)' from \(clients[i].label): its user is not known", at: i, into: &actions)
                reply(id, ReplyLines.error(.forbidden, "'\(command.name)' changes state: the daemon cannot tell which user this connection is (only Unix socket and loopback WebSocket peers can be identified)", cmd: command.name, id: requestID), into: &actions)
                return
            }
            guard settings.policy.allowsChanges(by: peer) else {
                statistics.count(command.name, .forbidden)
                logRefusal("refused '\(command.name)' from \(peer): not root and not in [server] allow_uids/allow_groups", at: i, into: &actions)
                reply(id, ReplyLines.error(.forbidden, "'\(command.name)' changes state: uid \(peer.uid) is not allowed (see [server] allow_uids / allow_groups)", cmd: command.name, id: requestID), into: &actions)
                return
            }
        }
        func request(_ name: String, _ engineCommand: TransitionEngine.Command) -> EngineRequest? {
            guard let t = names[name] else {
                statistics.count(command.name, .unknownTransition)
                reply(id, ReplyLines.error(.unknownTransition, "no transition named '\(name)'", cmd: command.name, id: requestID), into: &actions)
                return nil
            }
            return EngineRequest(client: id, command: engineCommand, transition: t, name: command.name, id: requestID)
        }
        switch command {
        case .ping:
            statistics.count(command.name, nil)
            reply(id, ReplyLines.pong(id: requestID), into: &actions)
        case .state:
            actions.append(.sendState(id, requestID))
        case .dump:
            actions.append(.sendDump(id, requestID))
        case .subscribe(let transitions):
            var filter = Set<Int>()
            for name in transitions {
                guard let t = names[name] else {
                    statistics.count(command.name, .unknownTransition)
                    reply(id, ReplyLines.error(.unknownTransition, "no transition named '\(name)' (configured: \(settings.transitions.joined(separator: ", ")))", cmd: command.name, id: requestID), into: &actions)
                    return
                }
                filter.insert(t)
            }
            clients[i].filter = transitions.isEmpty ? nil : filter
            statistics.count(command.name, nil)
            reply(id, ReplyLines.ok("subscribe", id: requestID), into: &actions)
        case .run(let name, let to):
            if let r = request(name, .run(to.engine)) { actions.append(.perform(r)) }
        case .drive(let name, let progress):
            if let r = request(name, .drive(progress: progress)) { actions.append(.perform(r)) }
        case .release(let name, let velocity):
            if let r = request(name, .release(velocity: velocity)) { actions.append(.perform(r)) }
        case .cancel(let name):
            if let r = request(name, .cancel) { actions.append(.perform(r)) }
        case .enable(let name, let enabled):
            if let r = request(name, .setEnabled(enabled)) { actions.append(.perform(r)) }
        case .reload:
            requestReload(by: id, id: requestID, into: &actions)
        case .clock:
            statistics.count(command.name, nil)
            actions.append(.sendClock(id, requestID))
        case .frames(let reports):
            // Sent every frame: answered only when asked to (an id).
            statistics.count(command.name, nil)
            actions.append(.joinFrames(id, clients[i].transport, reports))
            if requestID != nil { reply(id, ReplyLines.ok(command.name, id: requestID), into: &actions) }
        case .exclude(let wire):
            let rects = wire.map { ScreenRect(x0: $0.x0, y0: $0.y0, x1: $0.x1, y1: $0.y1) }
            let cap = settings.exclusionCap
            let wanted = exclusionUnion(replacing: i, with: rects)
            // Refused whole when it takes an edge over the cap; a request
            // that covers no more of such an edge than the regions in force
            // do (a reload may have lowered the cap) is not refused: `[]`
            // always clears.
            for edge in Edge.allCases {
                let covered = cap.coverage(of: wanted, on: edge)
                guard covered > cap.fraction + 1e-9, covered > cap.coverage(of: exclusionsInForce, on: edge) + 1e-9 else { continue }
                statistics.count(command.name, .badField)
                reply(id, ReplyLines.error(.badField, "'rects' would make the exclusion regions in force cover \(Rejection.roundedText(covered)) of the \(edge.rawValue) edge (regions within \(Rejection.roundedText(cap.margin(of: edge))) of it, measured along it): over max_edge_exclusion (\(Rejection.roundedText(cap.fraction))) of [input]; nothing changed", cmd: command.name, id: requestID), into: &actions)
                return
            }
            clients[i].exclusions = rects
            statistics.count(command.name, nil)
            refreshExclusions(into: &actions)
            reply(id, ReplyLines.ok(command.name, id: requestID), into: &actions)
        case .filterRegions(let regions):
            if let regions, let problem = Self.problem(with: regions) {
                statistics.count(command.name, .badField)
                reply(id, ReplyLines.error(.badField, problem + "; nothing changed", cmd: command.name, id: requestID), into: &actions)
                return
            }
            // The last client to set them owns them; null hands them back to the config.
            filterRegionsOwner = regions == nil ? nil : id
            statistics.count(command.name, nil)
            actions.append(.setFilterRegions(regions))
            reply(id, ReplyLines.ok(command.name, id: requestID), into: &actions)
        }
    }

    /// What is wrong with `filter_regions`' regions beyond their shape (the
    /// decoder's): how many, the contact limits and the gestures' names, by
    /// the config's bounds. nil when nothing is.
    static func problem(with regions: [FilterStatus.Region]) -> String? {
        if regions.count > FilterLimits.regions {
            return "'regions' has \(regions.count) regions; at most \(FilterLimits.regions)"
        }
        for (k, region) in regions.enumerated() {
            if let n = region.maxContacts, !FilterLimits.contacts.contains(n) {
                return "'regions[\(k)].max_contacts' must be from \(FilterLimits.contacts.lowerBound) to \(FilterLimits.contacts.upperBound) (got \(n))"
            }
            for name in region.block ?? [] where BlockedGesture(rawValue: name) == nil {
                return "'regions[\(k)].block': unknown gesture '\(name)' (known: \(BlockedGesture.allCases.map(\.rawValue).joined(separator: ", ")))"
            }
        }
        return nil
    }

    /// A client goes: regions it set (`filter_regions`) give way to the config's.
    private mutating func dropFilterRegions(of client: ClientID, into actions: inout [Action]) {
        guard filterRegionsOwner == client, phase != .closed else { return }
        filterRegionsOwner = nil
        actions.append(.setFilterRegions(nil))
    }

    /// The regions of every open client, client `i`'s replaced by `rects`:
    /// in arrival order, each rectangle once.
    private func exclusionUnion(replacing i: Int? = nil, with rects: [ScreenRect] = []) -> [ScreenRect] {
        var union: [ScreenRect] = []
        var seen = Set<ScreenRect>()
        for k in clients.indices where clients[k].phase == .open {
            for r in (k == i ? rects : clients[k].exclusions) where seen.insert(r).inserted { union.append(r) }
        }
        return union
    }

    /// After a client's regions changed or it closed: the engine gets the
    /// new union, if it is new.
    private mutating func refreshExclusions(into actions: inout [Action]) {
        guard phase != .closed else { return }
        let union = exclusionUnion()
        guard union != exclusionsInForce else { return }
        exclusionsInForce = union
        actions.append(.setExclusions(union))
    }

    /// A refused command, for the log: by its peer, so that the executor's
    /// `RefusalLog` limits the lines per peer and in all (a peer that
    /// reconnects to start afresh gains nothing; its refusals are still
    /// counted for the metrics).
    private func logRefusal(_ line: String, at i: Int, into actions: inout [Action]) {
        actions.append(.logRefusal(.notice, clients[i].identity, line))
    }

    /// The log line of a connection refused for its peer's limit.
    private func perPeerRefusal(_ transport: ClientTransport, _ peer: PeerIdentity) -> String {
        "refused a connection to the \(Settings.transportName(transport)) from \(peer): it has \(settings.perPeerLimit(on: transport)) already (max_clients_per_peer)"
    }

    private func perPeerError(_ transport: ClientTransport) -> ByteBuffer {
        ReplyLines.error(.tooManyClients, "the daemon serves at most \(settings.perPeerLimit(on: transport)) clients of one user (or address) on this transport (max_clients_per_peer)", id: nil)
    }

    /// Slots held on `transport` (clients setting up or open), and of those
    /// `peer`'s, leaving out `besides`.
    private func slotsHeld(on transport: ClientTransport, by peer: PeerIdentity?, besides: ClientID?)
        -> (onTransport: Int, ofPeer: Int) {
        var onTransport = 0, ofPeer = 0
        for client in clients where client.phase != .closing && client.transport == transport && client.id != besides {
            onTransport += 1
            if let peer, client.identity == peer { ofPeer += 1 }
        }
        return (onTransport, ofPeer)
    }

    // MARK: Writing

    /// Each line to every open client that wants it: a caught-up client
    /// gets all its lines as one `send` (the same bytes for every client
    /// that takes every transition); any other gets them line by line
    /// through its channel or outbox.
    private mutating func broadcast(_ lines: [EventLine], into actions: inout [Action]) {
        guard !lines.isEmpty, !clients.isEmpty else { return }
        // Every caught-up client that takes every transition: one action,
        // the same bytes, first (in arrival order).
        var everything: [ClientID] = []
        for client in clients where client.phase == .open && client.isCaughtUp && client.filter == nil {
            everything.append(client.id)
        }
        if !everything.isEmpty {
            actions.append(.send(everything, lines.count == 1 ? lines[0].bytes : Self.join(lines) { _ in true }))
        }
        for i in clients.indices where clients[i].phase == .open {
            let id = clients[i].id
            if clients[i].isCaughtUp {
                if let filter = clients[i].filter {
                    let own = Self.join(lines) { filter.contains($0.transition) }
                    if own.readableBytes > 0 { actions.append(.send([id], own)) }
                }
                continue
            }
            let mode = clients[i].writeMode
            for line in lines where clients[i].wants(line.transition) {
                guard deliver(line.bytes, essential: line.essential, transition: line.transition, at: i, into: &actions) else {
                    break
                }
            }
            if clients[i].writeMode != mode && clients[i].phase == .open { actions.append(.flush(id)) }
        }
    }

    private static func join(_ lines: [EventLine], _ include: (EventLine) -> Bool) -> ByteBuffer {
        var all = ByteBuffer()
        all.reserveCapacity(lines.reduce(0) { $0 + (include($1) ? $1.bytes.readableBytes : 0) })
        for line in lines where include(line) { all.writeImmutableBuffer(line.bytes) }
        return all
    }

    /// One line to one open client, in order: a `send` of its own when it is
    /// caught up, else to the channel while it has room, else to the
    /// outbox. False if the client overflowed and is being closed.
    @discardableResult
    private mutating func deliver(_ line: ByteBuffer, essential: Bool, transition: Int?, at i: Int,
                                  into actions: inout [Action]) -> Bool {
        if clients[i].isCaughtUp {
            actions.append(.send([clients[i].id], line))
            return true
        }
        let roomy = clients[i].channelBytes < settings.highWater
        let priority: ClientOutbox.Priority = essential || transition == nil
            ? .essential(transition: transition) : .coalescible(transition: transition!)
        let coalescedBefore = clients[i].outbox.coalesced
        let outcome = clients[i].outbox.enqueue(line, priority, writable: roomy)
        statistics.coalescedLines += clients[i].outbox.coalesced - coalescedBefore
        switch outcome {
        case .write(let bytes):
            handToChannel(bytes, at: i, into: &actions)
            return true
        case .queued:
            return true
        case .overflow:
            statistics.backlogDisconnects += 1
            actions.append(.log(.warning, "\(clients[i].label) fell behind by more than \(settings.backlogLimit) bytes: disconnecting"))
            closeWithError(at: i, ReplyLines.error(.backlog, "you fell behind by more than \(settings.backlogLimit) bytes; reconnect", id: nil),
                           into: &actions)
            return false
        }
    }

    private mutating func handToChannel(_ bytes: ByteBuffer, at i: Int, into actions: inout [Action]) {
        recordChannelWrite(bytes.readableBytes, at: i)
        actions.append(.handToChannel(clients[i].id, bytes))
    }

    private mutating func recordChannelWrite(_ bytes: Int, at i: Int) {
        switch clients[i].writeMode {
        case .direct:
            clients[i].writeMode = .channel(writes: 1, bytes: bytes)
        case .channel(let writes, let pending):
            clients[i].writeMode = .channel(writes: writes + 1, bytes: pending + bytes)
        }
    }

    /// Moves queued lines to the channel while it has room.
    private mutating func drain(at i: Int, into actions: inout [Action]) {
        var handed = false
        while clients[i].channelBytes < settings.highWater, let line = clients[i].outbox.next() {
            handToChannel(line, at: i, into: &actions)
            handed = true
        }
        if handed { actions.append(.flush(clients[i].id)) }
    }

    /// A final error line after what the channel holds (the outbox is
    /// dropped: the client is being cut off), then the connection closes.
    private mutating func closeWithError(at i: Int, _ line: ByteBuffer, into actions: inout [Action]) {
        clients[i].phase = .closing
        actions.append(.closeAfterWriting(clients[i].id, [line]))
        if !clients[i].exclusions.isEmpty { refreshExclusions(into: &actions) }
        dropFilterRegions(of: clients[i].id, into: &actions)
    }

    // MARK: Helpers

    private mutating func closeIfDone(into actions: inout [Action]) {
        guard phase == .shuttingDown, inputStopped, !accepting, clients.isEmpty else { return }
        phase = .closed
        if settings.ownsSocketFile { actions.append(.removeSocketFile) }
        actions.append(.closed)
    }

    private func index(of id: ClientID) -> Int? {
        // Clients are kept in rising id order.
        var low = 0, high = clients.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let m = clients[mid].id
            if m == id { return mid }
            if m < id { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    /// A transition's name for the log (one of an earlier config still in
    /// flight has no name in the current one).
    private func transitionName(_ transition: Int) -> String {
        transition < settings.transitions.count ? settings.transitions[transition] : "transition \(transition) of the earlier config"
    }

    private func clientCount(in phase: ClientPhase) -> Int {
        clients.reduce(0) { $0 + ($1.phase == phase ? 1 : 0) }
    }

    private func bug(_ input: String, _ actions: inout [Action]) {
        actions.append(.log(.error, "BUG: server input '\(input)' while \(phase.rawValue); ignored"))
    }
}
