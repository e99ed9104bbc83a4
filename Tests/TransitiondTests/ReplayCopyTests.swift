import Foundation
import Testing
import Engine
import Recordings
import Replay
import Inputs
import TouchFilter
import TransitionConfig
import TestSupport

/// `replay --fast --copy FILE`: the UI's copy of a recording's panel, made by
/// the live input's rules (`ReplayCopy` drives `LiveInputMachine`), checked
/// on the project's recordings against what filter mode must do.
@Suite("Replay: the UI's copy (--copy)")
struct ReplayCopyTests {
    static let hold = 0.08

    func copy(_ input: ReplayInput, rules: FilterRules = .none,
              configuration: EngineConfiguration = .standard) throws -> ReplayCopy.Copy {
        try ReplayCopy.make(of: input, configuration: configuration, hold: Self.hold, rules: rules, geometry: .identity)
    }

    // MARK: The touches of a stream

    /// A touch down at a frame: its number (the order in which the stream
    /// began its touches, whatever tracking ids it gave them) and position.
    struct Down: Equatable, CustomStringConvertible {
        var touch: Int
        var x: Int32
        var y: Int32
        var description: String { "#\(touch)@\(x),\(y)" }
    }

    /// What the stream's touches are after a frame, and when.
    struct Touches: Equatable, CustomStringConvertible {
        var time: Int64
        var down: [Down]
        var description: String { "\(time): \(down)" }
    }

