import Testing
import WireProtocol

/// Every message and command the protocol has, encoded and decoded back:
/// the decoder reads what the encoder writes, field for field. The values
/// are ones the wire's six decimals hold exactly.
@Suite("Wire: round trips")
struct RoundTripTests {
    static let snapshot = StreamSnapshot(
        protocolVersion: 1, version: "0.1.0",
        transitions: [TransitionInfo(name: "back", gesture: "edge-pan", fingers: 1, edge: "left"),
                      TransitionInfo(name: "home", gesture: "swipe", fingers: 3, direction: "up", enabled: false,
                                     device: "/dev/input/event4"),
                      TransitionInfo(name: "zoom \"x\"\n", gesture: "pinch", fingers: 2, direction: "in")],
        active: [ActiveTransition(transition: "back", phase: .interacting, progress: 0.42, values: [PropertyValue("dim", 0.16)]),
                 ActiveTransition(transition: "home", phase: .animating, progress: 0.8, target: 1,
                                  values: [PropertyValue("a", -0.5), PropertyValue("b", 1e6)])],
        seq: 17, input: InputStatus(input: "attached", device: "/dev/input/event3", deviceName: "Panel \u{1}"),
        devices: [InputDevice(source: 0, path: "/dev/input/event3", name: "A"),
                  InputDevice(source: 1, path: "/dev/input/event4", name: "B")],
        geometry: Geometry(rotation: 90, flipX: false, flipY: true, calibration: [0, -1, 1, 1, 0, 0], calibrationFrom: "udev"),
        exclusions: [ExclusionRect(0, 0.6, 0.3, 1), ExclusionRect(0.125, 0.25, 0.5, 0.75)],
        filter: FilterStatus(hold: 0.08, maxContacts: 1,
                             regions: [FilterStatus.Region(x0: 0, x1: 0.5, y0: 0.5, y1: 1, maxContacts: 2),
                                       FilterStatus.Region(x0: 0.25, x1: 0.75, y0: 0, y1: 0.125)],
                             ghostTouches: "quarantine",
                             ghostPatterns: [FilterStatus.GhostPattern(device: "/dev/input/event4", period: 12.9,
                                                                       xMillimetres: 128, yMillimetres: 72.5, taps: 5),
                                             FilterStatus.GhostPattern(period: 7.3, xMillimetres: 0, yMillimetres: 1, taps: 3)],
                             stuckAfter: 600, palmMillimetres: 30, transform: true))

