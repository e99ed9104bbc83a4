import NIOCore
import Testing
import TransitionEngine
@testable import TransitionServer

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

    /// Admits a client and gives it its hello.
    @discardableResult
    mutating func connect(uid: UInt32 = 0) -> ClientID {
        guard case .admit(let id) = machine.connectionArrived(.unixSocket) else {
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
    /// A direct send fell short; the executor handed `rest` to the channel.
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
        case .closeAfterWriting(let id, let lines, let direct):
            return "last \(id.number) \(lines.map(t).joined())\(direct ? " direct" : "")"
        case .close(let id): return "close \(id.number)"
        case .perform(let r): return "perform \(r.client.map { "\($0.number)" } ?? "-") \(r.command) on \(r.transition)"
        case .sendState(let id, _): return "state \(id.number)"
        case .sendDump(let id, _): return "dump \(id.number)"
        case .reload(let id, _): return "reload \(id.map { "\($0.number)" } ?? "-")"
        case .startInput: return "start-input"
        case .stopInput: return "stop-input"
        case .stopAccepting: return "stop-accepting"
        case .removeSocketFile: return "remove-socket-file"
        case .closed: return "closed"
        case .log(let level, let message): return "log-\(level) \(message)"
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
        #expect(s.to(a) == ["send ⟨ended⏎⟩", "last  direct"])
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
        guard case .refuse(let line?, full: true) = s.machine.connectionArrived(.unixSocket) else {
            Issue.record("not refused")
            return
        }
        #expect(String(buffer: line).contains("too-many-clients"))
        #expect(s.machine.clientCount == 2 && s.machine.knownClients == 2, "a refusal holds nothing")
        s.gone(a)
        guard case .admit = s.machine.connectionArrived(.unixSocket) else {
            Issue.record("a slot was not freed")
            return
        }
    }

    /// A client that connects and closes before its `hello` (or while it is
    /// written): a thousand of them leave no slot taken.
    @Test func connectAndCloseBeforeHelloLeavesNoSlotTaken() {
        var s = Script(.init(maxClients: 3, transitions: ["back"]))
        for _ in 0..<1000 {
            guard case .admit(let id) = s.machine.connectionArrived(.unixSocket) else {
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
        guard case .admit(let unknown) = s.machine.connectionArrived(.webSocket),
              case .admit(let known) = s.machine.connectionArrived(.webSocket) else {
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
        // A WebSocket client's lines are framed by its channel: never a direct send.
        #expect(s.to(unknown).first == "channel ⟨{\"type\":\"pong\"}⏎⟩")
        #expect(s.to(unknown).contains("flush"), "and flushed")
        s.events([ev("E1")])
        #expect(s.to(unknown) == ["channel ⟨E1⏎⟩", "flush"], "an event too: \(s.to(unknown))")
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
        #expect(s.to(a) == ["send ⟨ended⏎cancelled⏎⟩", "last  direct"])
        #expect(s.to(b) == ["channel ⟨ended⏎⟩", "channel ⟨cancelled⏎⟩", "flush", "last"])
        #expect(!s.last.contains("remove-socket-file"))
        s.gone(a)
        s.run { $0.acceptorStopped(into: &$1) }
        #expect(!s.last.contains("closed"), "b is still there")
        s.gone(b)
        #expect(s.last.suffix(2) == ["remove-socket-file", "closed"])
        #expect(s.machine.phase == .closed)
        #expect(s.machine.connectionArrived(.unixSocket) == .refuse(nil, full: false))
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
        #expect(s.machine.connectionArrived(.unixSocket) == .refuse(nil, full: true) || {
            if case .refuse(_, full: true) = s.machine.connectionArrived(.unixSocket) { return true }
            return false
        }())
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
        var s = Script(.init(maxClients: 2, transitions: ["back"]))
        let a = s.connect()
        guard case .admit(let web) = s.machine.connectionArrived(.webSocket) else { Issue.record("not admitted"); return }
        _ = s.machine.connectionArrived(.unixSocket)
        _ = s.machine.connectionArrived(.webSocket)
        #expect(s.machine.statistics.admitted == [.unixSocket: 1, .webSocket: 1])
        #expect(s.machine.statistics.refusedFull == 2)
        #expect(s.machine.clientCount(on: .unixSocket) == 1 && s.machine.clientCount(on: .webSocket) == 1)
        s.gone(a)
        s.gone(web)
        #expect(s.machine.clientCount(on: .unixSocket) == 0 && s.machine.clientCount(on: .webSocket) == 0)
        #expect(s.machine.statistics.admitted == [.unixSocket: 1, .webSocket: 1], "admissions stay counted")
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
    @Test func aClientsRefusalsAreLoggedFiveTimesThenOnceToSaySoThenNotAtAll() {
        var s = Script(.init(policy: AccessPolicy(uids: [1000], gids: []), transitions: ["back"]))
        let stranger = s.connect(uid: 4242), other = s.connect(uid: 4343)
        var logged: [String] = []
        for _ in 0..<50 {
            s.say(stranger, "{\"cmd\":\"cancel\",\"transition\":\"back\"}\n")
            logged += s.last.filter { $0.hasPrefix("log-notice") }
            #expect(s.to(stranger).first?.contains("\"code\":\"forbidden\"") == true, "every refusal is still answered")
        }
        #expect(logged.count == ServerStateMachine.refusalLogLimit + 1)
        #expect(logged.last?.contains("its further refusals are not logged") == true)
        #expect(s.machine.statistics.commands[ServerStatistics.Command(name: "cancel", result: "forbidden")] == 50)
        s.say(other, "{\"cmd\":\"cancel\",\"transition\":\"back\"}\n")
        #expect(s.last.contains { $0.hasPrefix("log-notice refused 'cancel'") }, "another client's first refusal is logged")
    }
}
