#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import Testing
import ServerPorts
import Engine
import Server
import WireProtocol
@testable import ServerCore

// MARK: A script of inputs, and the actions it gave, as text

/// Drives a `ServerStateMachine` with a script of inputs and renders the
/// actions as short lines ("send 1 ⟨…⟩", "channel 2 ⟨…⟩", …), so each test
/// reads as "clients + inputs → what each client gets". No sockets.
private struct Script {
    var machine: ServerStateMachine
    /// Every action so far, rendered.
    var log: [String] = []
    /// The actions of the last input, rendered.
    var last: [String] = []
    /// The last input's actions themselves.
    var actions: [ServerStateMachine.Action] = []

    init(_ settings: ServerStateMachine.Settings = .init(transitions: ["back", "home"]), serving: Bool = true) {
        machine = ServerStateMachine(settings: settings)
        if serving { run { $0.listening(into: &$1) } }
    }

    mutating func run(_ input: (inout ServerStateMachine, inout [ServerStateMachine.Action]) -> Void) {
        actions = []
        input(&machine, &actions)
        last = actions.flatMap(Self.render)
        log += last
    }

    /// A connection arrives (its refusal's log lines go to `last`).
    mutating func arrive(_ transport: ClientTransport, from peer: PeerIdentity? = nil) -> ServerStateMachine.Admission {
        var admission = ServerStateMachine.Admission.refuse(nil, full: false)
        run { admission = $0.connectionArrived(transport, from: peer, into: &$1) }
        return admission
    }

    /// Admits a client and gives it its hello; `identity`: the peer as the
    /// Unix socket tells it at arrival (nil: not told, no per-peer limit).
    @discardableResult
    mutating func connect(uid: UInt32 = 0, identity: PeerIdentity? = nil) -> ClientID {
        guard case .admit(let id) = arrive(.unixSocket, from: identity) else {
            Issue.record("not admitted")
            return ClientID(-1)
        }
        run { $0.clientReady(id, peer: PeerCredentials(pid: 100 + Int32(id.number), uid: uid, gid: uid),
                             hello: ByteBuffer(string: "H\n"), into: &$1) }
        return id
    }

    mutating func events(_ lines: [EventLine]) { run { $0.engineEvents(lines, into: &$1) } }
    mutating func say(_ id: ClientID, _ text: String) { run { $0.bytesReceived(id, Array(text.utf8), into: &$1) } }
    mutating func gone(_ id: ClientID) { run { $0.clientGone(id, into: &$1) } }
    /// A `send` was not written at once: the channel holds `rest`.
    mutating func short(_ id: ClientID, _ rest: String) { run { $0.sendFellShort(id, bytes: rest.utf8.count, into: &$1) } }
    mutating func wrote(_ id: ClientID, _ bytes: Int, ok: Bool = true) { run { $0.channelWrote(id, bytes: bytes, ok: ok, into: &$1) } }

    /// The `perform` request of the last input.
    var request: EngineRequest? {
        for case .perform(let r) in actions { return r }
        return nil
    }

    /// Lines of the last input about one client, without the client number.
    func to(_ id: ClientID) -> [String] {
        last.compactMap { line in
            let prefix = line.split(separator: " ", maxSplits: 2)
            guard prefix.count >= 2, prefix[1] == "\(id.number)" else { return nil }
            return prefix[0] + (prefix.count > 2 ? " " + prefix[2] : "")
        }
    }

    /// An action as lines: one per client it is for (a send to several
    /// clients is one action with the same bytes for each).
    static func render(_ action: ServerStateMachine.Action) -> [String] {
        if case .send(let ids, let b) = action { return ids.map { "send \($0.number) \(t(b))" } }
        return [render1(action)]
    }

    static func t(_ b: ByteBuffer) -> String { "⟨" + String(String(buffer: b).map { $0 == "\n" ? "⏎" : $0 }) + "⟩" }

    static func render1(_ action: ServerStateMachine.Action) -> String {
        switch action {
        case .send(let ids, let b): return "send \(ids.map { "\($0.number)" }.joined(separator: ",")) \(t(b))"
        case .handToChannel(let id, let b): return "channel \(id.number) \(t(b))"
        case .flush(let id): return "flush \(id.number)"
        case .closeAfterWriting(let id, let lines):
            return "last \(id.number) \(lines.map(t).joined())"
        case .close(let id): return "close \(id.number)"
        case .perform(let r): return "perform \(r.client.map { "\($0.number)" } ?? "-") \(r.command) on \(r.transition)"
        case .sendState(let id, _): return "state \(id.number)"
        case .sendDump(let id, _): return "dump \(id.number)"
        case .sendClock(let id, _): return "clock \(id.number)"
        case .joinFrames(let id, let transport, let reports):
            return "frames \(id.number) \(transport.rawValue) " + reports.map { "\($0.seq)@\($0.presented)" }.joined(separator: ",")
        case .setExclusions(let rects):
            return "exclusions " + (rects.isEmpty ? "none" : rects.map { r in
                [r.x0, r.y0, r.x1, r.y1].map { "\($0)" }.joined(separator: ",")
            }.joined(separator: " "))
        case .setFilterRegions(let regions):
            return "filter-regions " + (regions.map { "\($0.count)" } ?? "config")
        case .reload(let id, _): return "reload \(id.map { "\($0.number)" } ?? "-")"
        case .startInput: return "start-input"
        case .stopInput: return "stop-input"
        case .stopAccepting: return "stop-accepting"
        case .removeSocketFile: return "remove-socket-file"
        case .closed: return "closed"
        case .log(let level, let message): return "log-\(level) \(message)"
        case .logRefusal(let level, _, let message): return "log-\(level) \(message)"
        }
    }
}

private func ev(_ text: String, _ transition: Int = 0, essential: Bool = false) -> EventLine {
    EventLine(bytes: ByteBuffer(string: text + "\n"), transition: transition, essential: essential)
}

// MARK: Tests

@Suite("Server state machine")
struct ServerStateMachineTests {
    @Test func startsTheInputOnceListeningAndGreetsEachClient() {
        var s = Script(serving: false)
        #expect(s.machine.phase == .starting)
        s.run { $0.listening(into: &$1) }
        #expect(s.last == ["start-input"])
        #expect(s.machine.phase == .serving)
        let a = s.connect()
        #expect(s.to(a) == ["send ⟨H⏎⟩"])
    }

    @Test func waitsForEnoughClientsBeforeStartingTheInput() {
        var s = Script(.init(startAfterClients: 2, transitions: ["back"]))
        #expect(s.machine.phase == .waitingForClients)
        s.connect()
        #expect(!s.last.contains("start-input"))
        s.connect()
        #expect(s.last.contains("start-input"))
        #expect(s.machine.phase == .serving)
    }