    static let messages: [StreamMessage] = {
        var messages: [StreamMessage] = [
            .hello(snapshot),
            .hello(StreamSnapshot(transitions: [])),
            .hello(StreamSnapshot(protocolVersion: 1, version: "0.1.0", transitions: [TransitionInfo(name: "b")],
                                  input: InputStatus(input: "waiting", waitingFor: "a touchscreen"),
                                  geometry: Geometry(rotation: 0, flipX: true, flipY: false, calibration: nil,
                                                     calibrationFrom: "none"))),
            .hello(StreamSnapshot(transitions: [], filter: FilterStatus(hold: 0))),
            .state(StreamSnapshot(transitions: [], latency: LatencyStatus(touchToFrame: .init(p50: 0.0187, p95: 0.0406, samples: 75))), id: 2),
            .hello(StreamSnapshot(transitions: [], identity: DaemonIdentity(kiosk: "lobby-3", site: "hbf",
                                                                            labels: ["floor": "2", "x y": "\"q\""],
                                                                            configHash: "093ba6bc36c2c7e7"))),
            .hello(StreamSnapshot(transitions: [], identity: DaemonIdentity(configHash: "0"))),
            .state(StreamSnapshot(transitions: [], latency: LatencyStatus(touchToFrame: .init(p50: 0.02, p95: 0.03, samples: 1),
                                                                       inputToWrite: .init(p50: 0.0004, p95: 0.0011, samples: 218))), id: nil),
            .state(snapshot, id: nil), .state(snapshot, id: 8), .state(StreamSnapshot(transitions: [], seq: 0), id: "s"),
            .pong(id: nil), .pong(id: 7), .clock(monotonic: 52731.184306, id: 1), .clock(monotonic: 0, id: nil), .pong(id: .number(-RequestID.largestNumber)), .pong(id: "a\"b"),
            .ok(cmd: "drive", id: nil), .ok(cmd: "subscribe", id: "s1"),
            .error(code: "backlog", message: "you fell behind", cmd: nil, id: nil),
            .error(code: "bad-field", message: "'progress' must be …", cmd: "drive", id: 3),
            .dump([], id: nil),
            .dump([DumpRecording(source: 0, path: "/dev/input/event3", events: 2, evemu: "# EVEMU 1.3\nE: 0.000001 0003 0035 100\n"),
                   DumpRecording(source: 1, path: "p", events: 0, evemu: "")], id: 4),
            .unknown(type: "telemetry"),
        ]
        for kind in TransitionUpdate.Kind.allCases {
            messages.append(.event(TransitionUpdate(kind: kind, transition: "back", seq: 18, time: 12.301, progress: 0.021,
                                                    velocity: -0.8, values: [PropertyValue("dim", 0.958)])))
        }
        for decision in TransitionUpdate.Decision.allCases {
            for reason in TransitionUpdate.Reason.allCases {
                messages.append(.event(TransitionUpdate(kind: .ended, transition: "b", seq: 60, time: 0, progress: 0.66,
                                                        velocity: 0.23, decision: decision, reason: reason,
                                                        position: .init(x: 0.5, y: 0.25))))
            }
        }
        messages.append(.event(TransitionUpdate(kind: .ended, transition: "carousel", seq: 9, time: 2.5, progress: 0.31,
                                                velocity: 1.9, decision: .snap, reason: .released, target: 0.5, index: 1)))
        messages.append(.hello(StreamSnapshot(transitions: [TransitionInfo(name: "carousel", gesture: "swipe",
                                                                           snapPoints: [0, 0.25, 1], rest: 0.25)])))
        messages.append(.event(TransitionUpdate(kind: .animating, transition: "b", seq: (UInt64(1) << 53) - 1, time: 1e9,
                                                progress: 1.02, velocity: 3.7, target: 1)))
        messages.append(.event(TransitionUpdate(kind: .cancelled, transition: "b", seq: 71, time: 13.5, progress: 0,
                                                velocity: 0, values: [PropertyValue("dim", 1)], synthetic: true)))
        return messages
    }()

