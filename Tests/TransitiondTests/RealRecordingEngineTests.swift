import Testing
import TestSupport
import Engine
import TransitionConfig
import Recordings
import Replay

/// Real touchscreens recorded by other people (../shared/recordings): with
/// fitting configs the engine does what a person watching would expect.
@Suite("Real recordings through the engine", .enabled(if: ProjectPaths.hasShared, "../shared/recordings is absent"))
struct RealRecordingEngineTests {
    static let evemu = "evemu-devices/"

    func config(_ toml: String) throws -> EngineConfiguration {
        try ConfigLoader.parse(text: toml, file: "test.toml")
    }

    func run(_ toml: String, _ recording: String, description: String? = nil) throws -> (EngineConfiguration, [TransitionEvent]) {
        let configuration = try config(toml)
        let input = try replayInput(ProjectPaths.sharedFile(recording),
                                    description: description.map(ProjectPaths.sharedFile))
        return (configuration, try replayAll(configuration, [input]))
    }

    static let everything = """
    [[transition]]
    name = "back"
    gesture = "edge-pan"
    edge = "left"
    [[transition]]
    name = "back2"
    gesture = "edge-pan"
    edge = "left"
    fingers = 2
    [[transition]]
    name = "down"
    gesture = "swipe"
    direction = "down"
    fingers = 1
    [[transition]]
    name = "right2"
    gesture = "swipe"
    direction = "right"
    fingers = 2
    [[transition]]
    name = "close"
    gesture = "pinch"
    direction = "in"
    """

    @Test func wacomTwoFingerSwipeFromTheLeftEdgeFinishesATwoFingerEdgePan() throws {
        let (c, events) = try run("""
            [[transition]]
            name = "back2"
            gesture = "edge-pan"
            edge = "left"
            fingers = 2
            """, Self.evemu + "Wacom ISDv4 E6 Finger.double-top-swipe.events",
            description: Self.evemu + "Wacom ISDv4 E6 Finger.desc")
        #expect(outcomes(events, c) == ["back2:began", "back2:finish", "back2:finished"])
        let ended = try #require(events.first { $0.kind == .ended })
        #expect(ended.progress > 0.85)   // to x ≈ 0.94 from the edge
    }

    @Test func wacomIsNotAOneFingerBack() throws {
        let (c, events) = try run("""
            [[transition]]
            name = "back"
            gesture = "edge-pan"
            edge = "left"
            """, Self.evemu + "Wacom ISDv4 E6 Finger.double-top-swipe.events",
            description: Self.evemu + "Wacom ISDv4 E6 Finger.desc")
        // The second finger lands before the first has moved 0.02: rejected.
        #expect(outcomes(events, c).isEmpty)
    }

    @Test func atmelFastTapsProduceNoTransition() throws {
        let (c, events) = try run(Self.everything, Self.evemu + "Atmel maXTouch Touchscreen.1-finger-fast-taps.events")
        #expect(outcomes(events, c).isEmpty)
    }

    @Test func atmelFastTapsHaveNineTouches() throws {
        let input = try replayInput(ProjectPaths.sharedFile(Self.evemu + "Atmel maXTouch Touchscreen.1-finger-fast-taps.events"))
        var assembler = try TouchFrameAssembler(device: input.device)
        var touches = Set<Int>()
        for e in input.events where assembler.feed(e) {
            for contact in assembler.frame.contacts { touches.insert(contact.id) }
            // Every position stays on the panel, even for touches that
            // report only X or only Y.
            #expect(assembler.frame.contacts.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) })
        }
        #expect(touches.count == 9)
    }

    @Test func ep0430DragDownAndBackUpCancelsASwipeDown() throws {
        let (c, events) = try run("""
            [[transition]]
            name = "down"
            gesture = "swipe"
            direction = "down"
            fingers = 1
            """, Self.evemu + "EP0430M09.1-finger-drag-up-down.events")
        #expect(outcomes(events, c) == ["down:began", "down:cancel", "down:cancelled"])
        // On the way it went past half (y ≈ 0.81 from a start near 0.18).
        #expect(events.contains { $0.kind == .changed && $0.progress > 0.55 })
    }

    @Test func atmelFourFingerDragDown() throws {
        let swipe = """
            [[transition]]
            name = "down4"
            gesture = "swipe"
            direction = "down"
            fingers = 4
            """
        let recording = Self.evemu + "Atmel maXTouch Touchscreen.4-finger-drag-down.events"
        let (c, events) = try run(swipe, recording)
        // A third of the height, and the fingers rest before lifting: cancel.
        #expect(outcomes(events, c) == ["down4:began", "down4:cancel", "down4:cancelled"])
        let ended = try #require(events.first { $0.kind == .ended })
        #expect((0.28...0.4).contains(ended.progress))
        // With half the distance for a full transition, the same drag finishes.
        let (c2, events2) = try run(swipe + "\ndistance = 0.5\n", recording)
        #expect(outcomes(events2, c2) == ["down4:began", "down4:finish", "down4:finished"])
        // A two-finger swipe: the third finger lands before it activates.
        let (c3, events3) = try run(swipe.replacingOccurrences(of: "fingers = 4", with: "fingers = 2"), recording)
        #expect(outcomes(events3, c3).isEmpty)
    }