    /// The touches after each frame of a protocol B stream, a frame that
    /// changes none of them left out: the positions, times and order of
    /// touches that the UI sees.
    static func touches(_ events: [InputEvent]) -> [Touches] {
        var slot = 0
        var ids: [Int: Int] = [:]
        var xs: [Int: Int32] = [:]
        var ys: [Int: Int32] = [:]
        var begun = 0
        var result: [Touches] = []
        for e in events {
            switch (e.type, e.code) {
            case (EventCode.EV_ABS, EventCode.ABS_MT_SLOT):
                slot = Int(e.value)
            case (EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID):
                if e.value < 0 {
                    ids[slot] = nil
                } else {
                    ids[slot] = begun
                    begun += 1
                }
            case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X):
                xs[slot] = e.value
            case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y):
                ys[slot] = e.value
            case (EventCode.EV_SYN, EventCode.SYN_REPORT):
                let down = ids.map { Down(touch: $0.value, x: xs[$0.key] ?? 0, y: ys[$0.key] ?? 0) }
                    .sorted { $0.touch < $1.touch }
                if result.last?.down != down { result.append(Touches(time: e.time, down: down)) }
            default:
                break
            }
        }
        return result
    }

    /// `input`'s events up to (and without) the frame where `cut` is true of an event.
    static func truncated(_ input: ReplayInput, before cut: (InputEvent) -> Bool) -> ReplayInput {
        var kept = input
        guard let at = input.events.firstIndex(where: cut) else { return input }
        let lastReport = input.events[..<at].lastIndex { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_REPORT }
        kept.events = lastReport.map { Array(input.events[...$0]) } ?? []
        return kept
    }

    static func isLift(_ e: InputEvent) -> Bool {
        e.type == EventCode.EV_ABS && e.code == EventCode.ABS_MT_TRACKING_ID && e.value < 0
    }

    // MARK: Tests

    /// The pinch is in the middle of the screen, where the default config's
    /// `back` (the left edge) cannot start: nothing is held or claimed, and
    /// the copy is the panel's touches as they came, under the copy's name.
    @Test func aRecordingNothingClaimsIsCopiedAsItCame() throws {
        let input = try replayInput("Recordings/pinch-in-2-fingers.events")
        let made = try copy(input)
        let expected = Self.touches(input.events)
        #expect(expected.count > 10)
        #expect(expected.contains { $0.down.count == 2 })
        #expect(Self.touches(made.events) == expected)
        #expect(made.description.name == input.device.name + " (transitiond filter)")
        #expect(made.description.absInfo.mapValues(\.maximum) == input.device.absInfo.mapValues(\.maximum))
        #expect(made.description.properties == input.device.properties)
    }

    /// `back` claims the left-edge flick while it is held (within
    /// `filter_hold`): none of it reaches the copy.
    @Test func anEdgeSwipeATransitionClaimsIsNotInTheCopy() throws {
        let input = try replayInput("Recordings/back-flick-finish.events")
        #expect(Self.touches(input.events).contains { !$0.down.isEmpty })
        let made = try copy(input)
        #expect(made.events.isEmpty, "\(Self.touches(made.events))")
    }

    /// The slow drag has not moved enough for `back` when its hold ends:
    /// the UI gets it `filter_hold` late, as it came, until `back` claims
    /// it, where it ends on the copy at once (long before the finger lifts).
    @Test func aSlowEdgeDragReachesTheUIUntilClaimed() throws {
        let input = try replayInput("Recordings/back-drag-finish.events")
        let lag = Int64(Self.hold * 1e6)
        let panel = Self.touches(input.events)
        let copied = Self.touches(try copy(input).events)
        let lastDown = try #require(copied.dropLast().last)
        #expect(copied.count > 5)
        #expect(copied.first?.time == panel.first.map { $0.time + lag })
        #expect(Array(copied.dropLast()) == Array(panel.prefix(copied.count - 1)).map { Touches(time: $0.time + lag, down: $0.down) })
        #expect(copied.last?.down == [])
        let lift = try #require(panel.last?.time)
        #expect(copied.last!.time < lift && copied.last!.time > lastDown.time)
    }

    /// The drag's first frame (a finger at the left edge) held still for
    /// 150 ms, then lifted: not a gesture, so it reaches the UI when its
    /// hold ends, every frame `filter_hold` late, at its own positions.
    @Test func aHeldEdgeTouchComesWithItsHoldDelay() throws {
        let drag = try replayInput("Recordings/back-drag-finish.events")
        var tap = drag
        let firstReport = try #require(drag.events.firstIndex { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_REPORT })
        let down = drag.events[firstReport].time
        let up = down + 150_000
        tap.events = Array(drag.events[...firstReport]) + [
            InputEvent(time: up, type: EventCode.EV_ABS, code: EventCode.ABS_MT_TRACKING_ID, value: -1),
            InputEvent(time: up, type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: 0),
            InputEvent(time: up, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0),
        ]
        let made = try copy(tap)
        let lag = Int64(Self.hold * 1e6)
        let expected = Self.touches(tap.events).map { Touches(time: $0.time + lag, down: $0.down) }
        #expect(expected.count == 2)
        #expect(Self.touches(made.events) == expected)
        #expect(made.events.first?.time == down + lag)
    }

    /// `max_contacts = 1` on a pinch: the second finger never reaches the
    /// copy, and the first goes on unbroken, as it came.
    @Test func maxContactsOneLeavesOneFingerOfAPinch() throws {
        let input = try replayInput("Recordings/pinch-in-2-fingers.events")
        let made = try copy(input, rules: FilterRules(maxContacts: 1))
        let copied = Self.touches(made.events)
        #expect(copied.allSatisfy { $0.down.count <= 1 })
        #expect(Set(copied.flatMap { $0.down.map(\.touch) }) == [0])
        // The first finger alone, as the panel had it.
        var first: [Touches] = []
        for state in Self.touches(input.events) {
            let alone = Touches(time: state.time, down: state.down.filter { $0.touch == 0 })
            if first.last?.down != alone.down { first.append(alone) }
        }
        #expect(first.count > 10)
        #expect(copied == first)
    }

    /// `block = ["pinch"]` on the project's pinch, which starts slowly (its
    /// spread changes 0.02 about 127 ms after the second finger lands):
    /// with the default hold (80 ms) the second finger reaches the copy
    /// when its hold ends and lifts there as the pinch shows; with a hold
    /// of 0.2 s it never does. The first finger goes on unbroken, and
    /// `--explain` says why the second went.
    @Test func aBlockedPinchLeavesTheFirstFingerAndIsExplained() throws {
        let input = try replayInput("Recordings/pinch-in-2-fingers.events")
        let landed = Double(input.events.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 }[1].time) * 1e-6
        let why = "copy: a touch withheld: a finger of a pinch or swipe that block keeps from the UI"

        let short = try ReplayCopy.make(of: input, configuration: .standard, hold: Self.hold,
                                        rules: FilterRules(block: [.pinch]), geometry: .identity, explain: true)
        let shown = Self.touches(short.events)
        let both = shown.filter { $0.down.count == 2 }
        #expect(!both.isEmpty && both.allSatisfy { Double($0.time) * 1e-6 >= landed + Self.hold - 1e-6 },
                "the second finger only once its hold ended")
        #expect(short.explanations.map(\.text) == [why])
        let said = try #require(short.explanations.first?.time)
        #expect(said > landed + Self.hold, "\(said) against \(landed)")
        // Lifted on the copy as the pinch showed, the first finger still down.
        let after = shown.filter { Double($0.time) * 1e-6 >= said }
        #expect(after.first?.down.map(\.touch) == [0])

        let long = try ReplayCopy.make(of: input, configuration: .standard, hold: 0.2,
                                       rules: FilterRules(block: [.pinch]), geometry: .identity, explain: true)
        let copied = Self.touches(long.events)
        #expect(copied.allSatisfy { $0.down.count <= 1 })
        #expect(Set(copied.flatMap { $0.down.map(\.touch) }) == [0])
        #expect(long.explanations.map(\.text) == [why])
        let early = try #require(long.explanations.first?.time)
        #expect(early > landed && early < landed + 0.2)
        // Without --explain, nothing is kept for it, and the copy is the same.
        let quiet = try ReplayCopy.make(of: input, configuration: .standard, hold: 0.2,
                                        rules: FilterRules(block: [.pinch]), geometry: .identity)
        #expect(quiet.explanations.isEmpty)
        #expect(quiet.events == long.events)
    }

    /// The recording stops with both fingers of the pinch down: with
    /// `stuck_after`, they end on the copy at the last event + stuck_after
    /// (when the live timer would fire); without, where the recording
    /// ends (the panel counts as gone).
    @Test func aStuckContactEndsWhenItsTimerFires() throws {
        let input = Self.truncated(try replayInput("Recordings/pinch-in-2-fingers.events"), before: Self.isLift)
        let last = try #require(input.events.last?.time)
        #expect(Self.touches(input.events).last?.down.count == 2)

        let stuck = try copy(input, rules: FilterRules(stuckAfter: 5))
        let copied = Self.touches(stuck.events)
        let deadline = last + 5_000_000
        // Each stuck touch ends in a frame of its own, both at the deadline.
        #expect(copied.last == Touches(time: deadline, down: []))
        #expect(copied.allSatisfy { $0.time <= last || $0.time == deadline })
        #expect(copied.filter { $0.time <= last }.last?.down.count == 2)
        #expect(stuck.log.contains { $0.line.contains("2 contacts stuck") })

        let unplugged = try copy(input)
        #expect(Self.touches(unplugged.events).last == Touches(time: last, down: []))
    }

    /// The copy as `--copy` writes it reads back with the project's evemu
    /// reader, the same description and events, and is a well-formed
    /// multitouch stream throughout (whole frames, one touch per slot,
    /// key bits and pointer axes that match, times that never go back).
    @Test(arguments: [
        ("Recordings/pinch-in-2-fingers.events", FilterRules(maxContacts: 1)),
        ("Recordings/pinch-in-2-fingers.events", FilterRules(stuckAfter: 0.05)),
        ("Recordings/swipe-up-3-fingers.events", FilterRules(maxContacts: 2)),
        ("Recordings/back-flick-back-cancel.events", FilterRules.none),
        ("Recordings/forward-edge-right-spring.events", FilterRules(palmMillimetres: 30)),
    ])
    func theWrittenCopyReadsBackWellFormed(_ path: String, _ rules: FilterRules) throws {
        let made = try copy(try replayInput(path), rules: rules)
        let bytes = EvemuWriter.write(description: made.description, events: made.events, origin: 0)
        let read = try RecordingReader.parse(bytes: bytes, path: "copy.evemu")
        let description = try #require(read.description)
        #expect(description.name == made.description.name)
        #expect(description.absInfo.mapValues(\.maximum) == made.description.absInfo.mapValues(\.maximum))
        #expect(read.events == made.events)
        #expect(!read.events.isEmpty)

        let declared = description.codes[EventCode.EV_KEY] ?? []
        var validator = MultitouchValidator(slotCount: Int(description.absInfo[EventCode.ABS_MT_SLOT]!.maximum) + 1,
                                            keys: MultitouchValidator.touchKeys.intersection(declared),
                                            emulatesPointer: description.absInfo[EventCode.ABS_X] != nil)
        for e in read.events {
            validator.read(TouchFilterMachine.Output(due: Double(e.time) * 1e-6, type: e.type, code: e.code, value: e.value))
        }
        #expect(validator.problems.isEmpty, "\(validator.problems)")
        #expect(validator.framesRead > 0)
        #expect(validator.isIdle && validator.betweenFrames)
    }

    /// A panel filter mode cannot copy (single touch) is an error naming the recording.
    @Test func aPanelFilterModeCannotCopyIsNamed() throws {
        let input = ReplayInput(path: "single.evemu", device: DeviceDescription(name: "single", absInfo: [
            EventCode.ABS_X: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_Y: AbsInfo(minimum: 0, maximum: 1000),
        ]), events: [])
        #expect {
            _ = try copy(input)
        } throws: { error in
            "\(error)".hasPrefix("single.evemu: ")
        }
    }

    /// The real CLI, once: `--copy` honours the config's `[filter]` rules
    /// whatever `[input] mode` says (here the default, shared), writes the
    /// file, and refuses what it cannot do with a usage error.
    @Test func theCommandWritesTheCopy() throws {
        let config = try temporaryFile("copy.toml", """
            [input]
            mode = "shared"

            [filter]
            max_contacts = 1

            [[transition]]
            name = "back"
            gesture = "edge-pan"
            edge = "left"

            """)
        let target = try temporaryFile("copy.evemu", "old")
        let result = try runTransitiond(["replay", "--fast", "--config", config, "--copy", target,
                                         "Recordings/pinch-in-2-fingers.events"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let read = try RecordingReader.read(path: target)
        #expect(read.description?.name == "transitiond synthetic 10-point panel (transitiond filter)")
        let copied = Self.touches(read.events)
        #expect(!copied.isEmpty && copied.allSatisfy { $0.down.count <= 1 })

        // --explain: why the second finger never came, on stdout (the copy
        // the same); with the copy on stdout, on stderr.
        let explained = try runTransitiond(["replay", "--fast", "--explain", "--config", config, "--copy", target,
                                            "Recordings/pinch-in-2-fingers.events"])
        #expect(explained.status == 0, "\(explained.stderr)")
        let said = String(decoding: explained.stdout, as: UTF8.self)
        let line = try #require(said.split(separator: "\n").first.map(String.init))
        #expect(line.hasSuffix("  copy: a touch withheld: one touch too many for max_contacts"), "\(said)")
        #expect(said.split(separator: "\n").count == 1)
        #expect(try RecordingReader.read(path: target).events == read.events)
        let piped = try runTransitiond(["replay", "--fast", "--explain", "--config", config, "--copy", "-",
                                        "Recordings/pinch-in-2-fingers.events"])
        #expect(piped.status == 0 && String(decoding: piped.stdout, as: UTF8.self).hasPrefix("# EVEMU 1.3"), "\(piped.stderr)")
        #expect(piped.stderr.contains("copy: a touch withheld: one touch too many for max_contacts"), "\(piped.stderr)")

        let paced = try runTransitiond(["replay", "--copy", target, "Recordings/pinch-in-2-fingers.events"])
        #expect(paced.status == 64 && paced.stderr.contains("--copy needs --fast"), "\(paced.stderr)")
        let two = try runTransitiond(["replay", "--fast", "--copy", target, "Recordings/pinch-in-2-fingers.events",
                                      "Recordings/back-drag-finish.events"])
        #expect(two.status == 64 && two.stderr.contains("give one recording"), "\(two.stderr)")
        let folder = try runTransitiond(["replay", "--fast", "--copy", "/", "Recordings/pinch-in-2-fingers.events"])
        #expect(folder.status == 74 && folder.stderr.contains("/: cannot write: is a directory"), "\(folder.stderr)")
    }
}