    @Test(arguments: messages)
    func message(_ message: StreamMessage) throws {
        let line = message.encodedLine()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "one line")
        #expect(try StreamMessage.decode(line: line) == message, "\(String(decoding: line, as: UTF8.self))")
    }

    static let commands: [ClientCommand] = [
        .subscribe(transitions: []), .subscribe(transitions: ["back", "ho\"me"]), .ping, .state, .reload, .dump, .clock,
        .frames([FrameReport(seq: 1, presented: 0)]),
        .frames([FrameReport(seq: 231, presented: 52731.2015), FrameReport(seq: (1 << 53) - 1, presented: -3.5)]),
        .run(transition: "home", to: .finish), .run(transition: "home", to: .cancel),
        .run(transition: "carousel", to: .point(0.5)), .run(transition: "carousel", to: .point(0)),
        .run(transition: "carousel", to: .point(1)), .run(transition: "carousel", to: .index(0)),
        .run(transition: "carousel", to: .index(7)),
        .drive(transition: "back", progress: 0), .drive(transition: "back", progress: 0.4), .drive(transition: "back", progress: 1),
        .release(transition: "back", velocity: nil), .release(transition: "back", velocity: -1000),
        .release(transition: "back", velocity: 2.5), .cancel(transition: "back"),
        .enable(transition: "back", enabled: false), .enable(transition: "back", enabled: true),
        .exclude(rects: []), .exclude(rects: [ExclusionRect(0, 0.6, 0.3, 1)]),
        .exclude(rects: [ExclusionRect(0.1, 0.2, 0.3, 0.4), ExclusionRect(0, 0, 1, 1)]),
        .filterRegions(regions: nil), .filterRegions(regions: []),
        .filterRegions(regions: [FilterStatus.Region(x0: 0, x1: 0.5, y0: 0.25, y1: 1, maxContacts: 2, block: []),
                                 FilterStatus.Region(x0: 0.5, x1: 1, y0: 0, y1: 1, block: ["pinch", "swipe-9"])]),
    ]

    @Test(arguments: commands, [nil, .number(7), .number(-RequestID.largestNumber), .text("x\\y")] as [RequestID?])
    func command(_ command: ClientCommand, id: RequestID?) throws {
        let line = command.encodedLine(id: id)
        #expect(line.last == UInt8(ascii: "\n"))
        let decoded = try CommandDecoder.decode(Array(line.dropLast())).get()
        #expect(decoded.0 == command, "\(String(decoding: line, as: UTF8.self))")
        #expect(decoded.1 == id)
    }

    /// Every command decodes under the name it encodes with, and only the
    /// reading commands go without permission.
    @Test func commandNames() {
        #expect(Set(Self.commands.map(\.name)) == ["subscribe", "ping", "state", "run", "drive", "release", "cancel",
                                                    "enable", "reload", "dump", "exclude", "filter_regions", "clock", "frames"])
        #expect(Self.commands.filter { !$0.changesState }.map(\.name) == ["subscribe", "subscribe", "ping", "state", "clock",
                                                                          "frames", "frames"])
    }

    /// A refusal the decoder gives is an `error` reply that reads back with
    /// its code, message, command and id.
    @Test func refusalsAsReplies() throws {
        guard case .failure(let e) = CommandDecoder.decode(Array(#"{"cmd":"drive","transition":"back","progress":2,"id":3}"#.utf8)) else {
            Issue.record("accepted"); return
        }
        let reply = StreamMessage.error(code: e.code.rawValue, message: e.message, cmd: e.cmd, id: e.id)
        #expect(try StreamMessage.decode(line: reply.encodedLine()) == reply)
        #expect(ErrorCode.allCases.allSatisfy { ErrorCode(rawValue: $0.rawValue) == $0 })
    }
}

extension StreamMessage: CustomTestStringConvertible {
    public var testDescription: String { String(decoding: encodedLine().dropLast(), as: UTF8.self) }
}

extension ClientCommand: CustomTestStringConvertible {
    public var testDescription: String { String(decoding: encodedLine().dropLast(), as: UTF8.self) }
}

@Suite("Wire: exclusion regions")
struct ExclusionWireTests {
    /// `exclude`'s line and `hello`'s field, byte for byte.
    @Test func exclusionsOnTheWire() throws {
        let line = ClientCommand.exclude(rects: [ExclusionRect(0, 0.6, 0.3, 1)]).encodedLine(id: 5)
        #expect(String(decoding: line, as: UTF8.self) == #"{"cmd":"exclude","rects":[[0,0.6,0.3,1]],"id":5}"# + "\n")
        let hello = StreamMessage.hello(StreamSnapshot(transitions: [], exclusions: [ExclusionRect(0.9, 0, 1, 0.25)]))
        let text = String(decoding: hello.encodedLine(), as: UTF8.self)
        #expect(text == #"{"type":"hello","transitions":[],"active":[],"exclusions":[[0.9,0,1,0.25]]}"# + "\n")
        #expect(!String(decoding: StreamMessage.hello(StreamSnapshot(transitions: [])).encodedLine(), as: UTF8.self)
            .contains("exclusions"), "absent when there are none")
        #expect(throws: StreamDecodeError.self) {
            try StreamMessage.decode(line: #"{"type":"hello","transitions":[],"active":[],"exclusions":[[0,1]]}"#)
        }
    }
}