    @Test func fansOutInOrderOneSendPerCaughtUpClientAndBatch() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.events([ev("b1", essential: true), ev("c2")])
        #expect(s.last == ["send 1 ⟨b1⏎c2⏎⟩", "send 2 ⟨b1⏎c2⏎⟩"])
        _ = (a, b)
    }

    @Test func oneActionSendsTheSameBytesToEveryCaughtUpClient() {
        var s = Script()
        let a = s.connect(), b = s.connect(), c = s.connect()
        s.events([ev("x")])
        #expect(s.actions.count == 1)
        guard case .send(let ids, let bytes) = s.actions.first else { Issue.record("no send"); return }
        #expect(ids == [a, b, c] && String(buffer: bytes) == "x\n")
        // A slot is reused once its client is gone; the client's number is not.
        s.gone(b)
        let d = s.connect()
        #expect(d.slot == b.slot && d.number > c.number && d != b)
    }

    @Test func aFilterSendsOnlyTheTransitionsAClientSubscribedTo() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(b, "{\"cmd\":\"subscribe\",\"transitions\":[\"home\"]}\n")
        #expect(s.to(b).first == "send ⟨{\"type\":\"ok\",\"cmd\":\"subscribe\"}⏎⟩")
        s.events([ev("back", 0), ev("home", 1)])
        #expect(s.to(a) == ["send ⟨back⏎home⏎⟩"])
        #expect(s.to(b) == ["send ⟨home⏎⟩"])
        s.events([ev("back2", 0)])
        #expect(s.to(b).isEmpty, "nothing for a client that wants none of the batch")
    }

    @Test func anUnknownTransitionInSubscribeIsAnErrorAndKeepsTheFilter() {
        var s = Script()
        let a = s.connect()
        s.say(a, "{\"cmd\":\"subscribe\",\"transitions\":[\"nope\"],\"id\":3}\n")
        #expect(s.to(a).first?.contains("\"code\":\"unknown-transition\"") == true)
        #expect(s.to(a).first?.contains("\"id\":3") == true)
        s.events([ev("x", 1)])
        #expect(s.to(a) == ["send ⟨x⏎⟩"])
    }

    @Test func aShortSendMovesTheRestAndLaterLinesToTheChannelInOrder() {
        var s = Script()
        let a = s.connect()
        s.events([ev("one")])
        #expect(s.machine.writeMode(of: a) == .direct)
        s.short(a, "ne\n")
        #expect(s.last.isEmpty, "the executor wrote the rest to the channel itself")
        #expect(s.machine.writeMode(of: a) == .channel(writes: 1, bytes: 3))
        s.events([ev("two", essential: true)])
        #expect(s.to(a) == ["channel ⟨two⏎⟩", "flush"], "not sent directly past what the channel holds")
        #expect(s.machine.writeMode(of: a) == .channel(writes: 2, bytes: 7))
        s.wrote(a, 3)
        s.wrote(a, 4)
        #expect(s.to(a).isEmpty)
        #expect(s.machine.writeMode(of: a) == .direct)
        s.events([ev("three")])
        #expect(s.to(a) == ["send ⟨three⏎⟩"], "caught up again: direct")
    }

    @Test func aFullChannelQueuesAndCoalescesChangedButNeverPhaseEvents() {
        var s = Script(.init(highWater: 10, transitions: ["back", "home"]))
        let a = s.connect(), b = s.connect()
        s.events([ev("first")])
        s.short(a, "first\n")                     // a's socket is full: 6 bytes in its channel
        s.events([ev("began", essential: true)])  // 12 ≥ 10: the channel is full now
        #expect(s.to(a) == ["channel ⟨began⏎⟩", "flush"])
        s.events([ev("c1")])
        s.events([ev("c2")])
        s.events([ev("h1", 1)])
        s.events([ev("c3")])
        s.events([ev("ended", essential: true)])
        s.events([ev("a4")])
        #expect(s.to(a).isEmpty, "all queued")
        #expect(s.to(b) == ["send ⟨a4⏎⟩"], "the other client is not delayed")
        // Room again: queued lines move on while the channel holds < 10 bytes.
        // c1 and c2 coalesced into c3 (seq order kept); h1 of another transition kept.
        s.wrote(a, 6)
        #expect(s.to(a) == ["channel ⟨h1⏎⟩", "channel ⟨c3⏎⟩", "flush"])
        s.wrote(a, 6)
        #expect(s.to(a) == ["channel ⟨ended⏎⟩", "flush"])
        s.wrote(a, 3)
        #expect(s.to(a) == ["channel ⟨a4⏎⟩", "flush"])
        s.wrote(a, 3); s.wrote(a, 6); s.wrote(a, 3)
        s.events([ev("caught-up")])
        #expect(s.to(a) == ["send ⟨caught-up⏎⟩"])
    }

    @Test func pastTheBacklogTheClientGetsOneFinalErrorLastAndIsCutOff() {
        var s = Script(.init(backlogLimit: 25, highWater: 1, transitions: ["back"]))
        let a = s.connect()
        s.events([ev("x")])
        s.short(a, "x\n")
        for i in 0..<3 { s.events([ev("began\(i)", essential: true)]) }
        #expect(s.to(a).isEmpty)
        s.events([ev("began3", essential: true)])   // 4 × 7 bytes > 25
        let final = s.to(a).filter { $0.hasPrefix("last") }
        #expect(final.count == 1)
        #expect(final.first?.contains("\"code\":\"backlog\"") == true)
        #expect(final.first?.hasSuffix("direct") == false, "after what the channel holds")
        #expect(s.machine.phase(of: a) == .closing)
        #expect(s.machine.clientCount == 0, "its slot is free at once")
        s.events([ev("more", essential: true)])
        s.wrote(a, 2)
        s.say(a, "{\"cmd\":\"ping\"}\n")
        #expect(s.to(a).isEmpty, "nothing after the final line")
        s.gone(a)
        #expect(s.machine.knownClients == 0)
    }

    /// A client goes away while its channel still holds lines: late news of
    /// those writes is ignored, and it gets nothing more.
    @Test func aClientGoneInTheMiddleOfAWriteIsForgottenQuietly() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.events([ev("one")])
        s.short(a, "ne\n")
        s.events([ev("two")])
        #expect(s.to(a) == ["channel ⟨two⏎⟩", "flush"])
        s.gone(a)
        #expect(s.machine.clientCount == 1 && s.machine.knownClients == 1)
        s.wrote(a, 3, ok: false)
        s.wrote(a, 4, ok: false)
        #expect(s.last.isEmpty, "no action and no bug for a client already gone")
        s.events([ev("three")])
        #expect(s.to(a).isEmpty)
        #expect(s.to(b) == ["send ⟨three⏎⟩"])
        #expect(!s.log.contains { $0.hasPrefix("log-error") })
    }

    /// Shutdown's last lines to a client whose socket is full: the rest of
    /// the short send is in its channel, ahead of the final close.
    @Test func aShortSendToAClosingClientIsStillCountedUntilWritten() {
        var s = Script()
        let a = s.connect()
        s.run { $0.shutdownRequested(into: &$1) }
        s.run { $0.inputStopped([ev("ended", essential: true)], into: &$1) }
        #expect(s.to(a) == ["send ⟨ended⏎⟩", "last"])
        #expect(s.machine.phase(of: a) == .closing)
        s.short(a, "ded\n")
        #expect(s.machine.writeMode(of: a) == .channel(writes: 1, bytes: 4))
        s.wrote(a, 4)
        #expect(s.last.isEmpty && s.machine.writeMode(of: a) == .direct)
        #expect(!s.log.contains { $0.hasPrefix("log-error") })
    }

    @Test func maxClientsRefusesWithoutASlotAndAGoneClientFreesOne() {
        var s = Script(.init(maxClients: 2, transitions: ["back"]))
        let a = s.connect()
        s.connect()
        guard case .refuse(let line?, full: true) = s.arrive(.unixSocket) else {
            Issue.record("not refused")
            return
        }
        #expect(String(buffer: line).contains("too-many-clients"))
        #expect(s.machine.clientCount == 2 && s.machine.knownClients == 2, "a refusal holds nothing")
        s.gone(a)
        guard case .admit = s.arrive(.unixSocket) else {
            Issue.record("a slot was not freed")
            return
        }
    }

    /// A client that connects and closes before its `hello` (or while it is
    /// written): a thousand of them leave no slot taken.
    @Test func connectAndCloseBeforeHelloLeavesNoSlotTaken() {
        var s = Script(.init(maxClients: 3, transitions: ["back"]))
        for _ in 0..<1000 {
            guard case .admit(let id) = s.arrive(.unixSocket) else {
                Issue.record("refused after \(s.machine.clientCount) clients")
                return
            }
            if id.number % 2 == 0 {
                s.gone(id)   // before its channel was even active
            } else {
                s.run { $0.clientReady(id, peer: nil, hello: ByteBuffer(string: "H\n"), into: &$1) }
                s.short(id, "H\n")          // the peer had already gone: nothing written
                s.wrote(id, 2, ok: false)   // the channel's write fails: it closes
                #expect(s.to(id) == ["close"])
                s.gone(id)
            }
        }
        #expect(s.machine.clientCount == 0 && s.machine.knownClients == 0)
        #expect(!s.log.contains { $0.hasPrefix("log-error") }, "no input was out of place")
    }

    /// A WebSocket peer whose user the executor could not establish (not on
    /// loopback, or not found in the kernel's table) may read and ping, not
    /// command; the same transport with a known uid is ruled as any client.
    @Test func aWebSocketPeerOfUnknownUserMaySubscribeButNotCommand() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        guard case .admit(let unknown) = s.arrive(.webSocket),
              case .admit(let known) = s.arrive(.webSocket) else {
            Issue.record("not admitted")
            return
        }
        s.run { $0.clientReady(unknown, peer: nil, hello: ByteBuffer(string: "H\n"), into: &$1) }
        s.run { $0.clientReady(known, peer: PeerCredentials(pid: 0, uid: 1000, gid: 1000), hello: ByteBuffer(string: "H\n"), into: &$1) }
        s.say(unknown, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        #expect(s.to(unknown).first?.contains("\"code\":\"forbidden\"") == true)
        #expect(s.to(unknown).first?.contains("cannot tell which user") == true)
        #expect(s.last.contains { $0.hasPrefix("log-notice refused 'drive' from client \(unknown.number) (websocket)") }, "\(s.last)")
        #expect(s.request == nil)
        s.say(unknown, "{\"cmd\":\"ping\"}\n")
        // A WebSocket client's lines take the one write path too (its
        // channel frames each line): one `send` a batch while caught up.
        #expect(s.to(unknown).first == "send ⟨{\"type\":\"pong\"}⏎⟩")
        s.events([ev("E1")])
        #expect(s.to(unknown) == ["send ⟨E1⏎⟩"], "an event too: \(s.to(unknown))")
        s.say(known, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        #expect(s.request?.client == known, "an allowed uid commands over WebSocket too")
    }

    @Test func stateChangingCommandsNeedPermissionOthersDoNot() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: [50]), transitions: ["back"]))
        let stranger = s.connect(uid: 4242), friend = s.connect(uid: 1000)
        s.say(stranger, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        #expect(s.to(stranger).first?.contains("\"code\":\"forbidden\"") == true)
        #expect(s.request == nil)
        #expect(s.last.contains { $0.hasPrefix("log-notice refused 'drive'") })
        s.say(stranger, "{\"cmd\":\"ping\"}\n")
        #expect(s.to(stranger).first == "send ⟨{\"type\":\"pong\"}⏎⟩")
        s.say(friend, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        #expect(s.request?.command == .drive(progress: 0.5))
    }

    /// `clock` is answered by the executor (it reads the clock); `frames`
    /// goes to it to be joined, answered only when it has an id; anyone may send either.
    @Test func clockAndFramesGoToTheExecutor() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        let stranger = s.connect(uid: 4242)
        s.say(stranger, "{\"cmd\":\"clock\",\"id\":1}\n")
        #expect(s.last.first == "clock \(stranger.number)")
        s.say(stranger, "{\"cmd\":\"frames\",\"frames\":[[7,12.5],[8,12.52]]}\n")
        #expect(s.last.first == "frames \(stranger.number) unix 7@12.5,8@12.52" && !s.last.contains { $0.hasPrefix("send") })
        s.say(stranger, "{\"cmd\":\"frames\",\"frames\":[[9,12.54]],\"id\":\"f\"}\n")
        #expect(s.last.first == "frames \(stranger.number) unix 9@12.54")
        #expect(s.to(stranger).contains("send ⟨{\"type\":\"ok\",\"cmd\":\"frames\",\"id\":\"f\"}⏎⟩"), "\(s.last)")
        s.say(stranger, "{\"cmd\":\"frames\",\"frames\":[[0,1]]}\n")
        #expect(s.to(stranger).first?.contains("\"code\":\"bad-field\"") == true, "seq 0 is no event's")
    }

    /// `run` to a snap point reaches the engine as one (by index or by
    /// progress).
    @Test func runToASnapPointIsPerformedAsOne() {
        var s = Script(.init(transitions: ["carousel"]))
        let id = s.connect()
        s.say(id, "{\"cmd\":\"run\",\"transition\":\"carousel\",\"index\":2}\n")
        #expect(s.request?.command == .run(.point(2)) && s.request?.transition == 0)
        s.say(id, "{\"cmd\":\"run\",\"transition\":\"carousel\",\"to\":0.5}\n")
        #expect(s.request?.command == .run(.progress(0.5)))
        s.say(id, "{\"cmd\":\"run\",\"transition\":\"carousel\",\"to\":\"finish\"}\n")
        #expect(s.request?.command == .run(.finish))
    }

    @Test func badLinesGetAnErrorAndTheConnectionStaysTooLongClosesIt() {
        var s = Script(.init(lineLimit: 100, transitions: ["back"]))
        let a = s.connect()
        s.say(a, "nope\n{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":1e308}\n  \n")
        #expect(s.to(a).count == 3)   // two errors, a flush; the blank line is skipped
        #expect(s.to(a)[0].contains("bad-json") && s.to(a)[1].contains("bad-field"))
        s.say(a, String(repeating: "x", count: 140))
        #expect(s.to(a).first?.hasPrefix("last") == true)
        #expect(s.to(a).first?.contains("line-too-long") == true)
        #expect(s.machine.phase(of: a) == .closing)
    }

    @Test func commandRepliesComeBeforeTheEventsTheyCaused() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(a, "{\"cmd\":\"run\",\"transition\":\"home\",\"to\":\"finish\",\"id\":\"r\"}\n")
        guard let request = s.request else { Issue.record("no request"); return }
        #expect(request.transition == 1 && request.command == .run(.finish))
        s.run { $0.commandCompleted(request, outcome: .done, events: [ev("began", 1, essential: true)], into: &$1) }
        #expect(s.to(a) == ["send ⟨{\"type\":\"ok\",\"cmd\":\"run\",\"id\":\"r\"}⏎⟩", "send ⟨began⏎⟩", "flush"])
        #expect(s.to(b) == ["send ⟨began⏎⟩"])
        s.run { $0.commandCompleted(request, outcome: .refused(code: .busy, message: "no"), events: [], into: &$1) }
        #expect(s.to(a).first?.contains("\"code\":\"busy\"") == true)
    }

    /// A client that drives a transition and goes away: the server asks the
    /// engine to end it (reason client-lost), and the others see that.
    @Test func aDrivingClientThatGoesAwayEndsItsTransition() {
        var s = Script()
        let driver = s.connect(), watcher = s.connect()
        s.say(driver, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.6}\n")
        let drive = s.request!
        s.run { $0.commandCompleted(drive, outcome: .done, events: [ev("began", essential: true)], into: &$1) }
        #expect(s.machine.driver(of: 0) == driver)
        s.gone(driver)
        #expect(s.request == EngineRequest(client: nil, command: .driverLost, transition: 0, name: "cancel", id: nil))
        let lost = s.request!
        s.run { $0.commandCompleted(lost, outcome: .done, events: [ev("ended", essential: true)], into: &$1) }
        #expect(s.to(watcher) == ["send ⟨ended⏎⟩"])
        #expect(s.machine.driver(of: 0) == nil)
    }

    @Test func aReleasedTransitionIsNoLongerTheClientsToEnd() {
        var s = Script()
        let driver = s.connect()
        s.say(driver, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.6}\n")
        s.run { [r = s.request!] in $0.commandCompleted(r, outcome: .done, events: [], into: &$1) }
        s.say(driver, "{\"cmd\":\"release\",\"transition\":\"back\"}\n")
        s.run { [r = s.request!] in $0.commandCompleted(r, outcome: .done, events: [], into: &$1) }
        s.gone(driver)
        #expect(s.request == nil)
    }

    @Test func shutdownEndsWhatIsInFlightThenClosesEveryClientThenRemovesTheSocket() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        // b has fallen behind: a line waits in its channel, another in its outbox.
        s.events([ev("x")])
        s.short(b, "x\n")
        s.run { $0.shutdownRequested(into: &$1) }
        #expect(s.last == ["stop-accepting", "stop-input"])
        #expect(s.machine.phase == .shuttingDown)
        s.run { $0.inputStopped([ev("ended", essential: true), ev("cancelled", essential: true)], into: &$1) }
        #expect(s.to(a) == ["send ⟨ended⏎cancelled⏎⟩", "last"])
        #expect(s.to(b) == ["channel ⟨ended⏎⟩", "channel ⟨cancelled⏎⟩", "flush", "last"])
        #expect(!s.last.contains("remove-socket-file"))
        s.gone(a)
        s.run { $0.acceptorStopped(into: &$1) }
        #expect(!s.last.contains("closed"), "b is still there")
        s.gone(b)
        #expect(s.last.suffix(2) == ["remove-socket-file", "closed"])
        #expect(s.machine.phase == .closed)
        #expect(s.arrive(.unixSocket) == .refuse(nil, full: false))
    }

    @Test func shutdownDuringStartUpStopsTheAcceptorAsSoonAsItIsThere() {
        var s = Script(serving: false)
        s.run { $0.shutdownRequested(into: &$1) }
        #expect(s.last.isEmpty)
        s.run { $0.listening(into: &$1) }
        #expect(s.last == ["stop-accepting"])
        s.run { $0.acceptorStopped(into: &$1) }
        #expect(s.last == ["remove-socket-file", "closed"])
    }

    @Test func aSocketPassedByTheServiceManagerIsNeverRemoved() {
        var s = Script(.init(transitions: ["back"], ownsSocketFile: false))
        let a = s.connect()
        s.run { $0.shutdownRequested(into: &$1) }
        s.run { $0.inputStopped([], into: &$1) }
        s.gone(a)
        s.run { $0.acceptorStopped(into: &$1) }
        #expect(s.last == ["closed"])
        #expect(s.machine.phase == .closed)
    }

    // MARK: Reload

    private func reloaded(_ transitions: [String], moved: [Int?] = [nil, nil], maxClients: Int = 256,
                          uids: [UInt32] = []) -> ServerStateMachine.Reloaded {
        .init(transitions: transitions, moved: moved, maxClients: maxClients, backlogLimit: 1 << 20,
              policy: AccessPolicy(uids: uids, gids: []), hello: ByteBuffer(string: "H2\n"))
    }

    @Test func sighupAsksTheExecutorToReloadOnlyWhileServing() {
        var s = Script()
        s.run { $0.reloadRequested(into: &$1) }
        #expect(s.last == ["reload -"])
        s.run { $0.shutdownRequested(into: &$1) }
        s.run { $0.reloadRequested(into: &$1) }
        #expect(s.last.count == 1 && s.last[0].hasPrefix("log-notice reload ignored while shutting-down"))
    }

    @Test func reloadsAreReadOneAtATimeEachForItsOwnRequester() {
        var s = Script()
        let a = s.connect(uid: 0), b = s.connect(uid: 0)
        s.say(a, "{\"cmd\":\"reload\",\"id\":1}\n")
        #expect(s.last.contains("reload 1"))
        // While that config is read, the next ones wait (signals as one).
        s.say(b, "{\"cmd\":\"reload\",\"id\":2}\n")
        s.run { $0.reloadRequested(into: &$1) }
        s.run { $0.reloadRequested(into: &$1) }
        #expect(!s.last.contains { $0.hasPrefix("reload") })
        s.run { $0.reloadFailed("bad", by: a, id: .number(1), into: &$1) }
        #expect(s.last.contains("reload 2"))
        s.run { $0.reloaded(reloaded(["back", "home"]), by: b, id: .number(2), into: &$1) }
        #expect(s.last.contains("reload -"))
        s.run { $0.reloaded(reloaded(["back", "home"]), by: nil, id: nil, into: &$1) }
        #expect(!s.last.contains { $0.hasPrefix("reload") })
        // Nothing waits now: the next is read at once.
        s.run { $0.reloadRequested(into: &$1) }
        #expect(s.last == ["reload -"])
    }

    @Test func theReloadCommandIsForAllowedPeersOnly() {
        var s = Script()
        let root = s.connect(uid: 0), other = s.connect(uid: 1234)
        s.say(root, "{\"cmd\":\"reload\",\"id\":7}\n")
        #expect(s.last.contains("reload 1"))
        s.say(other, "{\"cmd\":\"reload\"}\n")
        #expect(!s.last.contains { $0.hasPrefix("reload") })
        #expect(s.to(other).first?.contains("\"code\":\"forbidden\"") == true)
    }

    @Test func aReloadGivesEveryClientANewHelloAndTheRequesterOk() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.run { $0.reloaded(reloaded(["home", "back", "menu"]), by: a, id: .number(7), into: &$1) }
        #expect(s.to(a) == ["send ⟨H2⏎⟩", "send ⟨{\"type\":\"ok\",\"cmd\":\"reload\",\"id\":7}⏎⟩", "flush"])
        #expect(s.to(b) == ["send ⟨H2⏎⟩"])
        #expect(s.machine.settings.transitions == ["home", "back", "menu"])
        // Commands find transitions by their new names.
        s.say(a, "{\"cmd\":\"run\",\"transition\":\"menu\",\"to\":\"finish\"}\n")
        #expect(s.request?.transition == 2)
    }

    @Test func filtersAndDriversFollowTheirTransitionsByName() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(b, "{\"cmd\":\"subscribe\",\"transitions\":[\"home\"]}\n")
        s.say(a, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        let drive = s.request!
        s.run { $0.commandCompleted(drive, outcome: .done, events: [], into: &$1) }
        #expect(s.machine.driver(of: 0) == a)
        // "back" moves from 0 to 1, "home" from 1 to 0; back's drive is in flight (kept at 2).
        s.run { $0.reloaded(reloaded(["home", "back"], moved: [2, nil]), by: nil, id: nil, into: &$1) }
        #expect(s.machine.driver(of: 1) == a && s.machine.driver(of: 0) == nil)
        s.events([ev("new-home", 0), ev("back", 1)])
        #expect(s.to(b) == ["send ⟨new-home⏎⟩"])
        // A removed transition's driver follows the one in flight.
        s.run { $0.reloaded(reloaded(["menu"], moved: [nil, 1]), by: nil, id: nil, into: &$1) }
        #expect(s.machine.driver(of: 1) == a)
        s.gone(a)
        #expect(s.request?.command == .driverLost && s.request?.transition == 1)
    }

    /// Issue 26: a reload that dropped or renamed a transition a client was
    /// driving left it interacting for good (its driver got
    /// `unknown-transition`), and a subscriber of its name never saw it end.
    /// The machine ends each orphan at the reload (`orphaned`, after every
    /// client's new `hello`), and its subscribers follow it by index.
    @Test func aReloadEndsAnOrphanAndItsSubscribersSeeItEnd() {
        var s = Script()
        let driver = s.connect(), subscriber = s.connect(), homeOnly = s.connect()
        s.say(subscriber, "{\"cmd\":\"subscribe\",\"transitions\":[\"back\"]}\n")
        s.say(homeOnly, "{\"cmd\":\"subscribe\",\"transitions\":[\"home\"]}\n")
        s.say(driver, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        let drive = s.request!
        s.run { $0.commandCompleted(drive, outcome: .done, events: [], into: &$1) }
        // "back" is renamed "forward": its drive goes on as transition 2, with no namesake.
        s.run { $0.reloaded(.init(transitions: ["forward", "home"], moved: [2, nil], orphans: [2], maxClients: 256,
                                  backlogLimit: 1 << 20, policy: AccessPolicy(uids: [], gids: []),
                                  hello: ByteBuffer(string: "H2\n")), by: nil, id: nil, into: &$1) }
        #expect(s.request == EngineRequest(client: nil, command: .orphaned, transition: 2, name: "cancel", id: nil))
        let sends = s.last.firstIndex { $0.hasPrefix("send") }!, perform = s.last.firstIndex { $0.hasPrefix("perform") }!
        #expect(sends < perform, "every client has the new hello first")
        #expect(s.last.contains { $0.contains("back is in flight and the new config has no transition of its name") })
        let orphaned = s.request!
        s.run { $0.commandCompleted(orphaned, outcome: .done,
                                    events: [ev("ended-reload", 2, essential: true), ev("anim", 2)], into: &$1) }
        #expect(s.to(subscriber) == ["send ⟨ended-reload⏎anim⏎⟩"], "back's subscriber sees it end")
        #expect(s.to(driver) == ["send ⟨ended-reload⏎anim⏎⟩"])
        #expect(s.to(homeOnly) == [])
        #expect(s.machine.driver(of: 2) == nil, "no one drives it now")
        s.gone(driver)
        #expect(s.request == nil, "its driver leaving cancels nothing more")
        // A transition the new config keeps is no orphan: it finishes under the old one.
        s.events([ev("cancelled", 2, essential: true)])
        #expect(s.to(subscriber) == ["send ⟨cancelled⏎⟩"])
    }

    @Test func aKeptTransitionInFlightIsNotEndedByTheReload() {
        var s = Script()
        let a = s.connect()
        s.say(a, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        let drive = s.request!
        s.run { $0.commandCompleted(drive, outcome: .done, events: [], into: &$1) }
        s.run { $0.reloaded(reloaded(["back", "home"], moved: [2, nil]), by: nil, id: nil, into: &$1) }
        #expect(s.request == nil)
        #expect(s.machine.driver(of: 0) == a, "its driver still drives it by name")
    }

    /// Each error says which command it answers: `cmd`, and the id.
    @Test func errorRepliesNameTheirCommand() {
        var s = Script(.init(policy: AccessPolicy(uids: [], gids: []), transitions: ["back"]))
        let root = s.connect(uid: 0), stranger = s.connect(uid: 4242)
        s.say(stranger, "{\"cmd\":\"cancel\",\"transition\":\"back\",\"id\":5}\n")
        #expect(s.to(stranger).first?.contains("\"code\":\"forbidden\"") == true)
        #expect(s.to(stranger).first?.contains("\"cmd\":\"cancel\",\"id\":5}") == true, "\(s.to(stranger))")
        s.say(root, "{\"cmd\":\"run\",\"transition\":\"nope\",\"to\":\"finish\",\"id\":\"r\"}\n")
        #expect(s.to(root).first?.contains("\"cmd\":\"run\",\"id\":\"r\"}") == true, "\(s.to(root))")
        s.say(root, "{\"cmd\":\"release\",\"transition\":\"back\",\"id\":6}\n")
        let release = s.request!
        s.run { $0.commandCompleted(release, outcome: .refused(code: .notActive, message: "no"), events: [], into: &$1) }
        #expect(s.to(root).first?.contains("\"code\":\"not-active\",\"message\":\"no\",\"cmd\":\"release\",\"id\":6}") == true,
                "\(s.to(root))")
        s.say(root, "{\"cmd\":\"ping\",\"id\":9007199254740993}\n")
        #expect(s.to(root).first?.contains("\"cmd\":\"ping\"}") == true, "\(s.to(root))")
        #expect(s.to(root).first?.contains("bad-field") == true)
    }

    @Test func aBrokenConfigKeepsTheOldOneAndTellsTheRequesterWhere() {
        var s = Script()
        let a = s.connect()
        s.run { $0.reloadFailed("k.toml:3: key 'gesture': expected one of …", by: a, id: .text("r"), into: &$1) }
        #expect(s.last.first?.hasPrefix("log-error reload: k.toml:3: key 'gesture'") == true)
        #expect(s.to(a).first?.contains("\"code\":\"bad-config\"") == true)
        #expect(s.to(a).first?.contains("k.toml:3") == true)
        #expect(s.to(a).first?.contains("\"id\":\"r\"") == true)
        #expect(s.machine.settings.transitions == ["back", "home"])
    }

    @Test func aReloadAppliesTheNewLimitsAndAccess() {
        var s = Script()
        let other = s.connect(uid: 1234)
        s.run { $0.reloaded(reloaded(["back", "home"], maxClients: 1, uids: [1234]), by: nil, id: nil, into: &$1) }
        s.say(other, "{\"cmd\":\"run\",\"transition\":\"back\",\"to\":\"finish\"}\n")
        #expect(s.request != nil, "uid 1234 is allowed now")
        guard case .refuse(_, full: true) = s.arrive(.unixSocket) else {
            Issue.record("max_clients 1 did not apply")
            return
        }
    }

    @Test func aReloadAppliesTheWebSocketAndPerPeerLimitsToo() {
        var s = Script()
        #expect(s.machine.settings.maxWebSocketClients == 64 && s.machine.settings.maxClientsPerPeer == nil)
        s.run { $0.reloaded(.init(transitions: ["back", "home"], moved: [nil, nil], maxClients: 256, maxWebSocketClients: 1,
                                  maxClientsPerPeer: 2, backlogLimit: 1 << 20, policy: AccessPolicy(uids: [], gids: []),
                                  hello: ByteBuffer(string: "H2\n")), by: nil, id: nil, into: &$1) }
        guard case .admit = s.arrive(.webSocket), case .refuse(_, full: true) = s.arrive(.webSocket) else {
            Issue.record("max_websocket_clients 1 did not apply")
            return
        }
        s.connect(identity: .uid(7))
        s.connect(identity: .uid(7))
        guard case .refuse(_, full: true) = s.arrive(.unixSocket, from: .uid(7)) else {
            Issue.record("max_clients_per_peer 2 did not apply")
            return
        }
    }

    @Test func theEndOfAReplayClosesOnlyWhenAsked() {
        var held = Script()
        held.run { $0.inputFinished(into: &$1) }
        #expect(held.last == ["log-info the input has ended; serving until stopped"])
        var once = Script(.init(closeWhenInputEnds: true, transitions: ["back"]))
        once.run { $0.inputFinished(into: &$1) }
        #expect(once.last.contains("stop-input"))
    }

    @Test func anInputOutOfPlaceIsLoggedAsABugAndChangesNothing() {
        var s = Script()
        s.run { $0.inputStopped([], into: &$1) }
        #expect(s.last.count == 1 && s.last[0].hasPrefix("log-error BUG"))
        #expect(s.machine.phase == .serving)
        s.gone(ClientID(77))
        #expect(s.last.first?.hasPrefix("log-error BUG") == true)
        s.run { $0.sendFellShort(ClientID(78), bytes: 1, into: &$1) }
        #expect(s.last.first?.hasPrefix("log-error BUG") == true)
    }
}

