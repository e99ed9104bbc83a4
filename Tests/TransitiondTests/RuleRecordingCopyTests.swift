import Foundation
import Testing
import Engine
import Recordings
import TouchFilter
import TestSupport

/// The `[filter]` rules' recordings (Recordings/filter/, one per rule)
/// through the real binary's `replay --fast --copy -`, each with its config
/// (Tests/Golden/copy/NAME.toml): the copy must equal the golden
/// Tests/Golden/copy/NAME.events byte for byte
/// (`TRANSITIOND_UPDATE_GOLDEN=1 swift test` rewrites them: then review
/// the diff), and show the rule's point, asserted from the recording
/// itself, not from the golden.
@Suite("The filter rules' recordings, copied")
struct RuleRecordingCopyTests {
    static let names = ["max-contacts-second-finger", "palms", "ghost-taps-periodic", "stuck-contact",
                        "transform-rotated-drag", "blocked-pinch"]

    static func config(_ name: String) -> String { ProjectPaths.file("Tests/Golden/copy/\(name).toml") }

    /// The copy of Recordings/filter/NAME.events under `config` (the
    /// recording's own by default), its bytes and what they read as.
    static func copy(_ name: String, config: String? = nil) throws
        -> (bytes: Data, copy: (description: DeviceDescription?, events: [InputEvent]), log: String) {
        let result = try runTransitiond(["replay", "--fast", "--verbose", "--config", config ?? Self.config(name),
                                         "--copy", "-", "Recordings/filter/\(name).events"])
        #expect(result.status == 0, "\(result.stderr)")
        return (result.stdout, try RecordingReader.parse(bytes: Array(result.stdout), path: "copy"), result.stderr)
    }

    /// The recording's touches and the copy's.
    static func touches(_ name: String, config: String? = nil) throws -> (panel: [TouchSpan], copy: [TouchSpan], log: String) {
        let recording = try RecordingReader.read(path: ProjectPaths.file("Recordings/filter/\(name).events"))
        let made = try copy(name, config: config)
        return (TouchSpan.of(recording.events), TouchSpan.of(made.copy.events), made.log)
    }

    /// `name`'s config with `line` taken out, as a temporary file.
    static func without(_ line: String, of name: String) throws -> String {
        let text = try String(contentsOfFile: config(name), encoding: .utf8)
        #expect(text.contains(line + "\n"))
        return try temporaryFile("\(name)-without.toml", text.replacingOccurrences(of: line + "\n", with: ""))
    }