@Suite("Wire: the filter's status")
struct FilterStatusWireTests {
    /// `hello`'s `filter`, byte for byte: `hold` always, each rule that is
    /// on in the documented order, each off one absent.
    @Test func theFilterObjectOnTheWire() throws {
        let full = FilterStatus(hold: 0.08, maxContacts: 1, block: ["pinch", "swipe-2"],
                                regions: [FilterStatus.Region(x0: 0, x1: 0.5, y0: 0.5, y1: 1, maxContacts: 2, block: []),
                                          FilterStatus.Region(x0: 0.5, x1: 1, y0: 0, y1: 1)],
                                ghostTouches: "quarantine",
                                ghostPatterns: [FilterStatus.GhostPattern(period: 12.9, xMillimetres: 128,
                                                                          yMillimetres: 72, taps: 4)],
                                stuckAfter: 600, palmMillimetres: 30, transform: true)
        let line = String(decoding: StreamMessage.hello(StreamSnapshot(transitions: [], filter: full)).encodedLine(),
                          as: UTF8.self)
        #expect(line == #"{"type":"hello","transitions":[],"active":[],"filter":{"hold":0.08,"max_contacts":1,"block":["pinch","swipe-2"],"regions":[{"x":[0,0.5],"y":[0.5,1],"max_contacts":2,"block":[]},{"x":[0.5,1],"y":[0,1]}],"ghost_touches":"quarantine","ghost_patterns":[{"period":12.9,"x_mm":128,"y_mm":72,"taps":4}],"stuck_after":600,"palm_mm":30,"transform":true}}"# + "\n")
        let bare = StreamMessage.state(StreamSnapshot(transitions: [], seq: 3, filter: FilterStatus(hold: 0.3)), id: 2)
        #expect(String(decoding: bare.encodedLine(), as: UTF8.self)
                == #"{"type":"state","transitions":[],"active":[],"seq":3,"filter":{"hold":0.3},"id":2}"# + "\n")
        #expect(!String(decoding: StreamMessage.hello(StreamSnapshot(transitions: [])).encodedLine(), as: UTF8.self)
            .contains("filter"), "absent outside filter mode")
        // A pattern of one panel among several names it first.
        let several = FilterStatus(hold: 0, ghostPatterns: [FilterStatus.GhostPattern(device: "/dev/input/event4", period: 2,
                                                                                        xMillimetres: 1, yMillimetres: 2, taps: 3)])
        #expect(String(decoding: StreamMessage.hello(StreamSnapshot(transitions: [], filter: several)).encodedLine(), as: UTF8.self)
            .contains(#""ghost_patterns":[{"device":"/dev/input/event4","period":2,"x_mm":1,"y_mm":2,"taps":3}]"#))
    }

    @Test func aMistypedFilterIsAnError() throws {
        for bad in [#""filter":[]"#, #""filter":{"max_contacts":"1"}"#, #""filter":{"regions":[{"x":[0],"y":[0,1]}]}"#,
                    #""filter":{"ghost_patterns":[{"x_mm":1,"y_mm":2}]}"#, #""filter":{"transform":1}"#] {
            #expect(throws: StreamDecodeError.self, "\(bad)") {
                try StreamMessage.decode(line: #"{"type":"hello","transitions":[],"active":[],"# + bad + "}")
            }
        }
        #expect(throws: StreamDecodeError.self) {
            try StreamMessage.decode(line: #"{"type":"hello","transitions":[],"filter":{"block":["pinch",2]}}"#)
        }
        // Unknown fields inside it are ignored, as everywhere; a gesture a
        // newer daemon blocks still reads.
        #expect(try StreamMessage.decode(line: #"{"type":"hello","transitions":[],"filter":{"hold":1,"block":["pinch","circle"],"lasso":true}}"#)
                == .hello(StreamSnapshot(transitions: [], filter: FilterStatus(hold: 1, block: ["pinch", "circle"]))))
    }
}