// MARK: Statistics (what the metrics read)

@Suite("Server state machine: statistics")
struct ServerStatisticsTests {
    private func commands(_ s: Script) -> [String: Int] {
        var out: [String: Int] = [:]
        for (key, n) in s.machine.statistics.commands { out["\(key.name) \(key.result)"] = n }
        return out
    }

    @Test func eachCommandIsCountedByNameAndResultAndALineThatIsNoneAsInvalid() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        let stranger = s.connect(uid: 4242), friend = s.connect(uid: 1000)
        s.say(stranger, "{\"cmd\":\"ping\"}\n{\"cmd\":\"ping\"}\n{\"cmd\":\"subscribe\",\"transitions\":[\"nope\"]}\n")
        s.say(stranger, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")   // forbidden
        s.say(stranger, "nope\n{\"cmd\":\"fly\"}\n")
        s.say(friend, "{\"cmd\":\"cancel\",\"transition\":\"nope\"}\n")
        s.say(friend, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}\n")
        guard let request = s.request else { Issue.record("no request"); return }
        s.run { $0.commandCompleted(request, outcome: .done, events: [], into: &$1) }
        s.say(friend, "{\"cmd\":\"release\",\"transition\":\"back\"}\n")
        guard let release = s.request else { Issue.record("no request"); return }
        s.run { $0.commandCompleted(release, outcome: .refused(code: .notActive, message: "no"), events: [], into: &$1) }
        s.say(friend, "{\"cmd\":\"state\"}\n")
        s.run { $0.answered(friend, command: "state", result: nil, ByteBuffer(string: "S\n"), into: &$1) }
        s.say(friend, "{\"cmd\":\"dump\"}\n")
        s.run { $0.answered(friend, command: "dump", result: .unavailable, ByteBuffer(string: "E\n"), into: &$1) }
        #expect(commands(s) == [
            "ping ok": 2, "subscribe unknown-transition": 1, "drive forbidden": 1,
            "invalid bad-json": 1, "invalid unknown-command": 1, "cancel unknown-transition": 1,
            "drive ok": 1, "release not-active": 1, "state ok": 1, "dump unavailable": 1,
        ])
        #expect(s.to(friend).first == "send ⟨E⏎⟩", "the answer is still sent")
    }

    @Test func anEndDecidedWithoutAClientIsNotACommand() {
        var s = Script()
        let a = s.connect()
        s.say(a, "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.3}\n")
        guard let drive = s.request else { Issue.record("no request"); return }
        s.run { $0.commandCompleted(drive, outcome: .done, events: [], into: &$1) }
        s.gone(a)
        guard let lost = s.request else { Issue.record("no driver-lost request"); return }
        s.run { $0.commandCompleted(lost, outcome: .done, events: [], into: &$1) }
        #expect(commands(s) == ["drive ok": 1])
    }

    @Test func connectionsAreCountedPerTransportAndRefusalsWhenFull() {
        var s = Script(.init(maxClients: 1, maxWebSocketClients: 1, transitions: ["back"]))
        let a = s.connect()
        guard case .admit(let web) = s.arrive(.webSocket) else { Issue.record("not admitted"); return }
        _ = s.arrive(.unixSocket)
        _ = s.arrive(.webSocket)
        #expect(s.machine.statistics.admitted == [.unixSocket: 1, .webSocket: 1])
        #expect(s.machine.statistics.refusedFull == 2)
        #expect(s.machine.clientCount(on: .unixSocket) == 1 && s.machine.clientCount(on: .webSocket) == 1)
        s.gone(a)
        s.gone(web)
        #expect(s.machine.clientCount(on: .unixSocket) == 0 && s.machine.clientCount(on: .webSocket) == 0)
        #expect(s.machine.statistics.admitted == [.unixSocket: 1, .webSocket: 1], "admissions stay counted")
    }

    /// Issue 26: any local user may connect to the loopback WebSocket, and
    /// it counted against `max_clients`: one user holding every slot there
    /// left the kiosk UI on the Unix socket with `too-many-clients`. Each
    /// transport has a limit of its own now.
    @Test func webSocketClientsNeverTakeTheUnixSocketsSlots() {
        var s = Script(.init(maxClients: 2, maxWebSocketClients: 64, maxClientsPerPeer: 1000, transitions: ["back"]))
        var webClients = 0
        while case .admit = s.arrive(.webSocket, from: nil) { webClients += 1 }
        #expect(webClients == 64, "the WebSocket's own limit")
        #expect(s.last.contains { $0.contains("max_websocket_clients (64)") }, "\(s.last)")
        let kiosk = s.connect(uid: 1000, identity: .uid(1000))
        #expect(s.to(kiosk) == ["send ⟨H⏎⟩"], "the Unix socket still has its every slot")
        s.connect(uid: 1000, identity: .uid(1000))
        guard case .refuse(let line?, full: true) = s.arrive(.unixSocket) else {
            Issue.record("max_clients did not apply to the Unix socket")
            return
        }
        #expect(String(buffer: line).contains("max_clients)"))
    }

    /// One peer (a uid, or an address whose uid is not known) holds at
    /// most `perPeerLimit` of a transport's slots: all but a quarter of its
    /// limit unless `max_clients_per_peer` says otherwise.
    @Test func onePeerCannotTakeATransportsEverySlot() {
        var s = Script(.init(maxClients: 8, maxWebSocketClients: 8, transitions: ["back"]))
        #expect(s.machine.settings.perPeerLimit(on: .unixSocket) == 6)
        for _ in 0..<6 { s.connect(uid: 1000, identity: .uid(1000)) }
        guard case .refuse(let line?, full: true) = s.arrive(.unixSocket, from: .uid(1000)) else {
            Issue.record("a seventh of one uid was admitted")
            return
        }
        #expect(String(buffer: line).contains("too-many-clients") && String(buffer: line).contains("max_clients_per_peer"))
        #expect(s.last.contains { $0.contains("from uid 1000") && $0.contains("max_clients_per_peer") }, "\(s.last)")
        guard case .logRefusal(.warning, .uid(1000)?, _) = s.actions.first else {
            Issue.record("the refusal is not logged by its peer: \(s.actions)")
            return
        }
        let other = s.connect(uid: 1001, identity: .uid(1001))
        #expect(s.to(other) == ["send ⟨H⏎⟩"], "another uid still gets in")
        #expect(s.machine.statistics.refusedFull == 1)
    }

    /// A WebSocket peer is told only once its connection is set up (its uid
    /// from the kernel's socket table, else its address): over its limit,
    /// it gets `too-many-clients` instead of `hello` and is closed.
    @Test func aWebSocketPeerOverItsLimitIsRefusedWhenItIsTold() {
        var s = Script(.init(maxClientsPerPeer: 2, transitions: ["back"]))
        let local = PeerIdentity.address([127, 0, 0, 1])
        var ids: [ClientID] = []
        for _ in 0..<3 {
            guard case .admit(let id) = s.arrive(.webSocket) else { Issue.record("not admitted"); return }
            s.run { $0.clientReady(id, peer: nil, identity: local, hello: ByteBuffer(string: "H\n"), into: &$1) }
            ids.append(id)
        }
        #expect(s.to(ids[0]) == [] && s.machine.phase(of: ids[0]) == .open)
        #expect(s.machine.phase(of: ids[1]) == .open)
        #expect(s.machine.phase(of: ids[2]) == .closing)
        #expect(s.to(ids[2]).count == 1 && s.to(ids[2])[0].hasPrefix("last") && s.to(ids[2])[0].contains("too-many-clients"))
        #expect(s.last.contains { $0.contains("from address 127.0.0.1") }, "\(s.last)")
        // A uid the kernel told is another peer than the address.
        guard case .admit(let known) = s.arrive(.webSocket) else { Issue.record("not admitted"); return }
        s.run { $0.clientReady(known, peer: PeerCredentials(pid: 0, uid: 1000, gid: 1000), identity: .uid(1000),
                               hello: ByteBuffer(string: "H\n"), into: &$1) }
        #expect(s.machine.phase(of: known) == .open)
        s.gone(ids[2])
        s.gone(ids[0])
        guard case .admit(let again) = s.arrive(.webSocket) else { Issue.record("not admitted"); return }
        s.run { $0.clientReady(again, peer: nil, identity: local, hello: ByteBuffer(string: "H\n"), into: &$1) }
        #expect(s.machine.phase(of: again) == .open, "a slot of its own was freed")
    }

    @Test func coalescedLinesAndBacklogDisconnectsAreCounted() {
        var s = Script(.init(backlogLimit: 40, highWater: 1, transitions: ["back"]))
        let a = s.connect()
        s.events([ev("x")])
        s.short(a, "x\n")
        s.events([ev("c1")])
        s.events([ev("c2")])
        s.events([ev("c3")])
        #expect(s.machine.statistics.coalescedLines == 2)
        #expect(s.machine.statistics.backlogDisconnects == 0)
        for i in 0..<6 { s.events([ev("began\(i)", essential: true)]) }
        #expect(s.machine.phase(of: a) == .closing)
        #expect(s.machine.statistics.backlogDisconnects == 1)
    }

    @Test func aReloadAskedForIsACommandASignalsIsNot() {
        var s = Script()
        let a = s.connect()
        s.run { $0.reloadFailed("bad", by: nil, id: nil, into: &$1) }
        s.run { $0.reloadFailed("bad", by: a, id: nil, into: &$1) }
        #expect(commands(s) == ["reload bad-config": 1])
    }
}