    /// A recording added to Recordings/filter/ needs its config and golden here.
    @Test func everyRuleRecordingIsCopied() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ProjectPaths.file("Recordings/filter"))
        #expect(Set(files) == Set(Self.names.map { "\($0).events" }))
    }

    @Test(arguments: RuleRecordingCopyTests.names)
    func copyMatchesGolden(_ name: String) throws {
        let made = try Self.copy(name)
        let golden = ProjectPaths.file("Tests/Golden/copy/\(name).events")
        if ProcessInfo.processInfo.environment["TRANSITIOND_UPDATE_GOLDEN"] == "1" {
            try made.bytes.write(to: URL(fileURLWithPath: golden))
        }
        #expect(made.bytes == (try Data(contentsOf: URL(fileURLWithPath: golden))), "the copy differs from \(golden)")

        // Whatever the golden says: a well-formed multitouch stream that ends with nothing down.
        let description = try #require(made.copy.description)
        let keys = MultitouchValidator.touchKeys.intersection(description.codes[EventCode.EV_KEY] ?? [])
        var validator = MultitouchValidator(slotCount: Int(description.absInfo[EventCode.ABS_MT_SLOT]!.maximum) + 1,
                                            keys: keys)
        for e in made.copy.events {
            validator.read(TouchFilterMachine.Output(due: Double(e.time) * 1e-6, type: e.type, code: e.code, value: e.value))
        }
        #expect(validator.problems.isEmpty, "\(validator.problems)")
        #expect(validator.framesRead > 0 && validator.isIdle && validator.betweenFrames)
    }

    /// `max_contacts = 1`: a second finger lands during a drag and lifts
    /// after it. The copy is the drag alone, as it came; none of the second
    /// finger, even once it is the only one down.
    @Test func maxContactsLeavesTheSecondFingerOut() throws {
        let (panel, copy, _) = try Self.touches("max-contacts-second-finger")
        try #require(panel.count == 2)
        let (drag, second) = (panel[0], panel[1])
        #expect(drag.begin < second.begin && second.begin < drag.end! && drag.end! < second.end!)
        #expect(drag.points.count(where: { $0.time > second.begin && $0.time < drag.end! }) > 50)
        #expect(copy == [drag])
        let made = try Self.copy("max-contacts-second-finger")
        #expect(ReplayCopyTests.touches(made.copy.events).allSatisfy { $0.down.count <= 1 })
    }

    /// `palm_mm = 30` on a panel with ABS_MT_TOOL_TYPE and
    /// ABS_MT_TOUCH_MAJOR: the finger goes whole; the MT_TOOL_PALM contact
    /// and the one 36–40 mm wide never get a tracking id on the copy; the
    /// finger that turns palm ends there in the frame it turns. Without
    /// `palm_mm`, the wide one goes too: it was the threshold that kept it.
    @Test func palmsNeverReachTheCopy() throws {
        let recording = try RecordingReader.read(path: ProjectPaths.file("Recordings/filter/palms.events"))
        let (panel, copy, _) = try Self.touches("palms")
        try #require(panel.count == 4)
        let (finger, palm, wide, turning) = (panel[0], panel[1], panel[2], panel[3])
        // The last MT_TOOL_PALM the panel sends is the turning finger's, mid-drag.
        let turned = try #require(recording.events.last {
            $0.code == EventCode.ABS_MT_TOOL_TYPE && $0.value == PalmRule.palmTool
        }?.time)
        #expect(turning.begin < turned && turned < turning.end!)
        #expect(turning.points.count(where: { $0.time < turned }) > 20)
        #expect(palm.begin > finger.begin && palm.end! < finger.end!)

        #expect(copy == [finger, turning.ended(at: turned)])
        let made = try Self.copy("palms")
        #expect(made.copy.events.count(where: { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 }) == 2)
        #expect(!made.copy.events.contains { $0.code == EventCode.ABS_MT_TOOL_TYPE && $0.value == PalmRule.palmTool })

        let toolOnly = try Self.touches("palms", config: Self.without("palm_mm = 30", of: "palms"))
        #expect(toolOnly.copy == [finger, wide, turning.ended(at: turned)])
    }

    /// `ghost_touches = "quarantine"`: five still taps at one place 12.9 s
    /// apart and a person's tap there at no period of theirs. The first two
    /// and the person's reach the copy at once, as they came; the third to
    /// fifth never do, and the pattern is logged at the third.
    @Test func periodicGhostTapsAreQuarantinedFromTheThird() throws {
        let (panel, copy, log) = try Self.touches("ghost-taps-periodic")
        try #require(panel.count == 6)
        let person = panel[4]
        let ghosts = panel.filter { $0 != person }
        #expect(Set(ghosts.map { [$0.points[0].x, $0.points[0].y] }).count == 1 && ghosts.allSatisfy { $0.points.count == 1 })
        for (a, b) in zip(ghosts, ghosts.dropFirst()) { #expect(abs(b.begin - a.begin - 12_900_000) < 20_000) }
        #expect(ghosts.allSatisfy { $0.end! - $0.begin <= 50_000 } && person.end! - person.begin <= 50_000)
        #expect(ghosts[3].begin < person.begin && person.begin < ghosts[4].begin)
        #expect(abs(person.points[0].x - ghosts[0].points[0].x) <= 3 && abs(person.points[0].y - ghosts[0].points[0].y) <= 3)

        #expect(copy == [ghosts[0], ghosts[1], person])
        #expect(log.contains("a still tap every 12.9 s") && log.contains("3 so far"), "\(log)")
    }

    /// `stuck_after = 5`: a finger whose reports stop mid-drag and never
    /// lift ends on the copy 5 s after the panel's last event (its last
    /// report), before another finger lands; that one goes as it came.
    /// With `stuck_after = 10`, that other finger's events start the wait
    /// again: the stuck one ends 10 s after the panel's last event of all.
    @Test func aStuckContactEndsStuckAfterItsLastReport() throws {
        let recording = try RecordingReader.read(path: ProjectPaths.file("Recordings/filter/stuck-contact.events"))
        let (panel, copy, log) = try Self.touches("stuck-contact")
        try #require(panel.count == 2)
        let (stuck, other) = (panel[0], panel[1])
        let lastReport = try #require(recording.events.last { $0.time < other.begin }?.time)
        #expect(stuck.end == nil && stuck.points.count > 20 && stuck.points.last!.time == lastReport)
        #expect(other.begin - lastReport > 5_000_000)

        #expect(copy == [TouchSpan(points: stuck.points, end: lastReport + 5_000_000), other])
        #expect(log.contains("1 contact stuck (no event for 5.0 s)"), "\(log)")

        let longer = try temporaryFile("stuck-10.toml", String(contentsOfFile: Self.config("stuck-contact"), encoding: .utf8)
            .replacingOccurrences(of: "stuck_after = 5\n", with: "stuck_after = 10\n"))
        let late = try Self.touches("stuck-contact", config: longer)
        let lastEvent = try #require(recording.events.last?.time)
        #expect(late.copy == [TouchSpan(points: stuck.points, end: lastEvent + 10_000_000), other])
    }

    /// `transform` with `rotation = 90`: the copy's X is the screen's
    /// (1 − the panel's y) on the panel's Y range, its Y the panel's x on
    /// its X range, so each point is (2303 − y, x); the axes trade ranges.
    /// Without `transform` the copy has the panel's own positions.
    @Test func transformRotatesTheCopy() throws {
        let (panel, copy, _) = try Self.touches("transform-rotated-drag")
        try #require(panel.count == 1 && panel[0].points.count > 50)
        let rotated = panel.map { span in
            TouchSpan(points: span.points.map { .init(time: $0.time, x: 2303 - $0.y, y: $0.x) }, end: span.end)
        }
        #expect(copy == rotated)
        #expect(copy.first?.points.first == TouchSpan.Point(time: 1, x: 1382, y: 1229))
        let description = try #require(try Self.copy("transform-rotated-drag").copy.description)
        #expect(description.absInfo[EventCode.ABS_MT_POSITION_X]?.maximum == 2303)
        #expect(description.absInfo[EventCode.ABS_MT_POSITION_Y]?.maximum == 4095)
        #expect(description.absInfo[EventCode.ABS_X]?.maximum == 2303)

        let plain = try Self.without("transform = true", of: "transform-rotated-drag")
        let raw = try Self.touches("transform-rotated-drag", config: plain)
        #expect(raw.copy == panel)
    }

    /// `block = ["pinch"]`: a pinch out, a two-finger tap, a two-finger
    /// swipe. The pinch reaches the copy as its first finger alone, whole;
    /// the tap and the swipe reach it whole, each second finger 80 ms late
    /// (its hold) with its own timing. The explanation says the one touch
    /// withheld. Without `block` the pinch goes whole.
    @Test func aBlockedPinchLeavesItsFirstFingerAndTheRestPasses() throws {
        let (panel, copy, _) = try Self.touches("blocked-pinch")
        try #require(panel.count == 6)
        func late(_ span: TouchSpan, by lag: Int64) -> TouchSpan {
            TouchSpan(points: span.points.map { .init(time: $0.time + lag, x: $0.x, y: $0.y) }, end: span.end.map { $0 + lag })
        }
        // The tap's second finger lifts within its hold: released then, so
        // its lag is its own time down; the swipe's is released at 80 ms.
        let tap = panel[3]
        #expect(tap.end! - tap.begin < 80_000)
        #expect(copy == [panel[0], panel[2], late(tap, by: tap.end! - tap.begin), panel[4], late(panel[5], by: 80_000)])

        let explained = try runTransitiond(["replay", "--fast", "--explain", "--config", Self.config("blocked-pinch"),
                                            "--copy", try temporaryFile("blocked.evemu", ""),
                                            ProjectPaths.file("Recordings/filter/blocked-pinch.events")])
        #expect(explained.lines.count == 1 && explained.lines[0].hasSuffix("copy: a touch withheld: a finger of a pinch or swipe that block keeps from the UI"),
                "\(explained.lines)")

        let open = try Self.touches("blocked-pinch", config: Self.without("block = [\"pinch\"]", of: "blocked-pinch"))
        #expect(open.copy == panel)
    }
}