    @Test func nTrigProtocolATwoFingersTouchAndRelease() throws {
        let recording = Self.evemu + "N-Trig MultiTouch.2-fingers-touch-release.events"
        let description = Self.evemu + "N-Trig MultiTouch.desc"
        let input = try replayInput(ProjectPaths.sharedFile(recording), description: ProjectPaths.sharedFile(description))
        var assembler = try TouchFrameAssembler(device: input.device)
        #expect(assembler.touchProtocol == .multitouchA)
        var most = 0, frames = 0
        var last = TouchFrame(time: 0, contacts: [])
        for e in input.events where assembler.feed(e) {
            most = max(most, assembler.frame.contacts.count)
            frames += 1
            last = assembler.frame
        }
        #expect(most == 2)
        #expect(frames == 219)
        #expect(last.contacts.isEmpty)
        let (c, events) = try run(Self.everything, recording, description: description)
        #expect(outcomes(events, c).isEmpty)
    }

    @Test func quantaTouchHoverProducesNoTransition() throws {
        let (c, events) = try run(Self.everything, Self.evemu + "QUANTA OpticalTouchScreen.touch-hover.events",
                                  description: Self.evemu + "QUANTA OpticalTouchScreen.desc")
        #expect(outcomes(events, c).isEmpty)
    }

    @Test(arguments: [("EP0430M09.1-finger-drag-up-down", "down", 1),
                      ("Atmel maXTouch Touchscreen.4-finger-drag-down", "down", 4)])
    func libinputRecordGivesTheSameTransitionsAsEvemu(_ name: String, _ direction: String, _ fingers: Int) throws {
        let toml = """
            [[transition]]
            name = "t"
            gesture = "swipe"
            direction = "\(direction)"
            fingers = \(fingers)
            """
        let (c, fromEvemu) = try run(toml, Self.evemu + name + ".events")
        let (_, fromLibinput) = try run(toml, "libinput-record/" + name + ".yml")
        #expect(!fromEvemu.isEmpty)
        #expect(outcomes(fromEvemu, c) == outcomes(fromLibinput, c))
        // Positions do not depend on timing: the same progress values.
        let a = fromEvemu.filter { $0.kind == .began || $0.kind == .changed }.map(\.progress)
        let b = fromLibinput.filter { $0.kind == .began || $0.kind == .changed }.map(\.progress)
        #expect(a.count == b.count)
        #expect(zip(a, b).allSatisfy { abs($0 - $1) < 1e-9 })
    }
}

/// The same through the real CLI, with `--description` for an events-only file.
@Suite("Real recordings through the CLI", .enabled(if: ProjectPaths.hasShared, "../shared/recordings is absent"))
struct RealRecordingCLITests {
    @Test func everyRealRecordingReplays() throws {
        let dir = "evemu-devices/"
        for (events, description) in [
            ("Atmel maXTouch Touchscreen.4-finger-drag-down.events", nil),
            ("Atmel maXTouch Touchscreen.1-finger-fast-taps.events", nil),
            ("EP0430M09.1-finger-drag-up-down.events", nil),
            ("Wacom ISDv4 E6 Finger.double-top-swipe.events", "Wacom ISDv4 E6 Finger.desc"),
            ("N-Trig MultiTouch.2-fingers-touch-release.events", "N-Trig MultiTouch.desc"),
            ("QUANTA OpticalTouchScreen.touch-hover.events", "QUANTA OpticalTouchScreen.desc"),
        ] as [(String, String?)] {
            var arguments = ["replay", "--fast", ProjectPaths.sharedFile(dir + events)]
            if let description { arguments += ["--description", ProjectPaths.sharedFile(dir + description)] }
            let result = try runTransitiond(arguments)
            #expect(result.status == 0, "\(events): \(result.stderr)")
            #expect(try decodeStream(result.stdout).first?.type == "hello")
        }
        for yml in ["EP0430M09.1-finger-drag-up-down.yml", "Atmel maXTouch Touchscreen.4-finger-drag-down.yml"] {
            let result = try runTransitiond(["replay", "--fast", ProjectPaths.sharedFile("libinput-record/" + yml)])
            #expect(result.status == 0, "\(yml): \(result.stderr)")
        }
    }

    @Test func eventsOnlyWithoutDescriptionNamesTheSiblingDesc() throws {
        let path = ProjectPaths.sharedFile("evemu-devices/Wacom ISDv4 E6 Finger.double-top-swipe.events")
        let result = try runTransitiond(["replay", "--fast", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):1:"))
        #expect(result.stderr.contains("Wacom ISDv4 E6 Finger.desc"))
    }
}