@Suite("Server state machine: refusals in the log")
struct RefusalLogTests {
    /// Every refusal is answered and counted; its log line goes out as a
    /// `logRefusal` of its peer, for the executor's `RefusalLog`.
    @Test func aRefusedCommandIsAnsweredAndLoggedByItsPeer() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        let stranger = s.connect(uid: 4242, identity: .uid(4242))
        for _ in 0..<50 {
            s.say(stranger, "{\"cmd\":\"cancel\",\"transition\":\"back\"}\n")
            #expect(s.to(stranger).first?.contains("\"code\":\"forbidden\"") == true, "every refusal is still answered")
            let refusals = s.actions.filter { if case .logRefusal(.notice, .uid(4242)?, _) = $0 { return true } else { return false } }
            #expect(refusals.count == 1)
        }
        #expect(s.machine.statistics.commands[ServerStatistics.Command(name: "cancel", result: "forbidden")] == 50)
    }

    /// Issue 26: the limit was per connection (5 lines and a note each), so
    /// reconnecting 20,000 times wrote 120,000 lines in 3 s. Now it is per
    /// peer and in all: at most 200 lines a minute, whoever reconnects.
    @Test func reconnectingThousandsOfTimesLogsAtMostTwoHundredLinesAMinute() {
        var s = Script(.init(lineLimit: 100, policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        var log = RefusalLog()   // the executor's part, at the time each refusal came
        var lines = 0, refusals = 0
        var now: Int64 = 1_000_000_000
        for k in 0..<20_000 {
            let uid = 4242 + UInt32(k % 3)
            let stranger = s.connect(uid: uid, identity: .uid(uid))
            var actions: [ServerStateMachine.Action] = []
            for _ in 0..<6 {
                s.say(stranger, "{\"cmd\":\"cancel\",\"transition\":\"back\"}\n")
                actions += s.actions
            }
            s.say(stranger, String(repeating: "x", count: 140))   // and a line too long
            actions += s.actions
            s.gone(stranger)
            for case .logRefusal(_, let peer, _) in actions {
                refusals += 1
                switch log.note(peer, at: now) {
                case .suppress: break
                case .log(let suppressed): lines += suppressed > 0 ? 2 : 1
                }
            }
            now += 150_000   // 20,000 connections in 3 s
        }
        #expect(refusals == 140_000, "every refusal is still a refusal")
        #expect(lines <= 200, "\(lines) lines")
        #expect(lines >= 3 * log.perPeer, "each uid got its lines: \(lines)")
        s.log.removeAll()
    }
}

@Suite("Refusal log: per peer and in all, a minute at a time")
struct RefusalLogRuleTests {
    let second: Int64 = 1_000_000_000

    @Test func aPeerGetsItsLinesThenIsCountedThenASummarySaysHowMany() {
        var log = RefusalLog(total: 200, perPeer: 3)
        var verdicts: [RefusalLog.Verdict] = []
        for k in 0..<10 { verdicts.append(log.note(.uid(1000), at: Int64(k) * second)) }
        #expect(verdicts.prefix(3).allSatisfy { $0 == .log(suppressedBefore: 0) })
        #expect(verdicts.dropFirst(3).allSatisfy { $0 == .suppress })
        // Another peer is not held back by the first; it says what was not logged.
        #expect(log.note(.address([127, 0, 0, 1]), at: 11 * second) == .log(suppressedBefore: 7))
        #expect(log.note(.address([127, 0, 0, 1]), at: 12 * second) == .log(suppressedBefore: 0))
        // A minute after its first line, the first peer has room again.
        #expect(log.note(.uid(1000), at: 59 * second) == .suppress)
        #expect(log.note(.uid(1000), at: 60 * second) == .log(suppressedBefore: 1))
        #expect(log.summary(7).hasPrefix("7 refusals were not logged"))
    }

    @Test func atMostTheTotalInAnyMinuteSummariesIncluded() {
        var log = RefusalLog(total: 200, perPeer: 10)
        var stamps: [Int64] = []
        // 100,000 refusals from 50,000 addresses over 5 minutes.
        for k in 0..<100_000 {
            let now = Int64(k) * 3_000_000   // every 3 ms
            let peer = PeerIdentity.address([10, UInt8(k / 65_536 % 256), UInt8(k / 256 % 256), UInt8(k % 256)])
            switch log.note(k % 2 == 0 ? peer : nil, at: now) {
            case .suppress: break
            case .log(let suppressed):
                if suppressed > 0 { stamps.append(now) }
                stamps.append(now)
            }
        }
        // Every window of a minute holds at most 200 lines.
        var start = 0
        for end in stamps.indices {
            while stamps[end] - stamps[start] >= 60 * second { start += 1 }
            #expect(end - start + 1 <= 200)
        }
        #expect(stamps.count >= 990, "and it does log, \(stamps.count) lines")
    }

    @Test func aMillionRefusalsAtOnceLogTwoHundredThenTheCountAMinuteLater() {
        var log = RefusalLog()
        var logged = 0
        for _ in 0..<1_000_000 {
            if case .log = log.note(nil, at: 0) { logged += 1 }
        }
        #expect(logged == 200)
        #expect(log.note(nil, at: 59 * second) == .suppress)
        #expect(log.note(nil, at: 60 * second) == .log(suppressedBefore: 999_801))
    }

    /// A small limit keeps a quarter, rounded down, for other peers.
    @Test func theDefaultPerPeerLimitKeepsAQuarterForOthers() {
        let limits = [1, 2, 3, 4, 8, 64, 256].map {
            ServerStateMachine.Settings(maxClients: $0, transitions: []).perPeerLimit(on: .unixSocket)
        }
        #expect(limits == [1, 2, 3, 3, 6, 48, 192])
        #expect(ServerStateMachine.Settings(transitions: []).perPeerLimit(on: .webSocket) == 48)
        #expect(ServerStateMachine.Settings(maxClientsPerPeer: 5, transitions: []).perPeerLimit(on: .webSocket) == 5)
    }
}

@Suite("Exclusion regions (exclude)")
struct ExclusionCommandTests {
    /// `exclude` with these rectangles (JSON arrays), and an id.
    static func exclude(_ rects: String, id: Int = 1) -> String { "{\"cmd\":\"exclude\",\"rects\":\(rects),\"id\":\(id)}\n" }

    @Test func setReplaceAndClear() {
        var s = Script()
        let a = s.connect()
        s.say(a, Self.exclude("[[0,0.6,0.3,1]]"))
        #expect(s.last == ["exclusions 0.0,0.6,0.3,1.0", "send 1 ⟨{\"type\":\"ok\",\"cmd\":\"exclude\",\"id\":1}⏎⟩", "flush 1"],
                "the engine has them before the client hears ok")
        #expect(s.machine.exclusionsInForce == [ScreenRect(x0: 0, y0: 0.6, x1: 0.3, y1: 1)])
        s.say(a, Self.exclude("[[0.5,0.5,0.6,0.6],[0.7,0,0.8,0.1]]", id: 2))
        #expect(s.last.first == "exclusions 0.5,0.5,0.6,0.6 0.7,0.0,0.8,0.1", "the new list replaces the old")
        #expect(s.machine.exclusions(of: a)?.count == 2)
        // The same list again changes nothing in the engine.
        s.say(a, Self.exclude("[[0.5,0.5,0.6,0.6],[0.7,0,0.8,0.1]]", id: 3))
        #expect(!s.last.contains { $0.hasPrefix("exclusions") })
        #expect(s.to(a).first?.contains("\"type\":\"ok\"") == true)
        s.say(a, Self.exclude("[]", id: 4))
        #expect(s.last.first == "exclusions none")
        #expect(s.machine.exclusionsInForce.isEmpty)
        #expect(s.machine.statistics.commands[ServerStatistics.Command(name: "exclude", result: "ok")] == 4)
    }

    @Test func theRegionsInForceAreTheUnionOfEveryClientsAndGoWithTheirClient() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(a, Self.exclude("[[0.1,0.1,0.2,0.2]]"))
        s.say(b, Self.exclude("[[0.4,0.4,0.5,0.5],[0.1,0.1,0.2,0.2]]"))
        #expect(s.last.first == "exclusions 0.1,0.1,0.2,0.2 0.4,0.4,0.5,0.5", "a's, then b's, each once")
        s.gone(a)
        #expect(s.last.contains("exclusions 0.1,0.1,0.2,0.2 0.4,0.4,0.5,0.5") == false)
        #expect(s.machine.exclusionsInForce.count == 2, "b declared the shared one too")
        s.gone(b)
        #expect(s.last.contains("exclusions none"))
        #expect(s.machine.exclusionsInForce.isEmpty)
    }

    @Test func aClientsRegionsGoWhenItIsClosed() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(a, Self.exclude("[[0.1,0.1,0.2,0.2]]"))
        s.say(b, Self.exclude("[[0.4,0.4,0.5,0.5]]"))
        // a's channel fails: it is closing, and its regions go at once.
        s.events([ev("x")])
        s.short(a, "x\n")
        s.wrote(a, 2, ok: false)
        #expect(s.last.contains("close 1"))
        #expect(s.last.contains("exclusions 0.4,0.4,0.5,0.5"))
        s.gone(a)
        #expect(!s.last.contains { $0.hasPrefix("exclusions") }, "already gone")
    }

    @Test func overTheCapIsRefusedWholeNamingTheCapAndTheEdge() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(a, Self.exclude("[[0,0,0.2,0.3]]"))
        // 0…0.3 and 0.5…0.8 of the left edge: 0.6 > 0.5. The harmless
        // rectangle in the middle does not go in either.
        s.say(b, Self.exclude("[[0.4,0.4,0.5,0.5],[0.01,0.5,0.1,0.8]]", id: 9))
        #expect(!s.last.contains { $0.hasPrefix("exclusions") })
        let reply = s.to(b).first ?? ""
        #expect(reply.contains("\"code\":\"bad-field\""))
        #expect(reply.contains("max_edge_exclusion (0.5)"))
        #expect(reply.contains("cover 0.6 of the left edge"))
        #expect(reply.contains("\"cmd\":\"exclude\",\"id\":9"))
        #expect(s.machine.exclusions(of: b) == [])
        #expect(s.machine.exclusionsInForce == [ScreenRect(x0: 0, y0: 0, x1: 0.2, y1: 0.3)])
        #expect(s.machine.statistics.commands[ServerStatistics.Command(name: "exclude", result: "bad-field")] == 1)
        // Exactly the cap is allowed; a region away from every edge is not counted.
        s.say(b, Self.exclude("[[0.01,0.5,0.1,0.7],[0.3,0.3,0.7,0.7]]", id: 10))
        #expect(s.to(b).contains { $0.contains("\"type\":\"ok\"") })
        // The bottom edge has its own cap.
        s.say(b, Self.exclude("[[0.2,0.9,0.9,1]]", id: 11))
        #expect(s.to(b).first?.contains("of the bottom edge") == true)
    }

    @Test func theCapComesFromTheSettingsAndAReloadChangesIt() {
        var s = Script(.init(transitions: ["back"], exclusionCap: EdgeExclusionCap(fraction: 0.2)))
        let a = s.connect()
        s.say(a, Self.exclude("[[0,0,0.04,0.3]]"))
        #expect(s.to(a).first?.contains("max_edge_exclusion (0.2)") == true)
        s.run { $0.reloaded(ServerStateMachine.Reloaded(transitions: ["back"], moved: [nil], maxClients: 256, backlogLimit: 1 << 20,
                                                        policy: AccessPolicy(uids: [], gids: []), hello: ByteBuffer(string: "H2\n"),
                                                        exclusionCap: EdgeExclusionCap(fraction: 0.3)), by: nil, id: nil, into: &$1) }
        s.say(a, Self.exclude("[[0,0,0.04,0.3]]", id: 2))
        #expect(s.last.first == "exclusions 0.0,0.0,0.04,0.3")
        // The cap lowered below what is in force: clearing, and asking no more, still work.
        s.run { $0.reloaded(ServerStateMachine.Reloaded(transitions: ["back"], moved: [nil], maxClients: 256, backlogLimit: 1 << 20,
                                                        policy: AccessPolicy(uids: [], gids: []), hello: ByteBuffer(string: "H3\n"),
                                                        exclusionCap: EdgeExclusionCap(fraction: 0.1)), by: nil, id: nil, into: &$1) }
        s.say(a, Self.exclude("[[0,0,0.04,0.3],[0.5,0.5,0.6,0.6]]", id: 3))
        #expect(s.to(a).contains { $0.contains("\"type\":\"ok\"") })
        s.say(a, Self.exclude("[]", id: 4))
        #expect(s.last.first == "exclusions none")
    }

    @Test func forbiddenForAPeerThatMayNotChangeState() {
        var s = Script()
        let stranger = s.connect(uid: 1234)
        s.say(stranger, Self.exclude("[[0.1,0.1,0.2,0.2]]", id: 5))
        #expect(!s.last.contains { $0.hasPrefix("exclusions") })
        #expect(s.to(stranger).first?.contains("\"code\":\"forbidden\"") == true)
        #expect(s.to(stranger).first?.contains("\"cmd\":\"exclude\",\"id\":5") == true)
        #expect(s.machine.exclusionsInForce.isEmpty)
    }

    @Test func malformedRectanglesAreRefusedWithCmdAndId() {
        var s = Script()
        let a = s.connect()
        let cases: [(String, String)] = [
            ("[[0.3,0.1,0.2,0.2]]", "x0 < x1"),
            ("[[0.1,0.2,0.2,0.2]]", "x0 < x1 and y0 < y1"),
            ("[[0.1,0.1,1.2,0.2]]", "from 0 to 1"),
            ("[[-0.1,0.1,0.2,0.2]]", "from 0 to 1"),
            ("[[0.1,0.1,0.2]]", "'rects[0]' must be [x0, y0, x1, y1]"),
            ("[0.1,0.1,0.2,0.2]", "'rects[0]' must be [x0, y0, x1, y1]"),
            ("\"all\"", "'rects' must be an array"),
            ("[[\"0\",0.1,0.2,0.2]]", "from 0 to 1"),
            ("[" + Array(repeating: "[0.4,0.4,0.5,0.5]", count: 33).joined(separator: ",") + "]", "at most 32 per client"),
        ]
        for (k, (rects, says)) in cases.enumerated() {
            s.say(a, Self.exclude(rects, id: 100 + k))
            let reply = s.to(a).first ?? ""
            #expect(reply.contains("\"code\":\"bad-field\""), "\(rects): \(reply)")
            #expect(reply.contains(says), "\(rects): \(reply)")
            #expect(reply.contains("\"cmd\":\"exclude\",\"id\":\(100 + k)"), "\(rects): \(reply)")
            #expect(!s.last.contains { $0.hasPrefix("exclusions") })
        }
        s.say(a, "{\"cmd\":\"exclude\",\"id\":7}\n")
        #expect(s.to(a).first?.contains("missing 'rects'") == true)
        // 32 is allowed.
        s.say(a, Self.exclude("[" + Array(repeating: "[0.4,0.4,0.5,0.5]", count: 32).joined(separator: ",") + "]"))
        #expect(s.to(a).contains { $0.contains("\"type\":\"ok\"") })
    }
}

/// A host with nothing to run, for the executor's start.
private final class IdleHost: EngineHost {
    var configuration = EngineConfiguration(frameRate: 60, transitions: [])
    var identity: DaemonIdentity?
    var lastSeq: UInt64 { 0 }
    var liveTransitionCount: Int { 0 }
    func snapshot() -> [TransitionEngine.Snapshot] { [] }
    func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) {}
    func perform(_ command: TransitionEngine.Command, transition: Int,
                 into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome { .done }
    func shutdown(into events: inout [TransitionEvent]) {}
    func setExclusions(_ rects: [ScreenRect]) {}
    func reload(_ configuration: EngineConfiguration) -> [Int?] { [] }
    func streamIndex(of i: Int) -> Int { i }
}

@Suite("Server options")
struct ServerOptionsTests {
    /// Issue 26: `--wait-clients` above what the daemon admits was accepted,
    /// and the replay then waited for ever.
    @Test func waitingForMoreClientsThanAdmittedIsAProblem() {
        var options = ServerOptions(socketPath: "/tmp/x.sock", maxClients: 4)
        options.startAfterClients = 4
        #expect(options.problem == nil)
        options.startAfterClients = 5
        #expect(options.problem?.contains("--wait-clients 5") == true)
        #expect(options.problem?.contains("max_clients (4)") == true)
        options.webSocket = WebSocketOptions(host: "127.0.0.1", port: 0)
        options.maxWebSocketClients = 1
        #expect(options.problem == nil, "a WebSocket client may be one of them")
        options.startAfterClients = 6
        #expect(options.problem?.contains("max_websocket_clients (1)") == true)
    }

    @Test func startRefusesThemBeforeBinding() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        var options = ServerOptions(socketPath: "/tmp/transitiond-never-\(getpid()).sock", maxClients: 2)
        options.startAfterClients = 3
        let server = TransitionServer(loop: group.next(), options: options, host: IdleHost(), logger: Logger(label: "test"))
        #expect(throws: ServerOptionsError.self) { try server.start() }
        #expect(access(options.socketPath, F_OK) != 0, "nothing was bound")
    }
}

@Suite("The UI's filter regions (filter_regions)")
struct FilterRegionsCommandTests {
    static func regions(_ json: String, id: Int = 1) -> String { "{\"cmd\":\"filter_regions\",\"regions\":\(json),\"id\":\(id)}\n" }

    @Test func theLastClientToSetThemOwnsThemAndTheConfigsComeBackWhenItGoes() {
        var s = Script()
        let a = s.connect(), b = s.connect()
        s.say(a, Self.regions(#"[{"x":[0,0.5],"y":[0,1],"max_contacts":2,"block":[]}]"#))
        #expect(s.last == ["filter-regions 1", "send 1 ⟨{\"type\":\"ok\",\"cmd\":\"filter_regions\",\"id\":1}⏎⟩", "flush 1"],
                "the host has them before the client hears ok")
        #expect(s.machine.filterRegionsOwner == a)
        s.say(b, Self.regions("[]", id: 2))
        #expect(s.last.first == "filter-regions 0")
        #expect(s.machine.filterRegionsOwner == b)
        // a no longer owns them: its going changes nothing.
        s.gone(a)
        #expect(!s.last.contains { $0.hasPrefix("filter-regions") })
        s.gone(b)
        #expect(s.last.contains("filter-regions config"))
        #expect(s.machine.filterRegionsOwner == nil)
    }

    @Test func nullHandsThemBackToTheConfig() {
        var s = Script()
        let a = s.connect()
        s.say(a, Self.regions(#"[{"x":[0,1],"y":[0,1],"block":["pinch"]}]"#))
        s.say(a, Self.regions("null", id: 2))
        #expect(s.last.first == "filter-regions config")
        #expect(s.machine.filterRegionsOwner == nil)
        s.gone(a)
        #expect(!s.last.contains { $0.hasPrefix("filter-regions") })
    }

    @Test func badRegionsAreRefusedWholeNamingWhatIsWrong() {
        var s = Script()
        let a = s.connect()
        let tooMany = "[" + Array(repeating: #"{"x":[0,1],"y":[0,1]}"#, count: 33).joined(separator: ",") + "]"
        for (json, says) in [
            (#"[{"x":[0,1],"y":[0,1],"block":["circle"]}]"#, "'regions[0].block': unknown gesture 'circle' (known: pinch, swipe-2, swipe-3, swipe-4, swipe-5); nothing changed"),
            (#"[{"x":[0,1],"y":[0,1]},{"x":[0,1],"y":[0,1],"max_contacts":11}]"#, "'regions[1].max_contacts' must be from 1 to 10 (got 11)"),
            (tooMany, "'regions' has 33 regions; at most 32"),
            (#"[{"x":[0.5,0.2],"y":[0,1]}]"#, "'regions[0]': 'x' and 'y' must each be [low, high], from 0 to 1, low < high"),
            (#"[{"x":[0,1],"y":[0,1],"block":["pinch","pinch"]}]"#, "'regions[0].block' names 'pinch' twice"),
            (#"{"x":[0,1]}"#, "'regions' must be null"),
            (#"[{"x":[0,1],"y":[0,1],"block":["# + (0..<17).map { "\"g\($0)\"" }.joined(separator: ",") + "]}]",
             "'regions[0].block' has 17 names; at most 16"),
        ] {
            s.say(a, Self.regions(json, id: 5))
            #expect(!s.last.contains { $0.hasPrefix("filter-regions") }, "\(json)")
            let reply = s.to(a).first ?? ""
            #expect(reply.contains("\"code\":\"bad-field\"") && reply.contains(says), "\(json): \(reply)")
        }
        #expect(s.machine.filterRegionsOwner == nil)
    }

    @Test func aPeerWithoutPermissionMayNotSetThem() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        let a = s.connect(uid: 2000)
        s.say(a, Self.regions("[]"))
        #expect(!s.last.contains { $0.hasPrefix("filter-regions") })
        #expect(s.to(a).first?.contains("\"code\":\"forbidden\"") == true)
    }
}
